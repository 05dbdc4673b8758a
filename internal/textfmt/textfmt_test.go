package textfmt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestColumns_AlignsOnTheWidestName(t *testing.T) {
	assert.Equal(t, "  a    one\n  bbb  two\n", Columns([]Row{{"a", "one"}, {"bbb", "two"}}, "  "))
	assert.Equal(t, "", Columns(nil, "  "))
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
