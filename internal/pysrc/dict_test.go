package pysrc

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suitesSrc is a dict of the run_suite.py form: enum keys, lists of
// suite names, comments among them.
const suitesSrc = `from enum import Enum


class HWBackend(Enum):
    CPU = "cpu"
    CUDA = "cuda"


SUITES = {
    HWBackend.CPU: ["unit-cpu"],
    HWBackend . CUDA: [
        # the fast one first
        "gpu-a",
        'gpu-' "b",
        prefix + "c",
    ],
}
`

func TestReadDict_ReadsKeysAsWrittenAndTheLineOfEveryElement(t *testing.T) {
	d, err := ReadDict([]byte(suitesSrc), "SUITES")
	require.NoError(t, err)
	assert.Equal(t, 9, d.Line)
	require.Len(t, d.Items, 2)
	cpu, cuda := d.Items[0], d.Items[1]
	assert.Equal(t, "HWBackend.CPU", cpu.KeyText)
	assert.Equal(t, "Attribute", cpu.Key.Node)
	assert.Equal(t, 10, cpu.Line)
	assert.Equal(t, []int{10}, cpu.ElemLines)
	assert.Equal(t, "HWBackend.CUDA", cuda.KeyText, "blanks between the tokens are not part of the key")
	assert.Equal(t, 11, cuda.Line)
	require.Equal(t, KindList, cuda.Value.Kind)
	var names []string
	for _, e := range cuda.Value.Elems {
		names = append(names, e.Const.Str+"/"+e.Node)
	}
	assert.Equal(t, []string{"gpu-a/Constant", "gpu-b/Constant", "/BinOp"}, names)
	assert.Equal(t, []int{13, 14, 15}, cuda.ElemLines)
	assert.Empty(t, d.Changed)
}

func TestReadDict_ShapesAndPlaces(t *testing.T) {
	tests := []struct {
		name, src string
		keys      []string // the keys read, when the dict is read
		changed   []int
		errLine   int    // a *DictError at this line (0: missing), when errKind is "dict"
		errKind   string // "", "dict" or "syntax"
	}{
		{name: "annotated", src: "X: dict[str, list[str]] = {'a': ['b']}\n", keys: []string{"'a'"}},
		{name: "empty", src: "X = {}\n", keys: nil},
		{name: "the last assignment wins", src: "X = {'a': []}\nX = {'b': []}\n", keys: []string{"'b'"}},
		{name: "an earlier bad one is forgotten", src: "X = f()\nX = {'b': []}\n", keys: []string{"'b'"}},
		{name: "after a semicolon", src: "y = 1; X = {'a': []}\n", keys: []string{"'a'"}},
		{name: "a repeated key is kept", src: "X = {'a': [], 'a': ['x']}\n", keys: []string{"'a'", "'a'"}},
		{name: "changed after", src: "X = {'a': []}\nX['a'].append('b')\nX |= {}\nprint(X)\n", keys: []string{"'a'"}, changed: []int{2, 3}},
		{name: "changed before is overwritten", src: "X.clear()\nX = {'a': []}\n", keys: []string{"'a'"}},
		{name: "indented is not module-level", src: "if y:\n    X = {'a': []}\n", errKind: "dict"},
		{name: "missing", src: "Y = {}\n", errKind: "dict"},
		{name: "a call", src: "X = dict(a=[])\n", errKind: "dict", errLine: 1},
		{name: "an operator after the literal", src: "X = {'a': []} | other\n", errKind: "dict", errLine: 1},
		{name: "a comprehension", src: "X = {k: [] for k in y}\n", errKind: "dict", errLine: 1},
		{name: "a set", src: "X = {\n  'a',\n}\n", errKind: "dict", errLine: 1},
		{name: "unpacking", src: "X = {\n  'a': [],\n  **Y,\n}\n", errKind: "dict", errLine: 3},
		{name: "unclosed", src: "X = {'a': [\n", errKind: "syntax"},
		{name: "a bad token elsewhere", src: "X = {'a': []}\ny = 017\n", errKind: "syntax"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ReadDict([]byte(tt.src), "X")
			switch tt.errKind {
			case "":
				require.NoError(t, err)
				var keys []string
				for _, it := range d.Items {
					keys = append(keys, it.KeyText)
				}
				assert.Equal(t, tt.keys, keys)
				assert.Equal(t, tt.changed, d.Changed)
			case "dict":
				var de *DictError
				require.True(t, errors.As(err, &de), "%v", err)
				assert.Equal(t, tt.errLine, de.Line)
			case "syntax":
				var se *SyntaxError
				assert.True(t, errors.As(err, &se), "%v", err)
			}
		})
	}
}
