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

// lineBreaks writes CR and LF as the two characters `\r` and `\n`, as the
// Python runner writes a file name in its per-attempt summary line.
var lineBreaks = strings.NewReplacer("\r", `\r`, "\n", `\n`)

// OneLine returns s as a log line shows a name or other text that comes
// from outside miles-ci (a test file's path, a diff path, an error): CR
// and LF written as `\r` and `\n`, so that s never ends its line and
// never starts one of its own, such as a forged GitHub workflow command
// ("::error ..."). Nothing else changes: every ordinary name prints as is.
func OneLine(s string) string {
	if strings.IndexAny(s, "\r\n") < 0 {
		return s
	}
	return lineBreaks.Replace(s)
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
