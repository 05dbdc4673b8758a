package pyfmt

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPyJSON_RoundTripsLikePython(t *testing.T) {
	tests := []struct{ in, want string }{
		{`[1E400, -0, 0.10, 1e2, 123456789012345678901234567890, "\ud800x", {"a":1,"b":2,"a":3}]`,
			`[Infinity, 0, 0.1, 100.0, 123456789012345678901234567890, "\ud800x", {"a": 3, "b": 2}]`},
		// Around int64's range, read without and with a big.Int.
		{`[9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854775809, -0]`,
			`[9223372036854775807, 9223372036854775808, -9223372036854775808, -9223372036854775809, 0]`},
		{"{\"metric\": \"k\u00e9\U0001F600\\\"\\\\\\u0001\u007f\", \"series\": [[2, 1e16], [3, 1e-05], [null, NaN], [-0, 1.0], [5, -0.0]]}",
			`{"metric": "k\u00e9\ud83d\ude00\"\\\u0001\u007f", "series": [[2, 1e+16], [3, 1e-05], [null, NaN], [0, 1.0], [5, -0.0]]}`},
	}
	// Python reads an integer of up to 4300 digits, sign apart.
	big := "-" + strings.Repeat("9", 4300)
	tests = append(tests, struct{ in, want string }{"[" + big + "]", "[" + big + "]"})
	for _, tt := range tests {
		v, err := ParseJSON([]byte(tt.in))
		require.NoError(t, err, tt.in)
		assert.Equal(t, tt.want, string(v.AppendJSON(nil)))
	}
}

func TestMergeRecords_Errors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"not JSON", "{\"metric\": \"a\", \"series\": [[1, 2]]\n", "r.jsonl:1: invalid JSON"},
		{"no series", "\n{\"metric\": \"a\"}\n", "r.jsonl:2: a record needs"},
		{"series not a list", "{\"metric\": \"a\", \"series\": 3}\n", "r.jsonl:1: \"series\" is not a list"},
		{"steps that cannot be ordered", "{\"metric\": \"a\", \"series\": [[1, 2], [\"x\", 3]]}\n", "cannot be ordered"},
		{"not UTF-8", "{\"metric\": \"\xff\", \"series\": []}\n", "r.jsonl: not UTF-8"},
		// Python's int() refuses more than 4300 digits, so json.loads does.
		{"an integer past Python's digit limit", "{\"metric\": \"a\", \"series\": [[-" + strings.Repeat("7", 4301) + ", 1]]}\n",
			"r.jsonl:1: invalid JSON at column 29: integer exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := MergeRecords([]RecordFile{{Name: "r.jsonl", Data: []byte(tt.text)}})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestJSONStringListCompact_WritesLikeJSONDumps(t *testing.T) {
	// json.dumps(["a","é","😀","\ud800","x\"y\\z\x7f\b"], separators=(",", ":"))
	got := JSONStringListCompact([]string{"a", "é", "😀", "\xed\xa0\x80", "x\"y\\z\x7f\b"})
	assert.Equal(t, `["a","\u00e9","\ud83d\ude00","\ud800","x\"y\\z\u007f\b"]`, got)
	assert.Equal(t, "[]", JSONStringListCompact(nil))
}

func TestJSONStringListCompact_EscapesControlsAndNonASCII(t *testing.T) {
	assert.Equal(t, `[]`, JSONStringListCompact(nil))
	assert.Equal(t, `["a","b"]`, JSONStringListCompact([]string{"a", "b"}))
	assert.Equal(t, `["<&>","\"\\","\n\t\u0001\u007f","\u00e9\ud83d\ude00"]`,
		JSONStringListCompact([]string{"<&>", `"\`, "\n\t\x01\x7f", "é😀"}))
}

// Steps sort as Python's sort with the key (step is None, step) sorts them:
// numbers of every kind by value, exactly past 2**53, equal steps in their
// first order, null steps last. The output was written by Python.
func TestMergeRecords_SortsStepsLikePython(t *testing.T) {
	in := `{"metric": "m", "series": [[9007199254740993, "a"], [9007199254740992.0, "b"], [true, "c"], [1, "d"], [null, "e"], [0.5, "f"], [-1000000000000000000000000000000, "g"], [9007199254740992, "h"]]}` + "\n"
	got, err := MergeRecords([]RecordFile{{Name: "r.jsonl", Data: []byte(in)}})
	require.NoError(t, err)
	assert.Equal(t, `{"metric": "m", "series": [[-1000000000000000000000000000000, "g"], [0.5, "f"], [true, "c"], [1, "d"], [9007199254740992.0, "b"], [9007199254740992, "h"], [9007199254740993, "a"], [null, "e"]]}`+"\n", string(got))
}

// A long series sorts in O(n log n) comparisons: two hundred thousand points, in
// reverse, come out in order.
func TestMergeRecords_SortsALongSeries(t *testing.T) {
	const n = 200000
	var b strings.Builder
	b.WriteString(`{"metric": "m", "series": [`)
	for i := n; i > 0; i-- {
		fmt.Fprintf(&b, "[%d, 0.5], ", i)
	}
	b.WriteString("[null, 1]]}\n")
	got, err := MergeRecords([]RecordFile{{Name: "r.jsonl", Data: []byte(b.String())}})
	require.NoError(t, err)
	want := `{"metric": "m", "series": [[1, 0.5], [2, 0.5], `
	require.True(t, strings.HasPrefix(string(got), want), "%.80s", got)
	assert.True(t, strings.HasSuffix(string(got), fmt.Sprintf("[%d, 0.5], [null, 1]]}\n", n)))
}
