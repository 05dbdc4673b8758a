package pyfmt

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRepr_MatchesPython(t *testing.T) {
	cases := map[string]string{
		"abc":        `'abc'`,
		"it's":       `"it's"`,
		`say "hi"`:   `'say "hi"'`,
		`it's "x"`:   `'it\'s "x"'`,
		"a\\b":       `'a\\b'`,
		"t\tn\nr\r":  `'t\tn\nr\r'`,
		"\x00\x7f":   `'\x00\x7f'`,
		"é漢":         `'é漢'`,
		"\u00a0":     `'\xa0'`,
		"\u200b":     `'\u200b'`,
		"\U000e0001": `'\U000e0001'`,
		"":           `''`,
	}
	for in, want := range cases {
		assert.Equal(t, want, Repr(in), "Repr(%q)", in)
	}
}

func TestReprList_JoinsWithCommaSpace(t *testing.T) {
	assert.Equal(t, "[]", ReprList(nil))
	assert.Equal(t, "['a', 'b']", ReprList([]string{"a", "b"}))
}

func TestFloat_MatchesPythonRepr(t *testing.T) {
	cases := map[float64]string{
		1: "1.0", 0.5: "0.5", 1800: "1800.0", 1e16: "1e+16", 1.5e-5: "1.5e-05",
		123456789012345.6: "123456789012345.6", 0.0001: "0.0001", -2.5: "-2.5", 1e300: "1e+300",
	}
	for in, want := range cases {
		assert.Equal(t, want, Float(in), "Float(%v)", in)
	}
}

func TestRepr_LoneSurrogateInWTF8(t *testing.T) {
	assert.Equal(t, `'a\ud800b'`, Repr("a\xed\xa0\x80b"))
	assert.Equal(t, `'\udfff'`, Repr("\xed\xbf\xbf"))
}

func TestAppendJSONString_MatchesEncodingJSONWithoutHTMLEscaping(t *testing.T) {
	cases := map[string]string{
		"plain":              `"plain"`,
		"<a&b>":              `"<a&b>"`,
		"q\"b\\s\n\r\t\x01":  `"q\"b\\s\n\r\t\u0001"`,
		"é漢\u2028":           `"é漢\u2028"`,
		"bad\xff":            `"bad\ufffd"`,
		"sur\xed\xa0\x80ate": `"sur\ud800ate"`,
	}
	for in, want := range cases {
		assert.Equal(t, want, string(AppendJSONString(nil, in)), "%q", in)
	}
}

func TestAppendJSONFloat_InfinityIsAValidNumberThatReadsBackInfinite(t *testing.T) {
	cases := map[float64]string{
		1: "1", 1.5: "1.5", 1e21: "1e+21", 1e-7: "1e-7", 123456789: "123456789",
		math.Inf(1): "1e999", math.Inf(-1): "-1e999", math.NaN(): "null",
	}
	for in, want := range cases {
		assert.Equal(t, want, string(AppendJSONFloat(nil, in)), "%v", in)
	}
}

func TestAppendJSONFloat_FiniteValuesAsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		f := math.Float64frombits(rng.Uint64())
		if math.IsInf(f, 0) || math.IsNaN(f) {
			continue
		}
		want, err := json.Marshal(f)
		require.NoError(t, err)
		require.Equal(t, string(want), string(AppendJSONFloat(nil, f)), "%v", f)
	}
}

func TestAppendJSONStringASCII_MatchesPythonJSONDumps(t *testing.T) {
	// Expected values printed by Python 3.11's json.dumps(s).
	cases := map[string]string{
		"plain":                     `"plain"`,
		"<a&b>":                     `"<a&b>"`,
		"q\"b\\s\n\r\t\b\f\x01\x7f": `"q\"b\\s\n\r\t\b\f\u0001\u007f"`,
		"é漢\u2028":                  `"\u00e9\u6f22\u2028"`,
		"\U0001F600":                `"\ud83d\ude00"`,
		"a\xed\xa0\x80b":            `"a\ud800b"`,
		`["h100", "8gpu"]`:          `"[\"h100\", \"8gpu\"]"`,
	}
	for in, want := range cases {
		assert.Equal(t, want, string(AppendJSONStringASCII(nil, in)), "%q", in)
	}
}

func TestStreamText_EscapesWhatPythonsStderrBackslashReplaces(t *testing.T) {
	assert.Equal(t, "plain é漢\n", StreamText("plain é漢\n"))
	assert.Equal(t, `tests/x\udcff.py`, StreamText("tests/x\xff.py"))
	assert.Equal(t, `a\ud800b`, StreamText("a\xed\xa0\x80b"))
}
