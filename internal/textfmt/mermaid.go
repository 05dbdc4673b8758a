package textfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MermaidNameMax bounds the runes of a name MermaidName writes, the
// quotes and the "..." of a cut name included.
const MermaidNameMax = 100

// MermaidName returns s as the name of a task in a Mermaid gantt chart of a
// step summary (a bar of view's timeline), for text from outside miles-ci
// such as a test file's path. Mermaid reads a chart line by line, and a
// task line is its name, a ':' and the task's data; a few characters of a
// name would end it early, turn the rest of the line into a comment or
// start Mermaid syntax of their own, and a name that begins with one of
// its words (section, title, click, gantt, a date) is read as that
// statement. So the name is written
//
//   - in double quotes: no name begins with a word of Mermaid's, or with
//     '%', '#' or a digit;
//   - with every rune that is not a letter, a digit, a space or one of
//     / . _ - + = , ( ) [ ] @ ! ~ ' written as '?': the ':' that ends a
//     name, the '#' and ';' that end a task's data, the '%' of a comment
//     or a directive, line breaks, backticks (which would end the
//     Markdown code block holding the chart), < > & and quotes (HTML and
//     the quotes around the name), and control and format characters,
//     which would reorder or hide the text;
//   - cut to MermaidNameMax runes, keeping its end (a path's file name)
//     after "...".
//
// Every ordinary path prints as it is, in its quotes.
func MermaidName(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	const room = MermaidNameMax - 2
	if n := utf8.RuneCountInString(s); n > room {
		b.WriteString("...")
		for range n - (room - 3) {
			_, size := utf8.DecodeRuneInString(s)
			s = s[size:]
		}
	}
	for _, r := range s {
		if mermaidPlain(r) {
			b.WriteRune(r)
		} else {
			b.WriteByte('?')
		}
	}
	b.WriteByte('"')
	return b.String()
}

// mermaidPlain reports whether r means nothing to Mermaid's gantt chart
// or to the Markdown around it.
func mermaidPlain(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" /._-+=,()[]@!~'", r)
}
