// Package textfmt holds the small text layouts every miles-ci message
// shares: the one table printer (Layout: tables, and the aligned
// two-column lines of explanations), counted nouns and shell words, so
// every list and count reads the same; and how text from outside miles-ci
// is shown inert in them, one function per output (Term, Cell and OneLine
// for a terminal or log, Markdown and MarkdownCode for a step summary).
package textfmt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
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

// Term returns text from outside miles-ci (a report's field, a database
// row, a GPU tool's output) as a terminal shows it as text: on one line
// (OneLine), in one column (a tab as `\t`), and with no control or format
// character left to move the cursor, change colours or reorder what
// follows (each written as \xNN or \uNNNN).
func Term(s string) string {
	s = OneLine(s)
	if !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && unprintable(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff && unprintable(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case unprintable(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unprintable is a control character (C0, DEL, C1) or a format character
// (a bidirectional override among them).
func unprintable(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }

// StartsCommand reports whether the GitHub Actions runner would read a
// log line that begins with s as a workflow command: after the blanks it
// skips at the start of a line, s begins with "::". Text from outside
// miles-ci that begins a line (a label, a path, a table's first cell)
// must not, or it could write an annotation, mask a value or end a log
// group.
func StartsCommand(s string) bool {
	return strings.HasPrefix(strings.TrimLeftFunc(s, unicode.IsSpace), "::")
}

// CellWidth is the most characters a table cell shows (Cell): a name
// from a report or a database row, however long, costs the table at most
// this width (--json keeps the whole value).
const CellWidth = 120

// Cell is what a table shows of text from outside miles-ci: Term, or
// Go-quoted when it would start a workflow command, cut to CellWidth
// characters with "…" after a cut.
func Cell(s string) string {
	if StartsCommand(s) {
		return Cut(strconv.Quote(s), CellWidth)
	}
	return Cut(Term(s), CellWidth)
}

// Cut is s when it has at most n characters, else its first n followed by
// "…".
func Cut(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
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
