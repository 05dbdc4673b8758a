package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// runOnFakeGPUs runs the report suite (two files, on a 2gpu runner) with
// the fake GPU tools of testdata/gpu first on PATH (gpuDir "" leaves them
// out), fake (FAKE_GPU_*=...) in their environment, and returns the exit
// status, stdout, stderr and the JSON report.
func runOnFakeGPUs(t *testing.T, gpuDir string, env map[string]string, fake []string, args ...string) (int, string, string, *report.Report, string) {
	t.Helper()
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", ""), "tests/e2e/test_b.py": gpuTest("b", "")})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	if env == nil {
		env = map[string]string{}
	}
	env["PATH"] = gpuDir
	f, out, errOut := shellFactory(root, env)
	f.Environ = func() []string { return append(os.Environ(), fake...) }
	code := Main(append([]string{"--root", root}, runArgs(append([]string{"--json-report", jsonPath}, args...)...)...), f)
	rep, err := report.Read(jsonPath)
	require.NoError(t, err, errOut.String())
	return code, out.String(), errOut.String(), rep, root
}

func fakeGPUDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/gpu")
	require.NoError(t, err)
	return dir
}

func TestRun_AHostThatIsNotReadyRunsNoTestAndExits75(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	code, stdout, stderr, rep, root := runOnFakeGPUs(t, fakeGPUDir(t),
		map[string]string{"GITHUB_ACTIONS": "true", "RUNNER_NAME": "h200-runner-3", "GITHUB_STEP_SUMMARY": summary},
		[]string{"FAKE_GPU_MODE=fail"}, "--preflight-timeout", "300ms")
	require.Equal(t, exitHostNotReady, code, stderr)
	assert.Nil(t, ranLog(t, root), "no test ran")
	host, _ := os.Hostname()
	assert.Contains(t, stdout, "::error title=GPU preflight%3A host not ready::host not ready on h200-runner-3 ("+host+"): "+
		"not ready within 300ms: nvidia-smi exited with status 255; nvidia-smi said: Failed to initialize NVML: Unknown Error.")
	assert.Regexp(t, `\[CI Preflight\] host not ready on h200-runner-3 .*\(1 try, \d+\.\ds\); no further test runs here\n`, stdout)
	assert.True(t, rep.HostNotReady)
	require.Len(t, rep.Preflights, 1)
	pf := rep.Preflights[0]
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, "start", pf.When)
	assert.Equal(t, 2, pf.GpusNeeded, "runs_on [h200, 2gpu]")
	assert.Equal(t, "Failed to initialize NVML: Unknown Error", pf.LastWords)
	for _, f := range rep.Files {
		assert.Equal(t, report.NotRun, f.Status)
		assert.Equal(t, "not run: host not ready", f.Reason)
	}
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "**Host not ready:** not ready within 300ms: nvidia-smi exited with status 255 (preflight start, 1 try, ")
}

func TestRun_AReadyHostLogsOneLineAndRunsTheTests(t *testing.T) {
	code, stdout, stderr, rep, root := runOnFakeGPUs(t, fakeGPUDir(t), map[string]string{"RUNNER_NAME": "h200-runner-3"}, nil)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"a", "b"}, ranLog(t, root))
	assert.Regexp(t, `(?m)^\[CI Preflight\] ready: 8 GPUs \(NVIDIA H100 80GB HBM3\) on h200-runner-3 \(.*\), 1 try, \d+\.\ds$`, stdout)
	require.Len(t, rep.Preflights, 1)
	assert.Equal(t, report.PreflightReady, rep.Preflights[0].Status)
	assert.False(t, rep.HostNotReady)
}

func TestRun_AForeignProcessIsAWarningByDefault(t *testing.T) {
	code, stdout, stderr, rep, _ := runOnFakeGPUs(t, fakeGPUDir(t), map[string]string{"GITHUB_ACTIONS": "true"},
		[]string{"FAKE_GPU_FOREIGN=4242,python3,30512"})
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "::warning title=GPU preflight::process 4242 (python3) holds 30512 MiB on GPU GPU-fake-0 on ")
	assert.Equal(t, []report.ForeignProcess{{PID: 4242, Name: "python3", GPU: "GPU-fake-0", UsedMiB: 30512}}, rep.Preflights[0].Foreign)
}

// A process's name is anyone's: its terminal escapes reach neither the
// log line nor the annotation, the report keeps the name as the tool said.
func TestRun_AForeignProcessNameWritesNoEscape(t *testing.T) {
	name := "py\x1b[2J\x1b]0;t\x07thon"
	code, stdout, stderr, rep, _ := runOnFakeGPUs(t, fakeGPUDir(t), map[string]string{"GITHUB_ACTIONS": "true"},
		[]string{"FAKE_GPU_FOREIGN=4242," + name + ",30512"})
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "\x1b")
	assert.NotContains(t, stdout, "\x07")
	assert.Contains(t, stdout, `[CI Preflight] warning: process 4242 (py\x1b[2J\x1b]0;t\x07thon) holds 30512 MiB`)
	assert.Contains(t, stdout, `::warning title=GPU preflight::process 4242 (py\x1b[2J\x1b]0;t\x07thon) holds 30512 MiB`)
	assert.Equal(t, name, rep.Preflights[0].Foreign[0].Name)
}

// Without a GPU tool on PATH the preflight is skipped and the run's output
// is what it was before the preflight: nothing is added.
func TestRun_WithoutAGPUToolThePreflightAddsNoOutput(t *testing.T) {
	elapsed := regexp.MustCompile(`(elapsed=|Time elapsed: )[0-9.]+`)
	code, with, stderrWith, rep, rootWith := runOnFakeGPUs(t, t.TempDir(), nil, nil)
	require.Equal(t, 0, code, stderrWith)
	code, without, stderrWithout, _, rootWithout := runOnFakeGPUs(t, t.TempDir(), nil, nil, "--no-preflight")
	require.Equal(t, 0, code, stderrWithout)
	norm := func(s, root string) string {
		return elapsed.ReplaceAllString(strings.ReplaceAll(s, root, "ROOT"), "${1}X")
	}
	assert.Equal(t, norm(without, rootWithout), norm(with, rootWith))
	assert.Equal(t, stderrWithout, stderrWith)
	require.Len(t, rep.Preflights, 1, "the report still says why nothing was checked")
	assert.Equal(t, report.PreflightSkipped, rep.Preflights[0].Status)
	assert.Equal(t, "nvidia-smi not found on PATH", rep.Preflights[0].Reason)
}

// In a GitHub Actions job a GPU suite runs on a GPU runner: no GPU tool on
// PATH is a host not ready (exit 75), as Miles' "Wait for GPU ready" step
// failed there, and --no-preflight still turns the check off.
func TestRun_InAGitHubActionsJobAHostWithoutAGPUToolIsNotReady(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	code, stdout, stderr, rep, root := runOnFakeGPUs(t, t.TempDir(),
		map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "1658821493", "RUNNER_NAME": "h200-runner-3", "GITHUB_STEP_SUMMARY": summary}, nil)
	require.Equal(t, exitHostNotReady, code, stderr)
	assert.Nil(t, ranLog(t, root), "no test ran")
	host, _ := os.Hostname()
	assert.Contains(t, stdout, "\n::error title=GPU preflight%3A host not ready::host not ready on h200-runner-3 ("+host+"): "+
		"nvidia-smi not found on PATH; a GPU suite in GitHub Actions needs its GPU tool (run --no-preflight to go without the check). No further test ran on this host")
	assert.Contains(t, stdout, "\n[CI Preflight] host not ready on h200-runner-3 ("+host+"): nvidia-smi not found on PATH; ")
	assert.True(t, rep.HostNotReady)
	require.Len(t, rep.Preflights, 1)
	assert.Equal(t, report.PreflightNotReady, rep.Preflights[0].Status)
	assert.Equal(t, "nvidia-smi not found on PATH", rep.Preflights[0].Reason)
	assert.Equal(t, 0, rep.Preflights[0].Tries)
	for _, f := range rep.Files {
		assert.Equal(t, "not run: host not ready", f.Reason)
	}
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "**Host not ready:** nvidia-smi not found on PATH (preflight start). ")

	code, stdout, stderr, rep, root = runOnFakeGPUs(t, t.TempDir(), map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "1658821493"}, nil, "--no-preflight")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"a", "b"}, ranLog(t, root))
	assert.NotContains(t, stdout, "[CI Preflight]")
	assert.Nil(t, rep.Preflights)

	// GITHUB_ACTIONS=true alone asks for the workflow commands only (a
	// developer, or the Python scripts' recorded cases): the run goes on
	// as the Python's, the check skipped.
	code, stdout, stderr, rep, root = runOnFakeGPUs(t, t.TempDir(), map[string]string{"GITHUB_ACTIONS": "true"}, nil)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"a", "b"}, ranLog(t, root))
	assert.Contains(t, stdout, "\n::group::tests/e2e/test_a.py  (1/2 est=")
	assert.NotContains(t, stdout, "[CI Preflight]")
	require.Len(t, rep.Preflights, 1)
	assert.Equal(t, report.PreflightSkipped, rep.Preflights[0].Status)
}

func TestRun_NoPreflightAndListOnlyAskNoGPUTool(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	code, _, stderr, rep, _ := runOnFakeGPUs(t, fakeGPUDir(t), nil, []string{"FAKE_GPU_PIDFILE=" + pids, "FAKE_GPU_MODE=fail"}, "--no-preflight")
	require.Equal(t, 0, code, stderr)
	assert.Nil(t, rep.Preflights)
	// The host's own GPU query (one call) still runs; no preflight call does.
	data, _ := os.ReadFile(pids)
	assert.Len(t, regexp.MustCompile(`\d+`).FindAllString(string(data), -1), 1)

	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	f, out, errOut := shellFactory(root, map[string]string{"PATH": fakeGPUDir(t)})
	f.Environ = func() []string { return append(os.Environ(), "FAKE_GPU_PIDFILE="+pids+".list") }
	require.Equal(t, 0, Main(append([]string{"--root", root}, runArgs("--list-only")...), f), errOut.String())
	assert.NotContains(t, out.String(), "[CI Preflight]")
	assert.NoFileExists(t, pids+".list")
}

func TestRun_PreflightFlagsAreChecked(t *testing.T) {
	for args, msg := range map[string][]string{
		"error: --preflight-timeout must be positive, as 120s or 2m, got 0s\n":                        {"--preflight-timeout", "0"},
		"error: --preflight-timeout must be positive, as 120s or 2m, got -1s\n":                       {"--preflight-timeout=-1s"},
		"error: --no-preflight turns the preflight off; it cannot be used with --preflight-timeout\n": {"--no-preflight", "--preflight-timeout", "1m"},
	} {
		code, _, stderr := miles(t, t.TempDir(), nil, runArgs(msg...)...)
		assert.Equal(t, exitUsage, code, msg)
		assert.Contains(t, stderr, args)
	}
}

// The report's preflight keys are documented in `miles-ci help reports`.
func TestRun_PreflightKeysAreDocumented(t *testing.T) {
	_, _, _, rep, _ := runOnFakeGPUs(t, fakeGPUDir(t), nil, []string{"FAKE_GPU_FOREIGN=1,x,1"})
	data, err := json.Marshal(rep.Preflights[0])
	require.NoError(t, err)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(data, &keys))
	code, doc, stderr := miles(t, t.TempDir(), nil, "help", "reports")
	require.Equal(t, 0, code, stderr)
	for k := range keys {
		assert.Contains(t, doc, `"`+k+`"`, "help reports does not document the preflight key %q", k)
	}
	for _, k := range []string{"preflights", "host_not_ready", "pid", "used_mib"} {
		assert.Contains(t, doc, `"`+k+`"`)
	}
}

// --preflight-timeout bounds every call of the check, whatever the
// configuration's query_timeout: with 2s against 60s, a process list that
// hangs ends at the check's deadline, the record naming that deadline
// (by default the list only warns, and the tests run).
func TestRun_ThePreflightTimeoutBoundsAHungProcessList(t *testing.T) {
	testutil.SkipShort(t, "a run that waits out the preflight's 2 s deadline")
	pids := filepath.Join(t.TempDir(), "pids")
	t.Cleanup(func() { killFakeGroups(pids) })
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", ""),
		config.FileName: "extends: default\npreflight:\n  query_timeout: 60s\n"})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	f, _, errOut := shellFactory(root, map[string]string{"PATH": fakeGPUDir(t)})
	f.Environ = func() []string { return append(os.Environ(), "FAKE_GPU_PROCS=hang", "FAKE_GPU_PIDFILE="+pids) }
	done := make(chan int, 1)
	go func() {
		done <- Main(append([]string{"--root", root}, runArgs("--json-report", jsonPath, "--preflight-timeout", "2s")...), f)
	}()
	select {
	case code := <-done:
		require.Equal(t, 0, code, errOut.String())
	case <-time.After(30 * time.Second):
		t.Fatal("run did not end within 30s: --preflight-timeout 2s did not bound the process list's call")
	}
	rep, err := report.Read(jsonPath)
	require.NoError(t, err)
	require.Len(t, rep.Preflights, 1)
	pf := rep.Preflights[0]
	assert.Equal(t, report.PreflightReady, pf.Status)
	assert.Equal(t, "nvidia-smi timed out at the preflight's 2s deadline", pf.ForeignError)
	assert.Equal(t, []string{"a"}, ranLog(t, root))
}

// killFakeGroups kills the process group of every fake GPU tool that
// wrote its pid to pidfile: a test that fails while one hangs leaves
// nothing running.
func killFakeGroups(pidfile string) {
	data, _ := os.ReadFile(pidfile)
	for _, l := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(l); err == nil && pid > 0 {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}
