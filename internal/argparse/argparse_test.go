package argparse

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testFlagSet is run_suite.py's parser in small: its flags, in its order,
// plus two that miles-ci adds (--json, --config).
func testFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var hw, suite, cadence string
	var given, nightly, listOnly, matchAll bool
	var labels []string
	var id, size int
	AddOriginal(fs, func(fs *pflag.FlagSet) {
		fs.Var(&Choice{Flag: "--hw", Target: &hw, Choices: []string{"cpu", "cuda", "rocm"}}, "hw", "")
		fs.Var(&String{Target: &suite, Given: &given}, "suite", "")
		fs.Var(&Choice{Flag: "--cadence", Target: &cadence, Choices: []string{"nightly", "regular"}}, "cadence", "")
		AddConst(fs, &Const{Flag: "--nightly", Target: &nightly}, "nightly", "")
		fs.Bool("continue-on-error", false, "")
		AddInt(fs, &id, nil, "auto-partition-id", 0, "")
		AddInt(fs, &size, nil, "auto-partition-size", 0, "")
		AddConst(fs, &Const{Flag: "--list-only", Target: &listOnly}, "list-only", "")
		fs.Var(&List{Target: &labels}, "labels", "")
	})
	fs.Bool("json", false, "")
	fs.String("config", "", "")
	AddOriginal(fs, func(fs *pflag.FlagSet) { // a later call continues the order
		AddConst(fs, &Const{Flag: "--match-all-labels", Target: &matchAll}, "match-all-labels", "")
	})
	fs.BoolP("help", "h", false, "") // declared last, as cobra does, yet argparse's first
	return fs
}

func TestNormalize_ReadsArgvLikeArgparse(t *testing.T) {
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
			got, extras, err := Normalize(testFlagSet(), tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.extras, extras)
		})
	}
}

func TestNormalize_UsageErrors(t *testing.T) {
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
		{[]string{"--l"}, "ambiguous option: --l could match --list-only, --labels"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, _, err := Normalize(testFlagSet(), tt.args)
			var ue *Error
			require.ErrorAs(t, err, &ue, "%q", tt.args)
			assert.Equal(t, tt.want, ue.Msg)
		})
	}
}

func TestList_ALaterOccurrenceReplaces(t *testing.T) {
	var labels []string
	v := &List{Target: &labels}
	require.NoError(t, v.Set(`["a","b"]`))
	assert.Equal(t, []string{"a", "b"}, labels)
	require.NoError(t, v.Set(`[]`))
	assert.Equal(t, []string{}, labels)
	require.NoError(t, v.Set(`plain`))
	assert.Equal(t, []string{"plain"}, labels)
}

func TestParse_SetsValuesAndReportsArgparseErrors(t *testing.T) {
	fs := testFlagSet()
	help, extras, err := Parse(fs, []string{"--hw", "cuda", "--lab", "a", "b", "--auto-partition-size", " 1_0 ", "stray"})
	require.NoError(t, err)
	assert.False(t, help)
	assert.Equal(t, []string{"stray"}, extras)
	assert.Equal(t, "cuda", fs.Lookup("hw").Value.String())
	assert.Equal(t, "10", fs.Lookup("auto-partition-size").Value.String())
	assert.Equal(t, "['a', 'b']", fs.Lookup("labels").Value.String())

	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--hw", "tpu"}, "argument --hw: invalid choice: 'tpu' (choose from 'cpu', 'cuda', 'rocm')"},
		{[]string{"--auto-partition-id", "1.5"}, "argument --auto-partition-id: invalid int value: '1.5'"},
	}
	for _, tt := range tests {
		_, _, err := Parse(testFlagSet(), tt.args)
		var ae *Error
		require.ErrorAs(t, err, &ae, "%q", tt.args)
		assert.Equal(t, tt.want, ae.Msg)
	}
	help, _, err = Parse(testFlagSet(), []string{"-h"})
	require.NoError(t, err)
	assert.True(t, help)
}

func TestInt_TypedKeepsWhatTheUserWrote(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var n int
	v := AddInt(fs, &n, nil, "size", 3, "")
	assert.Equal(t, "3", v.Typed())
	require.NoError(t, fs.Parse([]string{"--size= 99999999999999999999 "}))
	assert.Equal(t, "99999999999999999999", v.Typed())
}

func TestArgparseHelpers_Messages(t *testing.T) {
	assert.NoError(t, Exclusive([]string{"--cadence", "--cadence"}))
	assert.EqualError(t, Exclusive([]string{"--nightly", "--cadence"}), "argument --cadence: not allowed with argument --nightly")
	assert.NoError(t, Required())
	assert.EqualError(t, Required("--hw", "--suite"), "the following arguments are required: --hw, --suite")
	assert.NoError(t, Unrecognized(nil))
	assert.EqualError(t, Unrecognized([]string{"x", "--y"}), "unrecognized arguments: x --y")
}
