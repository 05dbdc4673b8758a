package textfmt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// How text from outside miles-ci (a test file's path, a diff path, a
// report's field, a database row, an error) is written for a terminal or a
// CI log: by the one function of this file its output needs, each
// escaping what the one before it does, and more, in one spelling (`\n`,
// `\r`, `\t`, then \xNN, \uNNNN or \UNNNNNNNN, as Go and Python write
// them):
//
//   - OneLine, a log line: CR and LF, so that a name never ends its line
//     or starts one of its own (the Python runner's spelling);
//   - OneColumn, a cell of the suites tables: also a tab, a vertical tab
//     and a form feed;
//   - Term, an answer's text: also every control and format character,
//     so that none moves the cursor, changes colours or reorders text;
//   - Cell, a cell of a table of data (Layout's default): Term, Go-quoted
//     when it would start a workflow command, cut to CellWidth;
//   - LineStart, the name that begins an explanation's line: Go-quoted
//     when it holds a character that is not printable or would start a
//     workflow command.
//
// A step summary's text is Markdown's (markdown.go), a workflow command's
// message or property ghactions.EscapeData's or EscapeProperty's.

// lineBreaks and columnBreaks spell CR, LF and tab as two characters,
// a vertical tab and a form feed (which a terminal moves down a line for)
// as Term does.
var (
	lineBreaks   = strings.NewReplacer("\r", `\r`, "\n", `\n`)
	columnBreaks = strings.NewReplacer("\t", `\t`, "\r", `\r`, "\n", `\n`, "\v", `\x0b`, "\f", `\x0c`)
)

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

// OneColumn returns s as OneLine does, a tab as `\t`, a vertical tab and
// a form feed as `\x0b` and `\x0c`: on one line and in one column of a
// table.
func OneColumn(s string) string {
	if strings.IndexAny(s, "\t\v\f\r\n") < 0 {
		return s
	}
	return columnBreaks.Replace(s)
}

// Term returns text from outside miles-ci (a report's field, a database
// row, a GPU tool's output) as a terminal shows it as text: on one line
// (OneLine), in one column (a tab as `\t`), and with no control or format
// character left to move the cursor, change colours or reorder what
// follows (each written as \xNN or \uNNNN).
func Term(s string) string {
	s = OneColumn(s)
	if !strings.ContainsFunc(s, unprintable) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
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

// Printable reports whether every character of s prints as itself
// (unicode.IsPrint: a letter, mark, number, punctuation, symbol or the
// ASCII space).
func Printable(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return !unicode.IsPrint(r) })
}

// LineStart shows text from outside miles-ci where it begins a line of an
// explanation (a path of the PR's diff, a label): as is, or Go-quoted when
// it holds a character that is not printable (a line break among them) or
// the runner would read the line as a workflow command, so that it can
// never end its line or start a command.
func LineStart(s string) string {
	if !Printable(s) || StartsCommand(s) {
		return strconv.Quote(s)
	}
	return s
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
