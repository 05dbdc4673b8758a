// Package textfmt lays out the aligned two-column lines of miles-ci's
// explanations (a name, then why), so every list reads the same.
package textfmt

import (
	"fmt"
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
