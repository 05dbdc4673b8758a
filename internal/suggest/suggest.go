// Package suggest finds the known name a mistyped one most likely meant, so
// that a message can end with "did you mean X?".
package suggest

import "unicode/utf8"

// Closest returns the candidate nearest to word by edit distance (one
// insertion, deletion or substitution of a rune each), when it is near
// enough to be a typo: at most 2 edits, and at most a third of word's runes
// for a short word, so that a short name is not "corrected" into an
// unrelated one. Ties go to the earliest candidate, so the answer follows
// the order the caller lists them in. It returns false when word is itself
// a candidate or nothing is near.
func Closest(word string, candidates []string) (string, bool) {
	limit := min(2, max(1, utf8.RuneCountInString(word)/3))
	best, bestDist := "", limit+1
	for _, c := range candidates {
		if c == word {
			return "", false
		}
		if d := Distance(word, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best, best != ""
}

// Distance is the Levenshtein distance between a and b, counted in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
