// Package textfmt holds the small text layouts every miles-ci message
// shares: the aligned two-column lines of explanations (a name, then why)
// and counted nouns, so every list and count reads the same.
package textfmt

import (
	"fmt"
	"strconv"
	"strings"
)

// Row is one line: Name in the aligned first column, Text after it.
type Row struct{ Name, Text string }

// Columns writes each row as indent, the name padded to the widest one,
// two spaces and the text, ending in a newline.
func Columns(rows []Row, indent string) string {
	width := 0
	for _, r := range rows {
		width = max(width, len(r.Name))
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%s%-*s  %s\n", indent, width, r.Name, r.Text)
	}
	return b.String()
}

// CountNoun writes a count with its noun, plural unless n is 1: "1 file",
// "3 files"; the plural is noun+"s" unless given ("entry", "entries").
func CountNoun(n int, noun string, plural ...string) string {
	if n == 1 {
		return "1 " + noun
	}
	if len(plural) > 0 {
		return strconv.Itoa(n) + " " + plural[0]
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Cut is s when it has at most n characters, else its first n followed by
// "…".
func Cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
