package cli

import (
	"math"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func selectionFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	addSelectionFlags(fs, &selectionFlags{}, true)
	fs.Bool("list-only", false, "")
	fs.Bool("continue-on-error", false, "")
	fs.Bool("json", false, "")
	fs.String("config", "", "")
	fs.Int("auto-partition-id", 0, "")
	fs.Int("auto-partition-size", 0, "")
	fs.BoolP("help", "h", false, "")
	return fs
}

func TestNormalizeArgs_ReadsArgvLikeArgparse(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		want   []string
		extras []string
	}{
		{"values up to the next flag", []string{"--labels", "a", "b", "--list-only"}, []string{`--labels=["a","b"]`, "--list-only"}, nil},
		{"no values before a flag", []string{"--labels", "--list-only"}, []string{`--labels=[]`, "--list-only"}, nil},
		{"no values at the end", []string{"--hw", "cuda", "--labels"}, []string{"--hw=cuda", `--labels=[]`}, nil},
		{"equals form is exactly one value", []string{"--labels=a", "b"}, []string{`--labels=["a"]`}, []string{"b"}},
		{"equals form may be empty", []string{"--labels="}, []string{`--labels=[""]`}, nil},
		{"empty strings are values", []string{"--labels", "", "run-ci-x"}, []string{`--labels=["","run-ci-x"]`}, nil},
		{"negative numbers are values", []string{"--labels", "-1", "-2.5", "-.5", "-٣"}, []string{`--labels=["-1","-2.5","-.5","-٣"]`}, nil},
		{"a lone dash is a value", []string{"--labels", "-"}, []string{`--labels=["-"]`}, nil},
		{"a dashed text with a space is a value", []string{"--labels", "-a b"}, []string{`--labels=["-a b"]`}, nil},
		{"a known flag with a space in its value still stops", []string{"--labels", "x", "--suite=a b"}, []string{`--labels=["x"]`, "--suite=a b"}, nil},
		{"unknown options stop the list and are unrecognized", []string{"--labels", "x", "--bogus", "y"}, []string{`--labels=["x"]`}, []string{"--bogus", "y"}},
		{"unknown short options are unrecognized", []string{"--labels", "x", "-x", "--list-only"}, []string{`--labels=["x"]`, "--list-only"}, []string{"-x"}},
		{"short help stops the list", []string{"--labels", "x", "-h"}, []string{`--labels=["x"]`, "--help"}, nil},
		{"double dash and everything after it is unrecognized", []string{"--labels", "x", "--", "y"}, []string{`--labels=["x"]`}, []string{"--", "y"}},
		{"a trailing double dash is unrecognized", []string{"--list-only", "--"}, []string{"--list-only"}, []string{"--"}},
		{"each occurrence is its own list", []string{"--labels", "a", "--labels", "b"}, []string{`--labels=["a"]`, `--labels=["b"]`}, nil},
		{"the value of another flag is never a label flag", []string{"--suite", "s", "--labels", "a"}, []string{"--suite=s", `--labels=["a"]`}, nil},
		{"a negative number value for an int flag", []string{"--auto-partition-id", "-1", "--labels"}, []string{"--auto-partition-id=-1", `--labels=[]`}, nil},
		{"a dashed value with a space for a string flag", []string{"--suite", "-a b"}, []string{"--suite=-a b"}, nil},
		{"json text is kept as a value", []string{"--labels", `["x"]`}, []string{`--labels=["[\"x\"]"]`}, nil},
		{"a unique prefix is the flag", []string{"--list", "--match", "--lab", "a", "--cad", "weekly", "--su=s"}, []string{"--list-only", "--match-all-labels", `--labels=["a"]`, "--cadence=weekly", "--suite=s"}, nil},
		{"a prefix is resolved among run_suite.py's flags first", []string{"--co"}, []string{"--continue-on-error"}, nil},
		{"a prefix of miles-ci's own flags only", []string{"--js"}, []string{"--json"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, extras, err := normalizeArgs(selectionFlagSet(), tt.args, labelsFlag)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.extras, extras)
		})
	}
}

func TestNormalizeArgs_UsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--suite", "--labels"}, "argument --suite: expected one argument"},
		{[]string{"--hw", "--list-only"}, "argument --hw: expected one argument"},
		{[]string{"--suite", "--"}, "argument --suite: expected one argument"},
		{[]string{"--suite", "-x"}, "argument --suite: expected one argument"},
		{[]string{"--suite"}, "argument --suite: expected one argument"},
		{[]string{"--list-only=yes"}, "argument --list-only: ignored explicit argument 'yes'"},
		{[]string{"--match-all-labels=1"}, "argument --match-all-labels: ignored explicit argument '1'"},
		{[]string{"--list=false"}, "argument --list-only: ignored explicit argument 'false'"},
		{[]string{"--nightly=true"}, "argument --nightly: ignored explicit argument 'true'"},
		{[]string{"--hw", "cuda", "--auto-partition", "1"}, "ambiguous option: --auto-partition could match --auto-partition-id, --auto-partition-size"},
		{[]string{"--labels", "a", "--h"}, "ambiguous option: --h could match --help, --hw"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, _, err := normalizeArgs(selectionFlagSet(), tt.args, labelsFlag)
			var ue *UsageError
			require.ErrorAs(t, err, &ue, "%q", tt.args)
			assert.Equal(t, tt.want, ue.Msg)
		})
	}
}

func TestParsePyInt_ReadsIntLikePython(t *testing.T) {
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
			got, ok := parsePyInt(tt.in)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestLabelsValue_ALaterOccurrenceReplaces(t *testing.T) {
	var labels []string
	v := &labelsValue{target: &labels}
	require.NoError(t, v.Set(`["a","b"]`))
	assert.Equal(t, []string{"a", "b"}, labels)
	require.NoError(t, v.Set(`[]`))
	assert.Equal(t, []string{}, labels)
	require.NoError(t, v.Set(`plain`))
	assert.Equal(t, []string{"plain"}, labels)
}

func TestUniqueInOrder_KeepsFirstOccurrences(t *testing.T) {
	assert.Equal(t, []string{"b", "a", ""}, uniqueInOrder([]string{"b", "a", "b", "", "a", ""}))
	assert.Equal(t, []string{}, uniqueInOrder(nil))
}
