// Package textfmt holds the small text layouts every miles-ci message
// shares: the one table printer (Layout: tables, and the aligned
// two-column lines of explanations), counted nouns and shell words, so
// every list and count reads the same; and how text from outside miles-ci
// is shown inert in them, in one file per output: terminal.go for a
// terminal or a log (OneLine, OneColumn, Term, Cell, LineStart),
// markdown.go for a step summary (Markdown, MarkdownCode), mermaid.go for
// a chart in one (MermaidName).
package textfmt

import (
	"strconv"
	"strings"
)

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

// ShellQuote writes s as one word of a POSIX shell command line: as it is
// when no character of it means anything to a shell, else in single
// quotes (a quote inside as '\”).
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_@%+=:,./-", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellJoin writes words as a shell command line, each quoted as
// ShellQuote quotes it.
func ShellJoin(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = ShellQuote(w)
	}
	return strings.Join(quoted, " ")
}
