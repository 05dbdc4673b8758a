package textfmt

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestColumns_AlignsOnTheWidestName(t *testing.T) {
	columns := Layout{Indent: "  ", Left: 2, Show: AsIs, ByteWidths: true}
	assert.Equal(t, "  a    one\n  bbb  two\n", columns.Render([][]string{{"a", "one"}, {"bbb", "two"}}))
	assert.Equal(t, "", columns.Render(nil))
}

func TestOneLine_WritesLineBreaksAsTwoCharacters(t *testing.T) {
	assert.Equal(t, `weird\nname.py`, OneLine("weird\nname.py"))
	assert.Equal(t, `weird\rname.py`, OneLine("weird\rname.py"))
	assert.Equal(t, `a\r\n::error::x`, OneLine("a\r\n::error::x"))
	// Only the line breaks: '%', tabs and other text print as they are.
	assert.Equal(t, "100%name\t\x1b.py", OneLine("100%name\t\x1b.py"))
}

func TestShellJoin_QuotesWhatAShellWouldRead(t *testing.T) {
	assert.Equal(t, "miles-ci --root ./a/b timings apply --threshold 10%,5s t.json", ShellJoin([]string{"miles-ci", "--root", "./a/b", "timings", "apply", "--threshold", "10%,5s", "t.json"}))
	assert.Equal(t, `'old timings.json' '' 'it'\''s' '$HOME' 'a*'`, ShellJoin([]string{"old timings.json", "", "it's", "$HOME", "a*"}))
}

func TestTerm_LeavesNoControlCharacter(t *testing.T) {
	for in, want := range map[string]string{
		"novita-host2":       "novita-host2",
		"ünïcödé-h100":       "ünïcödé-h100",
		"a\nb\rc":            `a\nb\rc`,
		"a\tb":               `a\tb`,
		"\x1b[31mred\x1b[0m": `\x1b[31mred\x1b[0m`,
		"\u009b2J":           `\x9b2J`,
		"abc\u202edef":       `abc\u202edef`,
		"x\U000e0041":        `x\U000e0041`,
	} {
		assert.Equal(t, want, Term(in), "%q", in)
	}
}

func TestCell_IsInertAndBounded(t *testing.T) {
	assert.Equal(t, "tests/a.py", Cell("tests/a.py"))
	assert.Equal(t, `"::error title=x::y"`, Cell("::error title=x::y"))
	assert.Equal(t, `" \t::warning::x"`, Cell(" \t::warning::x"), "blanks the runner skips")
	assert.Equal(t, `a\n::x\x1b[2J`, Cell("a\n::x\x1b[2J"))
	long := strings.Repeat("é", 3*CellWidth)
	assert.Equal(t, strings.Repeat("é", CellWidth)+"…", Cell(long))
}

func TestTable_BoundsEveryCellAndAlignsByCharacters(t *testing.T) {
	long := strings.Repeat("x", 200_000)
	out := Table([][]string{{"FILE", "NOTE", "RUNS"}, {long, "é", "1"}, {"b.py", "::x", "12"}}, 2)
	assert.Equal(t, "FILE"+strings.Repeat(" ", CellWidth-3)+"  NOTE   RUNS\n"+
		strings.Repeat("x", CellWidth)+"…  é         1\n"+
		"b.py"+strings.Repeat(" ", CellWidth-3)+`  "::x"    12`+"\n", out)
	// A left-aligned last column is not padded.
	assert.Equal(t, "a    bb\nccc  d\n", Table([][]string{{"a", "bb"}, {"ccc", "d"}}, 2))
}

// Each terminal escaper escapes what the one before it does, and more,
// in one spelling; an ordinary name is left as it is by all of them.
func TestTerminalEscapers_EachEscapesMoreInOneSpelling(t *testing.T) {
	for _, c := range []struct{ in, oneLine, oneColumn, term, lineStart string }{
		{"tests/ünï.py", "tests/ünï.py", "tests/ünï.py", "tests/ünï.py", "tests/ünï.py"},
		{"a\r\nb", `a\r\nb`, `a\r\nb`, `a\r\nb`, `"a\r\nb"`},
		{"a\tb", "a\tb", `a\tb`, `a\tb`, `"a\tb"`},
		{"a\vb\fc", "a\vb\fc", `a\x0bb\x0cc`, `a\x0bb\x0cc`, `"a\vb\fc"`},
		{"a\x1b[2J\x07", "a\x1b[2J\x07", "a\x1b[2J\x07", `a\x1b[2J\x07`, `"a\x1b[2J\a"`},
		{"::error::x", "::error::x", "::error::x", "::error::x", `"::error::x"`},
		{"a\u00a0b", "a\u00a0b", "a\u00a0b", "a\u00a0b", `"a\u00a0b"`},
	} {
		assert.Equal(t, c.oneLine, OneLine(c.in), "OneLine %q", c.in)
		assert.Equal(t, c.oneColumn, OneColumn(c.in), "OneColumn %q", c.in)
		assert.Equal(t, c.term, Term(c.in), "Term %q", c.in)
		assert.Equal(t, c.lineStart, LineStart(c.in), "LineStart %q", c.in)
	}
}
