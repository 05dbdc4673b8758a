package pyfmt

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
