package pysrc

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestReadNames_ReadsTheElementsOfTheCollectionAndTheirLines(t *testing.T) {
	const src = `from x import y

# the stages a pull request may skip
PR_GPU_STAGES = frozenset(
    {
        "stage-b",
        'stage-' "c",  # concatenated
        prefix + "d",
    }
)
`
	n, err := ReadNames([]byte(src), "PR_GPU_STAGES")
	require.NoError(t, err)
	assert.Equal(t, 4, n.Line)
	var got []string
	var lines []int
	for _, it := range n.Items {
		got = append(got, it.Value.Const.Str+"/"+it.Value.Node)
		lines = append(lines, it.Line)
	}
	assert.Equal(t, []string{"stage-b/Constant", "stage-c/Constant", "/BinOp"}, got)
	assert.Equal(t, []int{6, 7, 8}, lines)
	assert.Equal(t, `"stage-b"`, src[n.Items[0].Value.Start:n.Items[0].Value.End], "the literal's place in the source")
	assert.Empty(t, n.Changed)
}

func TestReadNames_ShapesAndPlaces(t *testing.T) {
	tests := []struct {
		name, src string
		items     []string // the strings read, when the collection is read
		changed   []int
		errLine   int    // a *DictError at this line (0: missing), when errKind is "dict"
		errKind   string // "", "dict" or "syntax"
	}{
		{name: "a set", src: "X = {'a', 'b'}\n", items: []string{"a", "b"}},
		{name: "a list", src: "X = ['a']\n", items: []string{"a"}},
		{name: "a tuple", src: "X = ('a',)\n", items: []string{"a"}},
		{name: "an empty tuple", src: "X = ()\n", items: nil},
		{name: "set() of a list", src: "X = set(['a', 'b',],)\n", items: []string{"a", "b"}},
		{name: "frozenset()", src: "X = frozenset()\n", items: nil},
		{name: "annotated", src: "X: frozenset[str] = frozenset({'a'})\n", items: []string{"a"}},
		{name: "the last assignment wins", src: "X = {'a'}\nX = {'b'}\n", items: []string{"b"}},
		{name: "changed after", src: "X = {'a'}\nX |= {'b'}\n", items: []string{"a"}, changed: []int{2}},
		{name: "parentheses around one", src: "X = ('a')\n", errKind: "dict", errLine: 1},
		{name: "a dict", src: "X = {'a': 1}\n", errKind: "dict", errLine: 1},
		{name: "empty braces", src: "X = {}\n", errKind: "dict", errLine: 1},
		{name: "a comprehension", src: "X = {s for s in y}\n", errKind: "dict", errLine: 1},
		{name: "another call", src: "X = sorted({'a'})\n", errKind: "dict", errLine: 1},
		{name: "an operator after", src: "X = {'a'} | Y\n", errKind: "dict", errLine: 1},
		{name: "missing", src: "Y = {'a'}\n", errKind: "dict"},
		{name: "unclosed", src: "X = {'a',\n", errKind: "syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := ReadNames([]byte(tt.src), "X")
			var (
				de *DictError
				se *SyntaxError
			)
			switch tt.errKind {
			case "dict":
				require.True(t, errors.As(err, &de), "%v", err)
				assert.Equal(t, tt.errLine, de.Line)
				return
			case "syntax":
				require.True(t, errors.As(err, &se), "%v", err)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, it := range n.Items {
				got = append(got, it.Value.Const.Str)
			}
			assert.Equal(t, tt.items, got)
			assert.Equal(t, tt.changed, n.Changed)
		})
	}
}
