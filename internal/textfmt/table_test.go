package textfmt

import (
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/stretchr/testify/assert"
)

// The one printer lays tables out as each of the three aligners it
// replaced did, byte for byte: text/tabwriter (the suites tables), the
// explanations' two-column lines (fmt's %-*s over a width in bytes) and
// the data tables (Cell, names left, numbers right).
func TestLayout_RendersAsTheAlignersItReplaced(t *testing.T) {
	tables := map[string][][]string{
		"empty":    nil,
		"one cell": {{"a"}},
		"ragged":   {{"SUITE", "RUNS ON", "N"}, {"stage-a", "", "12"}, {"b", "h100,h200", "3"}},
		"unicode":  {{"FILE", "NOTE"}, {"tests/ünï.py", "é"}, {"tests/a_very_long_name.py", "-"}},
		"escapes":  {{"tests/a\\tb.py", "x"}, {"c", "'it\\'s'"}},
		"blank":    {{"", ""}, {"a", ""}},
	}
	for name, rows := range tables {
		var b strings.Builder
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		tw.Flush()
		left := 0
		if len(rows) > 0 {
			left = len(rows[0])
		}
		assert.Equal(t, b.String(), Layout{Left: left, Show: AsIs}.Render(rows), "tabwriter: %s", name)

		b.Reset()
		width := 0
		for _, r := range rows {
			if len(r) == 2 {
				width = max(width, len(r[0]))
			}
		}
		pairs := [][]string{}
		for _, r := range rows {
			if len(r) == 2 {
				fmt.Fprintf(&b, "%s%-*s  %s\n", "  ", width, r[0], r[1])
				pairs = append(pairs, r)
			}
		}
		assert.Equal(t, b.String(), Layout{Indent: "  ", Left: 2, Show: AsIs, ByteWidths: true}.Render(pairs), "columns: %s", name)
	}
}

func TestLayout_AlignsNamesLeftAndNumbersRight(t *testing.T) {
	rows := [][]string{{"FILE", "SUITE", "RUNS"}, {"a.py", "s", "7"}, {"bb.py", "stage", "12"}}
	assert.Equal(t, "FILE   SUITE  RUNS\na.py   s         7\nbb.py  stage    12\n", Table(rows, 2))
	assert.Equal(t, "> FILE  SUITE  RUNS\n> a.py      s     7\n", Layout{Indent: "> ", Left: 1}.Render(rows[:2]))
}
