package complete

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
)

// testFlags are run's flags in small, each declared with its kind.
func testFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	var s string
	var labels []string
	var n int
	flagkind.String(fs, &s, "hw", "", "", flagkind.Choice)
	flagkind.String(fs, &s, "suite", "", "", flagkind.Choice)
	flagkind.String(fs, &s, "cadence", "", "", flagkind.Choice)
	flagkind.Set(fs.VarPF(&argparse.List{Target: &labels}, "labels", "", ""), flagkind.Choice)
	fs.Bool("list-only", false, "")
	flagkind.String(fs, &s, "root", "", "", flagkind.Dir)
	flagkind.String(fs, &s, "config", "", "", flagkind.Path, "yaml", "yml")
	flagkind.String(fs, &s, "timings", "", "", flagkind.Path, "json")
	flagkind.String(fs, &s, "changed-files", "", "", flagkind.Path)
	flagkind.String(fs, &s, "gate-hook", "", "", flagkind.Text)
	fs.IntVar(&n, "max-attempts", 2, "")
	return fs
}

func TestScan_FindsTheFlagTheNextWordBelongsTo(t *testing.T) {
	for _, tc := range []struct {
		args string
		want Line
	}{
		{"", Line{}},
		{"--hw", Line{Flag: "hw"}},
		{"--hw cuda --suite", Line{Flag: "suite", HW: "cuda"}},
		{"--hw=rocm --suite", Line{Flag: "suite", HW: "rocm"}},
		{"--root /r --config=/c.yaml --cadence", Line{Flag: "cadence", Root: "/r", Config: "/c.yaml"}},
		{"--labels", Line{Flag: "labels"}},
		{"--labels run-ci-a run-ci-b", Line{Flag: "labels"}}, // zero or more values
		{"--labels run-ci-a --list-only", Line{}},
		{"--suite s", Line{}}, // the value is given; the next word is free
		{"--timings", Line{Flag: "timings"}},
		{"--max-attempts", Line{Flag: "max-attempts"}},
		{"--list-only", Line{}},        // takes no value
		{"--unknown", Line{}},          // not a flag of the command
		{"--max-attempts 3 x", Line{}}, // one value only
		{"--labels a --hw", Line{Flag: "hw"}},
	} {
		assert.Equal(t, tc.want, Scan(testFlags(), strings.Fields(tc.args)), tc.args)
	}
}

func TestValues(t *testing.T) {
	cfg := config.Default()
	assert.Equal(t, []string{"cpu", "cuda", "rocm"}, Values(cfg, "hw", "", ""))
	assert.Equal(t, []string{"cuda"}, Values(cfg, "hw", "", "cu"))
	assert.Equal(t, []string{"stage-a-cpu", "stage-b-cpu"}, Values(cfg, "suite", "cpu", ""), "the suites of --hw")
	assert.Contains(t, Values(cfg, "suite", "", "stage-"), "stage-c-8-gpu-h100", "every suite without --hw")
	assert.Equal(t, []string{"regular", "release"}, Values(cfg, "cadence", "", "re"))
	assert.Equal(t, []string{"run-ci-megatron", "run-ci-miles-plugin", "run-ci-model-scripts", "run-ci-mooncake"},
		slices.Sorted(slices.Values(Values(cfg, "labels", "", "run-ci-m"))))
	assert.Contains(t, Values(cfg, "labels", "", ""), "bypass-fastfail")
	assert.Nil(t, Values(cfg, "timings", "", ""), "a path is the shell's to complete")
	assert.Equal(t, []string{"weekly"}, Values(cfg, "cadence-override", "", "w"))
}

func TestSelection_SaysWhatTheShellCompletes(t *testing.T) {
	fs := testFlags()
	values, directive := Selection(fs, []string{"--hw"}, "--x", "", "")
	assert.Nil(t, values, "a flag name is cobra's")
	assert.Equal(t, cobra.ShellCompDirectiveNoFileComp, directive)
	values, _ = Selection(fs, nil, "--hw=r", t.TempDir(), "")
	assert.Equal(t, []string{"--hw=rocm"}, values)
	values, _ = Selection(fs, []string{"--config", "/nonexistent.yaml", "--hw"}, "c", "", "")
	assert.Equal(t, []string{"cpu", "cuda"}, values, "an unloadable configuration completes as the built-in one")

	for _, tc := range []struct {
		args      string
		values    []string
		directive cobra.ShellCompDirective
	}{
		{"--timings", []string{"json"}, cobra.ShellCompDirectiveFilterFileExt},
		{"--config", []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt},
		{"--changed-files", nil, cobra.ShellCompDirectiveDefault},
		{"--root", nil, cobra.ShellCompDirectiveFilterDirs},
		{"--max-attempts", nil, cobra.ShellCompDirectiveNoFileComp},
		{"--gate-hook", nil, cobra.ShellCompDirectiveNoFileComp},
		{"--list-only", nil, cobra.ShellCompDirectiveNoFileComp},
	} {
		values, directive := Selection(fs, strings.Fields(tc.args), "", "", "")
		assert.Equal(t, tc.values, values, tc.args)
		assert.Equal(t, tc.directive, directive, tc.args)
	}
	values, directive = Selection(fs, nil, "--timings=x", "", "")
	assert.Equal(t, []string{"json"}, values, "the extensions, not --timings=json")
	assert.Equal(t, cobra.ShellCompDirectiveFilterFileExt, directive)
}
