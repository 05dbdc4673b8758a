package textfmt

import (
	"strings"
	"unicode/utf8"
)

// Layout is how the one table printer, Render, lays rows of cells out in
// columns two spaces apart: every table miles-ci prints to a terminal
// (the history's and hosts' answers, the suites roster, an explanation's
// aligned name and reason) goes through it, so that they align alike.
type Layout struct {
	// Indent begins every line.
	Indent string
	// Left is how many columns, from the first, are left-aligned (names);
	// the others are right-aligned (numbers). A left-aligned last column is
	// not padded, so no line ends in blanks.
	Left int
	// Show is how a cell is shown: nil shows it as Cell does (inert and
	// bounded, for text from a report or a database row); AsIs keeps cells
	// a caller made inert itself.
	Show func(string) string
	// ByteWidths measures a column's width in bytes (padding still counts
	// characters), as the explanations' two-column lines always have: a
	// name that is not ASCII gets a few more blanks after it.
	ByteWidths bool
}

// AsIs is a Layout's Show for cells that need no escaping.
func AsIs(s string) string { return s }

// Table is Render of a table of data from outside miles-ci (every cell as
// Cell shows it), its first left columns left-aligned.
func Table(rows [][]string, left int) string { return Layout{Left: left}.Render(rows) }

// Render writes rows as l lays them out, each row a line ending in a
// newline: each cell as l.Show shows it, padded to its column's widest.
func (l Layout) Render(rows [][]string) string {
	show := l.Show
	if show == nil {
		show = Cell
	}
	width := utf8.RuneCountInString
	if l.ByteWidths {
		width = func(s string) int { return len(s) }
	}
	cells := make([][]string, len(rows))
	var widths []int
	for i, r := range rows {
		cells[i] = make([]string, len(r))
		for j, c := range r {
			cells[i][j] = show(c)
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], width(cells[i][j]))
		}
	}
	var b strings.Builder
	for _, r := range cells {
		b.WriteString(l.Indent)
		for j, c := range r {
			pad := strings.Repeat(" ", max(0, widths[j]-utf8.RuneCountInString(c)))
			last := j == len(r)-1
			switch {
			case j < l.Left && last:
				b.WriteString(c)
			case j < l.Left:
				b.WriteString(c + pad + "  ")
			default:
				b.WriteString(pad + c)
				if !last {
					b.WriteString("  ")
				}
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
