package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// gpuOnPath returns a PATH whose nvidia-smi is testdata/gpu's fake behind
// a switch: while the file broken exists in dir the fake never answers
// (FAKE_GPU_MODE=fail), as a GPU that fell into error 802 mid-run; the
// rest of PATH is the test's, python3 being sh.
func gpuOnPath(t *testing.T) (path, broken string) {
	t.Helper()
	dir := t.TempDir()
	fake := filepath.Join(testutil.ModuleRoot(t), "testdata", "gpu", "nvidia-smi")
	broken = filepath.Join(dir, "broken")
	script := "#!/bin/sh\n[ -e '" + broken + "' ] && export FAKE_GPU_MODE=fail\nexec '" + fake + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755))
	return dir + string(os.PathListSeparator) + testutil.ShellAsPython(t), broken
}

// infraTest prints CUDA's error 802 the first time it runs (and, when
// BREAK names a file, makes the GPU tool fail from then on), then passes.
var infraTest = testutil.ShellTest(registration, `if [ ! -e "$0.ran" ]; then
    : > "$0.ran"
    [ -n "$BREAK" ] && : > "$BREAK"
    echo "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"
    exit 1
fi
echo passed`)

var passingTest = testutil.ShellTest(registration, `echo passed`)

// runInfra runs the suite of tree with the GPU tool of path and returns
// the exit status, the report and the combined output.
func runInfra(t *testing.T, tree map[string]string, env []string, extra ...string) (int, *report.Report, string) {
	t.Helper()
	rep := filepath.Join(t.TempDir(), "report.json")
	var out bytes.Buffer
	cmd, _ := startRunTree(t, env, tree, &out, &out,
		append([]string{"--json-report", rep, "--preflight-timeout", "1s"}, extra...)...)
	code := 0
	var exit *exec.ExitError
	if err := cmd.Wait(); errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err, out.String())
	}
	doc, err := report.Read(rep)
	require.NoError(t, err, out.String())
	return code, doc, out.String()
}

// TestInfra_Error802OnAHostThatRecoversIsAFlakyPassWithCauseInfra is issue
// 28's acceptance with the GPU tool on PATH: the test prints CUDA's error
// 802 once, the preflight finds the host ready again, and with
// --enable-retry the file passes on its retry: FLAKY, its failed attempt's
// cause infra with the line that said so.
func TestInfra_Error802OnAHostThatRecoversIsAFlakyPassWithCauseInfra(t *testing.T) {
	t.Parallel()
	path, _ := gpuOnPath(t)
	tree := map[string]string{"tests/fast-gpu/test_a.py": infraTest, "tests/fast-gpu/test_b.py": passingTest}
	code, doc, out := runInfra(t, tree, []string{"PATH=" + path},
		"--enable-retry", "--retry-wait-seconds", "0")
	require.Equal(t, 0, code, out)
	require.Len(t, doc.Files, 2)
	a := doc.Files[0]
	assert.Equal(t, report.Pass, a.Status)
	assert.True(t, a.Flaky, "it failed, then passed")
	require.Len(t, a.AttemptsDetail, 2)
	assert.Equal(t, report.CauseInfra, a.AttemptsDetail[0].Cause)
	assert.Equal(t, "cuda-802", a.AttemptsDetail[0].Fingerprint)
	assert.Contains(t, a.AttemptsDetail[0].CauseLine, "Error 802: system not yet initialized")
	assert.Equal(t, report.Pass, doc.Files[1].Status)
	assert.False(t, doc.HostNotReady)
	var when []string
	for _, p := range doc.Preflights {
		assert.Equal(t, report.PreflightReady, p.Status, p.When)
		when = append(when, p.When)
	}
	assert.Equal(t, []string{"start", "after tests/fast-gpu/test_a.py attempt 1"}, when)
	assert.Contains(t, out, "[CI Preflight] ready: 8 GPUs")
}

// TestInfra_Error802OnAHostThatStaysBrokenStopsTheRunWith75: the GPU tool
// fails from the first infra failure on, so the preflight that follows it
// finds the host not ready: the run stops with the preflight's status, and
// the files left say why they were not run instead of failing one by one.
func TestInfra_Error802OnAHostThatStaysBrokenStopsTheRunWith75(t *testing.T) {
	t.Parallel()
	path, broken := gpuOnPath(t)
	tree := map[string]string{"tests/fast-gpu/test_a.py": infraTest, "tests/fast-gpu/test_b.py": passingTest,
		"tests/fast-gpu/test_c.py": passingTest}
	code, doc, out := runInfra(t, tree, []string{"PATH=" + path, "BREAK=" + broken},
		"--enable-retry", "--retry-wait-seconds", "0", "--continue-on-error")
	assert.Equal(t, 75, code, out)
	assert.True(t, doc.HostNotReady)
	require.Len(t, doc.Files, 3)
	assert.Equal(t, report.Fail, doc.Files[0].Status)
	assert.Equal(t, report.CauseInfra, doc.Files[0].Cause)
	assert.Equal(t, 1, doc.Files[0].Attempts, "no retry on a host that is not ready")
	for _, f := range doc.Files[1:] {
		assert.Equal(t, report.NotRun, f.Status, f.File)
		assert.Equal(t, "not run: host not ready", f.Reason, f.File)
	}
	require.Len(t, doc.Preflights, 2)
	last := doc.Preflights[1]
	assert.Equal(t, report.PreflightNotReady, last.Status)
	assert.Equal(t, "after tests/fast-gpu/test_a.py attempt 1", last.When)
	assert.Equal(t, "Failed to initialize NVML: Unknown Error", last.LastWords)
	assert.False(t, strings.Contains(out, "test_b.py\npassed"), "no later file ran: %s", out)
}
