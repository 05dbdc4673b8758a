package lint

import (
	"encoding/json"
	"slices"
	"strings"
)

// Small readers of GitHub expressions and label lists for the rules.

// refersTo reports whether an expression reads output of one of the
// policy jobs (the set isPolicy): needs.JOB.outputs.OUTPUT. Its time grows
// with the text, not with the number of policy jobs.
func refersTo(text string, isPolicy map[string]bool, output string) bool {
	const prefix = "needs."
	for i := 0; ; {
		k := strings.Index(text[i:], prefix)
		if k < 0 {
			return false
		}
		start := i + k + len(prefix)
		end := start
		for end < len(text) && (isIdentByte(text[end]) && text[end] != '.' || text[end] >= 'A' && text[end] <= 'Z') {
			end++
		}
		if isPolicy[text[start:end]] && strings.HasPrefix(text[end:], ".outputs."+output) {
			return true
		}
		i = start
	}
}

// policyName is the policy job a message suggests: the workflow's own, or
// the Miles name when it has none.
func policyName(policyJobs []string) string {
	if len(policyJobs) > 0 {
		return policyJobs[0]
	}
	return policyJobHint
}

// sameSet reports whether two label lists hold the same labels, whatever
// their order and repetitions: a runner must carry all of them, so only the
// set matters.
func sameSet(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	for _, s := range b {
		if !slices.Contains(a, s) {
			return false
		}
	}
	return true
}

// jsonList writes labels as the roster's message shows them: ["h100","8gpu"].
func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

// guardCall is one contains(…skipped_stages…, 'name') call of an if:
// expression.
type guardCall struct {
	stage string // the stage name tested, "" when not a string literal
	// negated says the expression uses the call as "not skipped" (an odd
	// number of ! on it and the groups around it, or `== false` after
	// it); unread says lint cannot tell (the call is another function's
	// argument).
	negated, unread bool
}

// skipGuardCalls returns the contains(…skipped_stages…, …) calls of an if:
// expression, in order. It reads the expression once, front to back (see
// exprScan), so that its time grows with the expression's length however
// the calls nest or fail to close.
func skipGuardCalls(expr string) []guardCall {
	sc := scanExpr(expr)
	var calls []guardCall
	for _, b := range sc.calls {
		br := &sc.brackets[b]
		// At least two arguments: a comma after the first, and the
		// second ended by another comma or by the closing bracket.
		if br.commas[0] < 0 || br.commas[1] < 0 && br.close < 0 {
			continue
		}
		end := br.commas[1]
		if end < 0 {
			end = br.close
		}
		if !sc.holds(br.open+1, br.commas[0], "skipped_stages") {
			continue
		}
		var call guardCall
		call.stage, _ = stringLiteral(strings.TrimSpace(expr[br.commas[0]+1 : end]))
		call.negated, call.unread = sc.negation(b)
		calls = append(calls, call)
	}
	return calls
}

// exprScan is what one pass over an if: expression finds outside its '…'
// string literals: every bracket with its partner and the first two commas
// directly inside it, the contains( calls, and where skipped_stages
// occurs.
type exprScan struct {
	lower    string // the expression, ASCII letters lowered
	brackets []exprBracket
	calls    []int // the brackets that open a contains( call
	// stages are the offsets of "skipped_stages", in order.
	stages []int
}

// exprBracket is one '(' or '[' of an expression.
type exprBracket struct {
	open, close int    // offsets; close is -1 when nothing closes it
	commas      [2]int // the first two commas directly inside, -1 when fewer
	// paren is the '(' group around this bracket (-1 at the top): the
	// groups whose ! applies to what is inside them. negated is the
	// parity of the ! on this group and every group around it; inCall
	// says one of them is a function's argument list.
	paren           int
	negated, inCall bool
	// after is the offset of the first byte after the close that is
	// not a blank or another ')', -1 before it is known.
	after int
}

func scanExpr(expr string) *exprScan {
	lower := asciiLower(expr)
	sc := &exprScan{lower: lower}
	// stack holds the open brackets of either kind, which pair as
	// GitHub's parser pairs them; parens only the '(' ones.
	var stack, parens []int
	// pending are the brackets closed since the last byte that is not a
	// blank or a ')': the byte that ends the run is what follows them.
	var pending []int
	for i := 0; i < len(lower); i++ {
		c := lower[i]
		if len(pending) > 0 && !strings.ContainsRune(") \t\r\n", rune(c)) {
			for _, b := range pending {
				sc.brackets[b].after = i
			}
			pending = pending[:0]
		}
		switch c {
		case '\'':
			k := strings.IndexByte(lower[i+1:], '\'')
			if k < 0 {
				return sc // the rest is an unterminated string
			}
			i += k + 1
		case '(', '[':
			b := exprBracket{open: i, close: -1, commas: [2]int{-1, -1}, paren: -1, after: -1}
			if len(parens) > 0 {
				b.paren = parens[len(parens)-1]
			}
			if c == '(' {
				b.negated = bangsBefore(lower, i)%2 == 1
				b.inCall = i > 0 && isIdentByte(lower[i-1])
				if b.paren >= 0 {
					up := &sc.brackets[b.paren]
					b.negated = b.negated != up.negated
					b.inCall = b.inCall || up.inCall
				}
				if name := i - len("contains"); name >= 0 && lower[name:i] == "contains" && (name == 0 || !isIdentByte(lower[name-1])) {
					sc.calls = append(sc.calls, len(sc.brackets))
				}
				parens = append(parens, len(sc.brackets))
			}
			stack = append(stack, len(sc.brackets))
			sc.brackets = append(sc.brackets, b)
		case ')', ']':
			if len(stack) == 0 {
				continue
			}
			b := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			sc.brackets[b].close = i
			if sc.brackets[b].open < len(lower) && lower[sc.brackets[b].open] == '(' {
				parens = parens[:len(parens)-1]
			}
			pending = append(pending, b)
		case ',':
			if len(stack) > 0 {
				cm := &sc.brackets[stack[len(stack)-1]].commas
				if cm[0] < 0 {
					cm[0] = i
				} else if cm[1] < 0 {
					cm[1] = i
				}
			}
		case 's':
			if strings.HasPrefix(expr[i:], "skipped_stages") {
				sc.stages = append(sc.stages, i)
			}
		}
	}
	for _, b := range pending {
		sc.brackets[b].after = len(lower)
	}
	return sc
}

// holds reports whether the expression's text between offsets lo and hi
// holds word, which must be "skipped_stages" (the only word scanExpr
// records): an occurrence that starts at lo or later and ends by hi.
func (sc *exprScan) holds(lo, hi int, word string) bool {
	k, _ := slices.BinarySearch(sc.stages, lo)
	return k < len(sc.stages) && sc.stages[k]+len(word) <= hi
}

// negation reads how the call opened by bracket b is used: negated by the
// `!`s before its name and before each bracket group around it, and by a
// comparison with false after it (or after the groups it closes). unread
// is true when the call is an argument of another function.
func (sc *exprScan) negation(b int) (negated, unread bool) {
	br := &sc.brackets[b]
	name := br.open - len("contains")
	negated = bangsBefore(sc.lower, name)%2 == 1
	if br.paren >= 0 {
		up := &sc.brackets[br.paren]
		if up.inCall {
			return false, true
		}
		negated = negated != up.negated
	}
	if br.after >= 0 && comparesWith(sc.lower[br.after:]) {
		negated = !negated
	}
	return negated, false
}

// comparesWith reports whether s starts with a comparison that negates
// what it follows: == false, or != true.
func comparesWith(s string) bool {
	for _, cmp := range [...][2]string{{"==", "false"}, {"!=", "true"}} {
		rest, ok := strings.CutPrefix(s, cmp[0])
		if !ok {
			continue
		}
		rest = strings.TrimLeft(rest, " \t\r\n")
		if strings.HasPrefix(rest, cmp[1]) && (len(rest) == len(cmp[1]) || !isIdentByte(rest[len(cmp[1])])) {
			return true
		}
	}
	return false
}

// bangsBefore counts the `!` operators right before s[i], blanks between.
func bangsBefore(s string, i int) int {
	n := 0
	for i--; i >= 0; i-- {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
		case '!':
			n++
		default:
			return n
		}
	}
	return n
}

// isIdentByte reports whether b may end a name in a GitHub expression, so
// that `xcontains(` is not read as a call of contains.
func isIdentByte(b byte) bool {
	return b == '_' || b == '-' || b == '.' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9'
}

// asciiLower lowers ASCII letters only, keeping every byte offset: the
// expression's function names are case-insensitive, its strings are not.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// stringLiteral reads a GitHub expression string literal: '…' with ”
// for a quote.
func stringLiteral(s string) (string, bool) {
	if len(s) < 2 || s[0] != '\'' || s[len(s)-1] != '\'' {
		return "", false
	}
	return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true
}
