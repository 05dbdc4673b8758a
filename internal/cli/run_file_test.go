package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/testutil"
)

// runFileMain runs `miles-ci --root root run --file ...args` in process.
func runFileMain(root string, env map[string]string, args ...string) (status int, stdout, stderr string) {
	return runFileMainStart(root, env, nil, args...)
}

// runFileMainStart is runFileMain with the children started by start.
func runFileMainStart(root string, env map[string]string, start func(*exec.Cmd) error, args ...string) (status int, stdout, stderr string) {
	f, out, errOut := execFactory(root, env)
	f.Start = start
	status = Main(append([]string{"--root", root, "run", "--file"}, args...), f)
	return status, out.String(), errOut.String()
}

// The sample's test files are Python: this test runs them with python3.
func TestRunFile_OneGPUFileOfTheSampleWithMarkersAndReports(t *testing.T) {
	testutil.NeedPython(t)
	root, err := filepath.Abs("../../testdata/sample")
	require.NoError(t, err)
	tmp := t.TempDir()
	report, junit := filepath.Join(tmp, "report.json"), filepath.Join(tmp, "junit.xml")
	status, out, stderr := runFileMain(root, map[string]string{"GITHUB_ACTIONS": "true"},
		"tests/fast-gpu/test_fsdp_small.py", "--json-report", report, "--junit-xml", junit)
	require.Equal(t, 0, status, stderr+out)

	rule := strings.Repeat("=", 60)
	assert.True(t, strings.HasPrefix(out, "\n"+rule+"\nFile run: tests/fast-gpu/test_fsdp_small.py\n"+
		"Hardware: CUDA  Suite: stage-b-2-gpu-h200  est_time=120.0s  Timeout: 1800s\n"+rule+"\n\n"+
		"::group::tests/fast-gpu/test_fsdp_small.py  (1/1 est=120s attempt=1)\n"), out)
	assert.Contains(t, out, "fsdp_small: ok\n")
	assert.Regexp(t, `::endgroup::\n\[1/1\] tests/fast-gpu/test_fsdp_small\.py  PASS  elapsed=\d+s\n`, out)
	assert.Contains(t, out, "Test Summary: 1/1 passed\n")
	assert.NotContains(t, out, "test_lora_merge", "only the requested file runs")

	var doc struct {
		Suite, Backend string
		Passed         bool
		Files          []struct{ File, Status string }
	}
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, "stage-b-2-gpu-h200", doc.Suite)
	assert.Equal(t, "cuda", doc.Backend)
	assert.True(t, doc.Passed)
	require.Len(t, doc.Files, 1)
	assert.Equal(t, "PASS", doc.Files[0].Status)
	xml, err := os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(xml), `tests/fast-gpu/test_fsdp_small.py`)
}

// leavingRepo is a repository whose one GPU test, a shell script, starts
// `sleep 300`, says the sleep's pid on the readiness descriptor and then,
// when hang is set, sleeps itself. launch runs it.
func leavingRepo(t *testing.T, hang bool) (root string, launch *testutil.Launcher) {
	t.Helper()
	script := "sleep 300 &\necho $! >&3\n"
	if hang {
		script += "exec sleep 300\n"
	}
	src := testutil.ShellTest(`register_cuda_ci(est_time=0.5, suite="stage-c-8-gpu-h100", labels=["megatron"])`+"\n", script)
	root = execRepo(t, map[string]string{"tests/e2e/test_leaves.py": src})
	return root, &testutil.Launcher{Shell: true, Ready: true}
}

func TestRunFile_AProcessTheFileLeavesBehindIsReaped(t *testing.T) {
	testutil.NeedLinux(t, "/proc, to check processes with,")
	root, launch := leavingRepo(t, false)
	status, out, stderr := runFileMainStart(root, nil, launch.Start, "tests/e2e/test_leaves.py")
	require.Equal(t, 0, status, stderr+out)
	pid := launch.Pid(t)
	assert.False(t, testutil.Alive(pid), "the file's background sleep %d outlived the run", pid)
}

// The timeout counts from the moment the file's child runs (the launcher
// returns only then), so a start-up stretched by a loaded machine cannot
// use up the second.
func TestRunFile_ATimeoutKillsTheWholeTree(t *testing.T) {
	testutil.NeedLinux(t, "/proc, to check processes with,")
	root, launch := leavingRepo(t, true)
	status, out, _ := runFileMainStart(root, nil, launch.Start, "tests/e2e/test_leaves.py", "--timeout-per-file", "1")
	assert.Equal(t, 1, status)
	assert.Contains(t, out, "Timeout: 1s\n")
	assert.Contains(t, out, "TIMEOUT: tests/e2e/test_leaves.py after 1 seconds")
	assert.Contains(t, out, "  tests/e2e/test_leaves.py (timeout after 1s)\n")
	pid := launch.Pid(t)
	assert.False(t, testutil.Alive(pid), "the file's child %d outlived the timeout", pid)
}

func TestRunFile_ACPUFileRunsPytestUnderATimeLimit(t *testing.T) {
	bin := t.TempDir()
	// The fake pytest says it is ready once it printed its arguments: the
	// timeout counts from then (see testutil.Launcher).
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pytest"), []byte("#!/bin/sh\necho \"args: $*\"\necho $$ >&3\nexec sleep 300\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := execRepo(t, map[string]string{"tests/fast/test_slow.py": "def test_x():\n    pass\n"})
	launch := &testutil.Launcher{Ready: true}
	status, out, stderr := runFileMainStart(root, nil, launch.Start, "tests/fast/test_slow.py", "--timeout-per-file", "1")
	assert.Equal(t, 1, status, stderr)
	assert.Contains(t, out, "Hardware: CPU  Suite: stage-a-cpu  est_time=1.0s  Timeout: 1s\n")
	assert.Contains(t, out, "Running: pytest tests/fast/test_slow.py -v -x\nargs: tests/fast/test_slow.py -v -x\n")
	assert.True(t, strings.HasSuffix(out, "\nTIMEOUT: pytest after 1 seconds\n"), out)
}

func TestRunFile_TheFileIsTheSelection(t *testing.T) {
	root := execRepo(t, map[string]string{
		"tests/e2e/test_nightly.py":  "register_cuda_ci(est_time=2000, suite='stage-c-8-gpu-h200', labels=['long'], nightly=True)\n",
		"tests/e2e/test_disabled.py": "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h100', labels=['megatron'], disabled='flaky, see #1')\n",
		"tests/e2e/test_amd.py":      "register_rocm_ci(est_time=60, suite='stage-c-4-gpu-mi350', labels=['amd'])\n",
	})
	status, out, stderr := runFileMain(root, nil, "tests/e2e/test_nightly.py", "--list-only")
	require.Equal(t, 0, status, stderr)
	assert.Contains(t, out, "File run: tests/e2e/test_nightly.py\nHardware: CUDA  Suite: stage-c-8-gpu-h200  est_time=2000.0s  Timeout: 2500s\n",
		"neither its label nor its nightly flag keeps it from running")

	status, out, _ = runFileMain(root, nil, "tests/e2e/test_nightly.py", "--list-only", "--enable-retry")
	require.Equal(t, 0, status)
	assert.Contains(t, out, "Timeout: 2500s\n", "1.25 x est_time is longer than the minimum plus the retry increase")

	for file, want := range map[string]string{
		"tests/e2e/test_disabled.py": "error: tests/e2e/test_disabled.py is disabled: flaky, see #1\n",
		"tests/e2e/test_amd.py":      "error: tests/e2e/test_amd.py is registered only for ROCm (stage-c-4-gpu-mi350); /rerun-test supports CPU and CUDA\n",
		"./tests/e2e/test_amd.py":    "error: tests/e2e/test_amd.py is registered only for ROCm (stage-c-4-gpu-mi350); /rerun-test supports CPU and CUDA\n",
	} {
		status, out, stderr := runFileMain(root, nil, file)
		assert.Equal(t, 1, status, file)
		assert.Equal(t, want, stderr, file)
		assert.Empty(t, out, file)
	}
}

func TestNewCmdRun_FileFlag(t *testing.T) {
	opts, err := parseRun(t, "--file", "tests/e2e/test_a.py", "--timeout-per-file", "60", "--enable-retry")
	require.NoError(t, err, "--hw and --suite are not required with --file")
	assert.Equal(t, "tests/e2e/test_a.py", opts.File)
	assert.True(t, opts.timeoutSet)

	opts, err = parseRun(t, "--fi", "tests/e2e/test_a.py")
	require.NoError(t, err)
	assert.Equal(t, "tests/e2e/test_a.py", opts.File, "an abbreviation, as argparse takes one")
	assert.False(t, opts.timeoutSet)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--file", "x.py", "--hw", "cuda", "--suite", "s"}, "it cannot be used with --hw, --suite"},
		{[]string{"--file", "x.py", "--labels", "--nightly"}, "it cannot be used with --nightly, --labels"},
		{[]string{"--file", "x.py", "--auto-partition-id", "0", "--auto-partition-size", "2"}, "--auto-partition-id, --auto-partition-size"},
		{[]string{"--file", "x.py", "--list-only", "--json"}, "it cannot be used with --json"},
		{[]string{"--file", "x.py", "stray"}, "unrecognized arguments: stray"},
		{[]string{"--file", ""}, "--file needs a path, got an empty value"},
	} {
		_, err := parseRun(t, tc.args...)
		var usage *UsageError
		require.ErrorAs(t, err, &usage, "%v", tc.args)
		assert.Contains(t, usage.Msg, tc.want, "%v", tc.args)
	}
}

// run --file takes the path as a shell gives it: as registered, with a
// leading ./, absolute, or relative to a working directory below the root.
// A path naming no file says so, apart from a file that is not registered.
func TestRunFile_ThePathAsAShellGivesIt(t *testing.T) {
	root := execRepo(t, map[string]string{
		"tests/e2e/test_a.py":   "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h100', labels=['megatron'])\n",
		"tests/e2e/helper.py":   "x = 1\n",
		"tests/e2e/sub/keep.py": "x = 1\n",
	})
	root, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	const header = "File run: tests/e2e/test_a.py\n"
	for _, tc := range []struct{ cwd, arg string }{
		{root, "tests/e2e/test_a.py"},
		{root, "./tests/e2e/test_a.py"},
		{root, "tests/e2e/../e2e/test_a.py"},
		{"/", filepath.Join(root, "tests/e2e/test_a.py")},
		{filepath.Join(root, "tests/e2e"), "test_a.py"},
		{filepath.Join(root, "tests/e2e/sub"), "../test_a.py"},
		{"/", "tests/e2e/test_a.py"}, // relative to the root, from anywhere
	} {
		t.Chdir(tc.cwd)
		status, out, stderr := runFileMain(root, nil, tc.arg, "--list-only")
		assert.Equal(t, 0, status, "%+v: %s", tc, stderr)
		assert.Contains(t, out, header, "%+v", tc)
	}

	t.Chdir(filepath.Join(root, "tests"))
	for arg, want := range map[string]string{
		"e2e/helper.py":      "error: tests/e2e/helper.py has no CI registration; /rerun-test runs only registered test files\n",
		"e2e/test_gone.py":   "error: --file e2e/test_gone.py: no such file (looked for " + root + "/e2e/test_gone.py and " + root + "/tests/e2e/test_gone.py)\n",
		"../../elsewhere.py": "error: --file ../../elsewhere.py is not below the repository root " + root + "\n",
		"/etc/passwd":        "error: --file /etc/passwd is not below the repository root " + root + "\n",
	} {
		status, out, stderr := runFileMain(root, nil, arg, "--list-only")
		assert.Equal(t, 1, status, arg)
		assert.Equal(t, want, stderr, arg)
		assert.Empty(t, out, arg)
	}
}

// A run's time limit comes from the flags, except a file run's without
// --timeout-per-file, which starts from the configured minimum; nothing
// of the configuration is written back into the options.
func TestRunOptions_LimitsTakeTheFileRunMinimumOnlyWhenNotGiven(t *testing.T) {
	cfg := &config.Config{FileRun: config.FileRun{MinTimeout: 900}}
	for _, tc := range []struct {
		name       string
		file       string
		timeoutSet bool
		want       int
	}{
		{"suite run, flag's default", "", false, 1800},
		{"suite run, flag given", "", true, 1800},
		{"file run, flag not given: the configured minimum", "t.py", false, 900},
		{"file run, flag given", "t.py", true, 1800},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := &RunOptions{File: tc.file, timeoutSet: tc.timeoutSet, Limits: runner.Limits{TimeoutPerFile: 1800, MaxAttempts: 2}}
			got := opts.limits(cfg)
			assert.Equal(t, tc.want, got.TimeoutPerFile)
			assert.Equal(t, 2, got.MaxAttempts, "the other limits are the flags'")
			assert.Equal(t, 1800, opts.TimeoutPerFile, "the options keep the flag's value")
		})
	}
}

// run and partition read the configuration through their Options.Config,
// once, as gh's commands do: a test can hand them one without a file.
func TestRunAndPartition_ReadTheConfigurationOnceThroughOptions(t *testing.T) {
	f, _, _ := suitesFactory(runRepo, nil)
	loads := 0
	load := func() (*config.Config, error) { loads++; return f.Config() }

	ro, err := parseRun(t, "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only")
	require.NoError(t, err)
	ro.Config = load
	require.NoError(t, runRun(context.Background(), f, ro))
	assert.Equal(t, 1, loads, "run")

	po, err := parsePartition(t, "--suite", "stage-c-8-gpu-h100")
	require.NoError(t, err)
	po.Config = load
	require.NoError(t, partitionRun(context.Background(), f, po))
	assert.Equal(t, 2, loads, "partition")

	ro, err = parseRun(t, "--file", "tests/e2e/misc/test_lora_é.py", "--list-only")
	require.NoError(t, err)
	ro.Config = load
	require.NoError(t, runRun(context.Background(), f, ro))
	assert.Equal(t, 3, loads, "run --file")

	refused := errors.New("no configuration here")
	ro.Config = func() (*config.Config, error) { return nil, refused }
	assert.ErrorIs(t, runRun(context.Background(), f, ro), refused)
}
