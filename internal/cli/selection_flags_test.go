package cli

import (
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func selectionFlagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	addSelectionFlags(fs, &selectionFlags{}, true)
	fs.Bool("list-only", false, "")
	fs.Int("auto-partition-id", 0, "")
	return fs
}

func TestRewriteListArgs_CollectsLabelsLikeArgparse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"values up to the next flag", []string{"--labels", "a", "b", "--list-only"}, []string{`--labels=["a","b"]`, "--list-only"}},
		{"no values before a flag", []string{"--labels", "--list-only"}, []string{`--labels=[]`, "--list-only"}},
		{"no values at the end", []string{"--hw", "cuda", "--labels"}, []string{"--hw", "cuda", `--labels=[]`}},
		{"equals form is exactly one value", []string{"--labels=a", "b"}, []string{`--labels=["a"]`, "b"}},
		{"equals form may be empty", []string{"--labels="}, []string{`--labels=[""]`}},
		{"empty strings are values", []string{"--labels", "", "run-ci-x"}, []string{`--labels=["","run-ci-x"]`}},
		{"negative numbers are values", []string{"--labels", "-1", "-2.5", "-.5"}, []string{`--labels=["-1","-2.5","-.5"]`}},
		{"a lone dash is a value", []string{"--labels", "-"}, []string{`--labels=["-"]`}},
		{"a dashed text with a space is a value", []string{"--labels", "-a b"}, []string{`--labels=["-a b"]`}},
		{"a known flag with a space in its value still stops", []string{"--labels", "x", "--suite=a b"}, []string{`--labels=["x"]`, "--suite=a b"}},
		{"unknown options stop the list", []string{"--labels", "x", "--bogus", "y"}, []string{`--labels=["x"]`, "--bogus", "y"}},
		{"short options stop the list", []string{"--labels", "x", "-h"}, []string{`--labels=["x"]`, "-h"}},
		{"double dash stops the list", []string{"--labels", "x", "--", "y"}, []string{`--labels=["x"]`, "--", "y"}},
		{"each occurrence is its own list", []string{"--labels", "a", "--labels", "b"}, []string{`--labels=["a"]`, `--labels=["b"]`}},
		{"the value of another flag is never a label flag", []string{"--suite", "s", "--labels", "a"}, []string{"--suite", "s", `--labels=["a"]`}},
		{"a negative number value for an int flag", []string{"--auto-partition-id", "-1", "--labels"}, []string{"--auto-partition-id", "-1", `--labels=[]`}},
		{"json text is kept as a value", []string{"--labels", `["x"]`}, []string{`--labels=["[\"x\"]"]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := rewriteListArgs(selectionFlagSet(), tt.args, labelsFlag)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestRewriteListArgs_AFlagValueThatLooksLikeAnOptionIsAnError(t *testing.T) {
	for _, args := range [][]string{
		{"--suite", "--labels"},
		{"--hw", "--list-only"},
		{"--suite", "--"},
	} {
		_, err := rewriteListArgs(selectionFlagSet(), args, labelsFlag)
		var ue *UsageError
		require.ErrorAs(t, err, &ue, "%q", args)
		assert.Contains(t, ue.Msg, "expected one argument")
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
