package pyfmt

import (
	"testing"
)

// FuzzParseJSON checks that the metric-record reader never panics or
// hangs on what a training process might leave behind, and that whatever it
// accepts it writes back in a form it reads again to the same text.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{
		`{"metric": "loss", "series": [[1, 0.5], [null, 2]]}`,
		`[NaN, Infinity, -Infinity, 1e400, 123456789012345678901234567890]`,
		`{"a": 1, "a": 2, "b": "\ud800\u00e9"}`,
		`[[[[[[[[[[]]]]]]]]]]`, `"unterminated`, `{"a" 1}`, `-`, `1.`, `01`, "\"\\x\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ParseJSON(data)
		if err != nil {
			return
		}
		once := v.AppendJSON(nil)
		again, err := ParseJSON(once)
		if err != nil {
			t.Fatalf("re-reading our own output %q failed: %v", once, err)
		}
		if twice := again.AppendJSON(nil); string(twice) != string(once) {
			t.Fatalf("not stable: %q then %q", once, twice)
		}
	})
}
