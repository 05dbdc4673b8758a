package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runRepo is a small repository whose plans were checked byte for byte
// against tests/ci/run_suite.py.
const runRepo = "testdata/run/repo"

// parseRun parses argv as `miles-ci run` and returns the options the
// command would run with; nothing runs.
func parseRun(t *testing.T, args ...string) (*RunOptions, error) {
	t.Helper()
	f, _, _ := suitesFactory(".", nil)
	var got *RunOptions
	cmd := NewCmdRun(f, func(o *RunOptions) error { got = o; return nil })
	// Never nil: cobra would parse the test binary's own arguments.
	cmd.SetArgs(append([]string{}, args...))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	return got, err
}

func TestNewCmdRun_ParsesFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(t *testing.T, o *RunOptions)
	}{
		{
			name: "defaults are run_suite.py's",
			args: []string{"--hw", "cuda", "--suite", "s"},
			check: func(t *testing.T, o *RunOptions) {
				assert.Equal(t, "cuda", o.HW)
				assert.Equal(t, "s", o.Suite)
				assert.Equal(t, "regular", o.Cadence)
				assert.Empty(t, o.Labels)
				assert.False(t, o.PartitionSet)
				assert.Equal(t, 1800, o.TimeoutPerFile)
				assert.Equal(t, 2, o.MaxAttempts)
				assert.Equal(t, 60, o.RetryWaitSeconds)
				assert.Equal(t, 600, o.RetryTimeoutIncrease)
				assert.False(t, o.ContinueOnError || o.EnableRetry || o.ListOnly || o.JSON || o.MatchAllLabels)
			},
		},
		{
			name: "labels take several values before a flag",
			args: []string{"--hw", "cuda", "--suite", "s", "--labels", "run-ci-a", "nightly", "--list-only"},
			check: func(t *testing.T, o *RunOptions) {
				assert.Equal(t, []string{"run-ci-a", "nightly"}, o.Labels)
				assert.True(t, o.ListOnly)
			},
		},
		{
			name: "an empty label expansion is no labels and the next flag",
			args: []string{"--hw", "cpu", "--suite", "s", "--labels", "--list-only", "--json"},
			check: func(t *testing.T, o *RunOptions) {
				assert.Empty(t, o.Labels)
				assert.True(t, o.ListOnly)
				assert.True(t, o.JSON)
			},
		},
		{
			name: "nightly is cadence nightly",
			args: []string{"--hw", "cuda", "--suite", "s", "--nightly"},
			check: func(t *testing.T, o *RunOptions) {
				assert.Equal(t, "nightly", o.Cadence)
				assert.True(t, o.Nightly)
			},
		},
		{
			name: "every execution flag",
			args: []string{"--hw", "rocm", "--suite", "s", "--cadence", "weekly", "--timeout-per-file", "30",
				"--continue-on-error", "--enable-retry", "--max-attempts", "3", "--retry-wait-seconds", "0",
				"--retry-timeout-increase", "5", "--auto-partition-id", "1", "--auto-partition-size", "2", "--match-all-labels"},
			check: func(t *testing.T, o *RunOptions) {
				assert.Equal(t, "weekly", o.Cadence)
				assert.Equal(t, 30, o.TimeoutPerFile)
				assert.True(t, o.ContinueOnError)
				assert.True(t, o.EnableRetry)
				assert.Equal(t, 3, o.MaxAttempts)
				assert.Equal(t, 0, o.RetryWaitSeconds)
				assert.Equal(t, 5, o.RetryTimeoutIncrease)
				assert.True(t, o.PartitionSet)
				assert.Equal(t, 1, o.PartitionID)
				assert.Equal(t, 2, o.PartitionSize)
				assert.True(t, o.MatchAllLabels)
			},
		},
		{
			name: "argparse's abbreviations, int forms and an empty suite",
			args: []string{"--hw", "cuda", "--su", "", "--list", "--match", "--co", "--lab", "run-ci-a",
				"--auto-partition-s", "1_0", "--auto-partition-i", " ٣ ", "--max", "+3"},
			check: func(t *testing.T, o *RunOptions) {
				assert.Equal(t, "", o.Suite)
				assert.True(t, o.ListOnly)
				assert.True(t, o.MatchAllLabels)
				assert.True(t, o.ContinueOnError)
				assert.Equal(t, []string{"run-ci-a"}, o.Labels)
				assert.True(t, o.PartitionSet)
				assert.Equal(t, 10, o.PartitionSize)
				assert.Equal(t, 3, o.PartitionID)
				assert.Equal(t, 3, o.MaxAttempts)
			},
		},
		{
			name: "the last labels flag wins",
			args: []string{"--labels", "run-ci-a", "--hw", "cuda", "--suite", "s", "--labels", "run-ci-b"},
			check: func(t *testing.T, o *RunOptions) {
				assert.Equal(t, []string{"run-ci-b"}, o.Labels)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseRun(t, tt.args...)
			require.NoError(t, err)
			require.NotNil(t, o)
			tt.check(t, o)
		})
	}
}

func TestNewCmdRun_UsageErrors(t *testing.T) {
	base := []string{"--hw", "cuda", "--suite", "s"}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing hw and suite", nil, "the following arguments are required: --hw, --suite (or --file FILE alone, to run one registered file)"},
		{"missing suite", []string{"--hw", "cpu"}, "the following arguments are required: --suite (or --file FILE alone, to run one registered file)"},
		{"missing hw only", []string{"--suite", "s"}, "the following arguments are required: --hw"},
		{"bad hw", []string{"--hw", "tpu", "--suite", "s"}, "argument --hw: invalid choice: 'tpu' (choose from 'cpu', 'cuda', 'rocm')"},
		{"bad cadence", append(base, "--cadence", "monthly"), "argument --cadence: invalid choice: 'monthly' (choose from 'nightly', 'regular', 'release', 'weekly')"},
		{"nightly then cadence", append(base, "--nightly", "--cadence", "weekly"), "argument --cadence: not allowed with argument --nightly"},
		{"cadence then nightly", append(base, "--cadence", "nightly", "--nightly"), "argument --nightly: not allowed with argument --cadence"},
		{"partition id alone", append(base, "--auto-partition-id", "0"), "--auto-partition-id and --auto-partition-size must be specified together."},
		{"partition size alone", append(base, "--auto-partition-size", "2"), "--auto-partition-id and --auto-partition-size must be specified together."},
		{"partition size zero", append(base, "--auto-partition-id", "0", "--auto-partition-size", "0"), "--auto-partition-size must be positive."},
		{"partition size beyond any matrix", append(base, "--auto-partition-id", "0", "--auto-partition-size", "1000000000"), "--auto-partition-size must be at most 100000, got 1000000000"},
		{"partition size beyond int64", append(base, "--auto-partition-id", "0", "--auto-partition-size", "99999999999999999999"), "--auto-partition-size must be at most 100000, got 99999999999999999999"},
		{"partition id too large", append(base, "--auto-partition-id", "3", "--auto-partition-size", "3"), "--auto-partition-id must be in range [0, 3), but got 3"},
		{"partition id negative", append(base, "--auto-partition-id", "-1", "--auto-partition-size", "3"), "--auto-partition-id must be in range [0, 3), but got -1"},
		{"not an int", append(base, "--max-attempts", "two"), "argument --max-attempts: invalid int value: 'two'"},
		{"a flag value that is a flag", []string{"--hw", "cuda", "--suite", "--list-only"}, "argument --suite: expected one argument"},
		{"a positional argument", append(base, "extra"), "unrecognized arguments: extra"},
		{"labels with equals take one value", append(base, "--labels=a", "b"), "unrecognized arguments: b"},
		{"unknown flag", append(base, "--bogus"), "unrecognized arguments: --bogus"},
		{"unknown flags and values together", append(base, "--bogus=1", "x", "-y"), "unrecognized arguments: --bogus=1 x -y"},
		{"a double dash", append(base, "--list-only", "--", "x"), "unrecognized arguments: -- x"},
		{"a mistyped flag before the flag it leaves missing", []string{"--siute", "X"}, "unrecognized arguments: --siute X"},
		{"a mistyped flag before a missing --hw", []string{"--suite", "s", "--hww", "cuda"}, "unrecognized arguments: --hww cuda"},
		{"unrecognized arguments before any other complaint", []string{"--", "--hw", "cuda"}, "unrecognized arguments: -- --hw cuda"},
		{"unrecognized arguments before two cadences", append(base, "--nightly", "--cadence", "weekly", "--bogus"), "unrecognized arguments: --bogus"},
		{"a value for a flag that takes none", append(base, "--list-only=false"), "argument --list-only: ignored explicit argument 'false'"},
		{"an ambiguous prefix", append(base, "--auto-partition", "1"), "ambiguous option: --auto-partition could match --auto-partition-id, --auto-partition-size"},
		{"an int with a double underscore", append(base, "--max-attempts", "1__0"), "argument --max-attempts: invalid int value: '1__0'"},
		{"json without list-only", append(base, "--json"), "--json needs --list-only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseRun(t, tt.args...)
			var ue *UsageError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, tt.want, ue.Msg)
			assert.Nil(t, o, "nothing runs after a usage error")
		})
	}
}

func TestMain_RunUsageErrorExitsTwo(t *testing.T) {
	f, _, errOut := suitesFactory(".", nil)
	code := Main([]string{"run", "--hw", "cuda", "--suite", "s", "--nightly", "--cadence", "weekly"}, f)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut.String(), "--nightly")
	assert.Contains(t, errOut.String(), "--cadence")
}

// A newcomer's typo is named on the first line, not the flag it left out,
// with the flag it resembles (run and partition share the check).
func TestMain_RunNamesAMistypedFlagFirst(t *testing.T) {
	for _, cmd := range []string{"run", "partition"} {
		f, out, errOut := suitesFactory(".", nil)
		code := Main([]string{cmd, "--siute", "X"}, f)
		assert.Equal(t, 2, code)
		assert.Empty(t, out.String())
		assert.Equal(t, "error: unrecognized arguments: --siute X\n\nDid you mean this?\n\t--suite\n\nRun 'miles-ci "+cmd+" --help' for usage.\n", errOut.String())
	}
	f, _, errOut := suitesFactory(".", nil)
	assert.Equal(t, 2, Main([]string{"run", "--hw", "cuda", "--suite", "s", "--bogus"}, f))
	assert.Equal(t, "error: unrecognized arguments: --bogus\nRun 'miles-ci run --help' for usage.\n", errOut.String(), "nothing near: no guess")
}

func TestMain_RunGlobalFlagsAfterTheCommand(t *testing.T) {
	f, out, _ := suitesFactory(".", nil)
	code := Main([]string{"run", "--hw", "cpu", "--suite", "stage-a-cpu", "--root", runRepo, "--list-only", "--json"}, f)
	require.Equal(t, 0, code)
	assert.Contains(t, out.String(), `"suite":"stage-a-cpu"`)
}

// TestRun_PlanGolden pins the plan text. Every golden file here was
// compared byte for byte with `python3 tests/ci/run_suite.py ... --list-only`
// on the same repository; stderr follows stdout after a "--- stderr" line.
func TestRun_PlanGolden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
		err    string
	}{
		{"cpu-full.golden", []string{"--hw", "cpu", "--suite", "stage-a-cpu"}, ""},
		{"cpu-shard-1of2.golden", []string{"--hw", "cpu", "--suite", "stage-a-cpu", "--auto-partition-id", "1", "--auto-partition-size", "2"}, ""},
		{"cuda-weekly.golden", []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly"}, ""},
		{"cuda-fsdp-unprefixed-0of2.golden", []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--labels", "run-ci-fsdp", "sglang", "--auto-partition-id", "0", "--auto-partition-size", "2"}, ""},
		{"cuda-nightly.golden", []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--nightly"}, ""},
		{"cuda-image.golden", []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--labels", "run-ci-image"}, ""},
		{"cuda-no-labels.golden", []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100"}, ""},
		{"cuda-match-all-continue.golden", []string{"--hw", "cuda", "--suite", "stage-c-2-gpu-h200", "--match-all-labels", "--continue-on-error"}, ""},
		{"unknown-suite.golden", []string{"--hw", "cuda", "--suite", "stage-x"}, "Unknown suite stage-x for backend CUDA"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			f, out, errOut := suitesFactory(runRepo, nil)
			opts, err := parseRun(t, append(tt.args, "--list-only")...)
			require.NoError(t, err)
			err = runRun(context.Background(), f, opts)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
			} else {
				require.NoError(t, err)
			}
			assertGolden(t, "run", tt.golden, out.String()+"--- stderr\n"+errOut.String())
		})
	}
}

func TestRun_NoEnabledTestsSucceedsWithoutRunning(t *testing.T) {
	f, out, _ := suitesFactory(runRepo, nil)
	opts, err := parseRun(t, "--hw", "cuda", "--suite", "stage-c-4-gpu-h200")
	require.NoError(t, err)
	require.NoError(t, runRun(context.Background(), f, opts))
	assert.True(t, strings.HasSuffix(out.String(), "\nNo tests to run. Exiting with success.\n"), out.String())
}

// A GPU stage whose tests all need labels the run was not given says on
// stderr which flags select them, as partition does; stdout stays the
// Python runner's, and --json's stays one JSON document.
func TestRun_NoTestsNotesTheFlagsThatSelectThem(t *testing.T) {
	for _, extra := range [][]string{{"--list-only"}, {"--list-only", "--json"}, nil} {
		f, out, errOut := suitesFactory(runRepo, nil)
		opts, err := parseRun(t, append([]string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100"}, extra...)...)
		require.NoError(t, err)
		require.NoError(t, runRun(context.Background(), f, opts))
		assert.Equal(t, "note: the selection leaves out all 6 enabled registrations of stage-c-8-gpu-h100: "+
			"5 by their labels (--match-all-labels selects them, or --labels run-ci-ckpt run-ci-fsdp run-ci-ft-long run-ci-long run-ci-lora run-ci-short); "+
			"1 nightly-only (--cadence nightly selects them)\n", errOut.String(), "%v", extra)
		if len(extra) == 2 {
			assert.True(t, json.Valid(out.Bytes()), out.String())
		} else {
			assert.NotContains(t, out.String(), "note:", "%v", extra)
		}
	}
}

func TestRun_ErrorOrder(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		// The policy error comes before the unknown suite.
		{"policy before suite", []string{"--hw", "cuda", "--suite", "stage-x", "--labels", "nightly"}, "The nightly workflow label requires cadence='nightly'"},
		{"suite of another backend", []string{"--hw", "rocm", "--suite", "stage-a-cpu"}, "Unknown suite stage-a-cpu for backend ROCM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := suitesFactory(runRepo, nil)
			opts, err := parseRun(t, append(tt.args, "--list-only", "--json")...)
			require.NoError(t, err)
			assert.EqualError(t, runRun(context.Background(), f, opts), tt.want)
		})
	}
}

func TestRun_RegistryErrorComesFirst(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "tests/e2e"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "tests/e2e/test_x.py"), []byte("x = 1\n"), 0o644))
	f, _, _ := suitesFactory(root, nil)
	opts, err := parseRun(t, "--hw", "cuda", "--suite", "stage-x", "--labels", "nightly", "--list-only")
	require.NoError(t, err)
	assert.EqualError(t, runRun(context.Background(), f, opts), "No CI registry found in tests/e2e/test_x.py")
}

func TestRun_JSONIsTheWholeOutput(t *testing.T) {
	f, out, errOut := suitesFactory(runRepo, nil)
	opts, err := parseRun(t, "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--labels", "run-ci-fsdp", "sglang",
		"--auto-partition-id", "1", "--auto-partition-size", "2", "--list-only", "--json")
	require.NoError(t, err)
	require.NoError(t, runRun(context.Background(), f, opts))

	var doc map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	keys := func(m map[string]any) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		return k
	}
	assert.ElementsMatch(t, []string{"hw", "suite", "policy", "continue_on_error", "partition", "enabled", "skipped"}, keys(doc))
	assert.ElementsMatch(t, []string{"cadence", "include_labels", "admit_nightly_tests", "bypass_fastfail", "write_baseline"},
		keys(doc["policy"].(map[string]any)))
	assert.Equal(t, map[string]any{"id": 1.0, "size": 2.0}, doc["partition"])
	assert.Equal(t, []any{"fsdp"}, doc["policy"].(map[string]any)["include_labels"])
	enabled := doc["enabled"].([]any)
	require.Len(t, enabled, 1)
	assert.Equal(t, "tests/e2e/fsdp/test_fsdp_short.py", enabled[0].(map[string]any)["file"])
	skipped := doc["skipped"].([]any)
	require.Len(t, skipped, 1)
	assert.Equal(t, "flaky on H100, see #123", skipped[0].(map[string]any)["disabled"])
	assert.Contains(t, errOut.String(), "'sglang'", "the warning names the label")
}

func TestRun_AnUnknownLabelWarnsAndChangesNoPlanByte(t *testing.T) {
	plan := func(labels ...string) (string, string) {
		f, out, errOut := suitesFactory(runRepo, nil)
		opts, err := parseRun(t, append([]string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only", "--labels"}, labels...)...)
		require.NoError(t, err)
		require.NoError(t, runRun(context.Background(), f, opts))
		return out.String(), errOut.String()
	}
	want, _ := plan("run-ci-fsdp")
	got, warned := plan("run-ci-fsdp", "run-ci-megatorn", "run-ci-megatorn")
	assert.Equal(t, want, got)
	assert.Equal(t, "warning: --labels entry 'run-ci-megatorn' names no known domain label; did you mean 'run-ci-megatron'?\n", warned,
		"one warning per distinct entry")
}
