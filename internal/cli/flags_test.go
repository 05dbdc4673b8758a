package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/flagkind"
)

// eachFlag calls fn for every command of the tree and each flag it accepts,
// its own and those it inherits.
func eachFlag(t *testing.T, fn func(cmd *cobra.Command, path []string, fl *pflag.Flag)) {
	t.Helper()
	f, _, _ := suitesFactory(runRepo, nil)
	var walk func(cmd *cobra.Command)
	walk = func(cmd *cobra.Command) {
		path := strings.Fields(cmd.CommandPath())[1:] // without "miles-ci"
		seen := map[string]bool{}
		for _, fs := range []*pflag.FlagSet{cmd.LocalFlags(), cmd.InheritedFlags()} {
			fs.VisitAll(func(fl *pflag.Flag) {
				if !seen[fl.Name] {
					seen[fl.Name] = true
					fn(cmd, path, fl)
				}
			})
		}
		for _, sub := range cmd.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(f))
}

// A value flag that says what it is cannot be forgotten by the empty-path
// check, the same-output check or completion; one that says nothing fails
// here, so a new path flag cannot be added without its kind.
func TestFlags_EveryValueFlagDeclaresItsKind(t *testing.T) {
	n := 0
	eachFlag(t, func(_ *cobra.Command, path []string, fl *pflag.Flag) {
		n++
		assert.False(t, flagkind.Undeclared(fl), "%v --%s takes a value but declares no kind (see package flagkind)", path, fl.Name)
		if flagkind.TakesValue(fl) {
			return
		}
		assert.Equal(t, flagkind.None, flagkind.Of(fl), "%v --%s takes no value, so it has no kind", path, fl.Name)
	})
	assert.Greater(t, n, 50, "the walk saw every command's flags")
}

// The directive each kind completes with, spelled out rather than taken
// from package complete. Choice values are checked separately.
var kindDirective = map[flagkind.Kind]cobra.ShellCompDirective{
	flagkind.Path:   cobra.ShellCompDirectiveDefault, // FilterFileExt with extensions
	flagkind.Output: cobra.ShellCompDirectiveDefault, // likewise
	flagkind.Dir:    cobra.ShellCompDirectiveFilterDirs,
	flagkind.Choice: cobra.ShellCompDirectiveNoFileComp,
	flagkind.Number: cobra.ShellCompDirectiveNoFileComp,
	flagkind.Text:   cobra.ShellCompDirectiveNoFileComp,
}

// completeValue runs `__complete <path> --name ""` and returns the values
// and the directive.
func completeValue(t *testing.T, path []string, name string) ([]string, string) {
	t.Helper()
	f, out, errOut := suitesFactory(runRepo, nil)
	args := append(append([]string{"__complete", "--root", runRepo}, path...), "--"+name, "")
	require.Equal(t, 0, Main(args, f), "%v: %s", args, errOut.String())
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	return lines[:len(lines)-1], lines[len(lines)-1]
}

// Every value flag of every command, run and partition (which parse their
// own flags) included, completes as its kind says: a file flag to files
// (by extension where it has them), never to nothing.
func TestFlags_EveryValueFlagCompletesAsItsKind(t *testing.T) {
	eachFlag(t, func(_ *cobra.Command, path []string, fl *pflag.Flag) {
		if !flagkind.TakesValue(fl) {
			return
		}
		k := flagkind.Of(fl)
		values, directive := completeValue(t, path, fl.Name)
		where := fmt.Sprintf("%v --%s (%s)", path, fl.Name, k)
		want := kindDirective[k]
		if exts := flagkind.Extensions(fl); len(exts) > 0 {
			want = cobra.ShellCompDirectiveFilterFileExt
			assert.Equal(t, exts, values, where)
		}
		assert.Equal(t, fmt.Sprintf(":%d", want), directive, where)
		switch k {
		case flagkind.Choice:
			assert.NotEmpty(t, values, where)
		case flagkind.Path, flagkind.Output:
			assert.NotEqual(t, fmt.Sprintf(":%d", cobra.ShellCompDirectiveNoFileComp), directive, where+": a path completes to files")
		}
	})
}

// The flags that once completed to nothing, pinned.
func TestFlags_PathFlagsCompleteToFiles(t *testing.T) {
	for _, tc := range []struct {
		path []string
		flag string
		want string
	}{
		{[]string{"run"}, "file", "py\n:8"},
		{[]string{"run"}, "rerun-failed", "json\n:8"},
		{[]string{"run"}, "timings", "json\n:8"},
		{[]string{"run"}, "config", "yaml\nyml\n:8"},
		{[]string{"run"}, "junit-xml", "xml\n:8"},
		{[]string{"run"}, "json-report", "json\n:8"},
		{[]string{"run"}, "root", ":16"},
		{[]string{"partition"}, "timings", "json\n:8"},
		{[]string{"policy"}, "changed-files", ":0"},
		{[]string{"policy"}, "github-output", ":0"},
		{[]string{"file-run"}, "file", "py\n:8"},
		{[]string{"file-run"}, "source-root", ":16"},
		{[]string{"report", "merge"}, "output", "json\n:8"},
		{[]string{"report", "summary"}, "junit-xml", "xml\n:8"},
		{[]string{"timings", "merge"}, "output", "json\n:8"},
		{[]string{"suites"}, "timings", "json\n:8"},
		{nil, "config", "yaml\nyml\n:8"},
		{[]string{"run"}, "max-attempts", ":4"},
		{[]string{"run"}, "gate-hook", ":4"},
		{[]string{"policy"}, "event", ":4"},
	} {
		values, directive := completeValue(t, tc.path, tc.flag)
		assert.Equal(t, tc.want, strings.Join(append(values, directive), "\n"), "%v --%s", tc.path, tc.flag)
	}
}

// run and partition read run_suite.py's flags as run_suite.py did: an
// abbreviation resolves among them first, and an ambiguous one lists them in
// run_suite.py's order, which is the order the flag set declares them in.
func TestFlags_RunSuitePyFlagsComeInItsOrder(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"run", []string{"--m"}, "ambiguous option: --m could match --max-attempts, --match-all-labels"},
		{"run", []string{"--l"}, "ambiguous option: --l could match --list-only, --labels"},
		{"run", []string{"--retry"}, "ambiguous option: --retry could match --retry-wait-seconds, --retry-timeout-increase"},
		{"run", []string{"--c"}, "ambiguous option: --c could match --cadence, --continue-on-error"},
		{"run", []string{"--h"}, "ambiguous option: --h could match --help, --hw"},
		{"partition", []string{"--auto"}, "ambiguous option: --auto could match --auto-partition-id, --auto-partition-size"},
	} {
		f, _, errOut := suitesFactory(runRepo, nil)
		assert.Equal(t, exitUsage, Main(append([]string{tc.cmd}, tc.args...), f), "%v", tc.args)
		assert.Contains(t, errOut.String(), "error: "+tc.want+"\n", "%s %v", tc.cmd, tc.args)
	}
	var original []string
	f, _, _ := suitesFactory(runRepo, nil)
	cmd := NewCmdRun(f, nil)
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if argparse.IsOriginal(fl) {
			original = append(original, fl.Name)
		}
	})
	assert.ElementsMatch(t, []string{"hw", "suite", "cadence", "nightly", "timeout-per-file", "continue-on-error",
		"auto-partition-id", "auto-partition-size", "enable-retry", "max-attempts", "retry-wait-seconds",
		"retry-timeout-increase", "list-only", "labels", "match-all-labels"}, original, "run_suite.py's flags")
}
