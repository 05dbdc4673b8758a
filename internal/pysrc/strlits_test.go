package pysrc

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStringLits_GivesEachLiteralItsValueAndBody(t *testing.T) {
	src := []byte("X = {\"a\": ['b', r'c\\d']}  # 'not a literal'\n" +
		"def f():\n    return \"x\" 'y', f\"{z}w\", b'q', '''t\n'''\n")
	lits, err := StringLits(src)
	require.NoError(t, err)
	type got struct {
		Line          int
		Value, Body   string
		Tokens        int
		Format, Bytes bool
	}
	var out []got
	for _, l := range lits {
		body := ""
		if l.Tokens == 1 {
			body = string(src[l.BodyStart:l.BodyEnd])
		}
		out = append(out, got{l.Line, l.Value, body, l.Tokens, l.Format, l.Bytes})
	}
	assert.Equal(t, []got{
		{1, "a", "a", 1, false, false},
		{1, "b", "b", 1, false, false},
		{1, `c\d`, `c\d`, 1, false, false},
		{3, "xy", "", 2, false, false},
		{3, "", "{z}w", 1, true, false},
		{3, "q", "q", 1, false, true},
		{3, "t\n", "t\n", 1, false, false},
	}, out)
}

func TestStringLits_RefusesWhatPythonCannotTokenize(t *testing.T) {
	_, err := StringLits([]byte("x = 'open\n"))
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Line)
}
