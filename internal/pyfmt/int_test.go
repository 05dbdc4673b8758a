package pyfmt

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestParseInt_ReadsIntLikePython(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"-7", -7, true},
		{"+3", 3, true},
		{" 2 ", 2, true},
		{"\t5\n", 5, true},
		{"007", 7, true},
		{"1_000", 1000, true},
		{"١٢", 12, true}, // Arabic-Indic digits
		{"𝟙", 1, true},   // MATHEMATICAL DOUBLE-STRUCK DIGIT ONE
		{"99999999999999999999999", math.MaxInt64, true},
		{"-99999999999999999999999", math.MinInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"", 0, false},
		{"-", 0, false},
		{"1.0", 0, false},
		{"_1", 0, false},
		{"1_", 0, false},
		{"1__0", 0, false},
		{"- 1", 0, false},
		{"1 2", 0, false},
		{"0x10", 0, false},
		{"two", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseInt(tt.in)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestIntText_IsPythonsStrOfInt(t *testing.T) {
	for in, want := range map[string]string{
		"0": "0", "-0": "0", "007": "7", " 1_000 ": "1000", "+5": "5", "١٢": "12",
		"-9999999999999999999": "-9999999999999999999", "99999999999999999999": "99999999999999999999",
		"1.5": "", "": "",
	} {
		assert.Equal(t, want, IntText(in), "%q", in)
	}
}
