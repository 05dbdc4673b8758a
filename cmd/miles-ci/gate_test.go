package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// gateTest passes and leaves a metric record, for the gate to evaluate.
var gateTest = testutil.ShellTest(registration, `echo '{"metric": "loss", "series": [[1, 0.5]]}' > "$MILES_CI_GATE_RECORD_DIR/r.jsonl"`)

// gateHangBound is how long a run of two one-line tests may take before a
// test calls it hung: the gate's timeout is ten times as long, so a run
// within it did not wait for the timeout, and a loaded machine needs a
// fraction of it to start the processes.
const gateHangBound = 60 * time.Second

// startGateRun starts miles-ci running two passing tests of a CUDA suite
// with NEON_DATABASE_URL set, its gate the hostile one doing acts with a
// timeout of ten minutes, and a JSON report; it returns the command and the
// report's path. The tests' python3 is sh; the gate's is python3.
func startGateRun(t *testing.T, gate *testutil.HostileGate, acts string, out *bytes.Buffer, env ...string) (*exec.Cmd, string) {
	t.Helper()
	python := testutil.NeedPython(t)
	overlay := "extends: default\ngate:\n  python: " + python + "\n  hook: hostilegate:hook\n  store: hostilegate:build_store\n" +
		"  provenance: hostilegate:provenance\n  registry: hostilegate:registry\n  timeout: 600\n"
	tree := map[string]string{
		".miles-ci.yaml":           overlay,
		"hostilegate.py":           testutil.HostileGateSource(t),
		"tests/fast-gpu/test_a.py": gateTest,
		"tests/fast-gpu/test_b.py": gateTest,
	}
	report := filepath.Join(t.TempDir(), "r.json")
	env = append(append(env, "NEON_DATABASE_URL=postgres://nowhere"), gate.Env(acts, "stage-b-2-gpu-h200")...)
	cmd, _ := startRunTree(t, env, tree, out, out, "--continue-on-error", "--json-report", report)
	return cmd, report
}

// waitGateRun waits for cmd, at most gateHangBound, and returns its exit
// status.
func waitGateRun(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		require.NoError(t, err)
		return 0
	case <-time.After(gateHangBound):
		t.Fatalf("miles-ci did not end within %s:\n%s", gateHangBound, out)
		return -1
	}
}

// gateReport is what the tests read of a JSON report.
type gateReport struct {
	Passed      bool `json:"passed"`
	Interrupted bool `json:"interrupted"`
	Files       []struct {
		File   string `json:"file"`
		Status string `json:"status"`
	} `json:"files"`
}

func readGateReport(t *testing.T, path string) (gateReport, []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err, "the report was not written")
	var rep gateReport
	require.NoError(t, json.Unmarshal(data, &rep))
	var statuses []string
	for _, f := range rep.Files {
		statuses = append(statuses, f.File+" "+f.Status)
	}
	return rep, statuses
}

// TestGate_AHostileGateNeverHangsNorFailsARun checks the promise that a
// broken gate never changes a verdict, with the gates that hung runs: one
// that closes the adapter's answer pipe and blocks, one that leaves a
// daemon in a new session holding the pipes, one that dies leaving a child
// holding its output. Each run of passing tests passes (exit 0) long before
// the gate's timeout, writes its report, and leaves nothing of the gate
// running.
func TestGate_AHostileGateNeverHangsNorFailsARun(t *testing.T) {
	t.Parallel()
	for _, acts := range []string{"closefd,block", "daemon", "fork"} {
		t.Run(acts, func(t *testing.T) {
			t.Parallel()
			gate := testutil.NewHostileGate(t)
			var out bytes.Buffer
			cmd, report := startGateRun(t, gate, acts, &out)
			assert.Equal(t, 0, waitGateRun(t, cmd, &out), "exit status; output:\n%s", &out)
			rep, statuses := readGateReport(t, report)
			assert.True(t, rep.Passed)
			assert.Equal(t, []string{"tests/fast-gpu/test_a.py PASS", "tests/fast-gpu/test_b.py PASS"}, statuses)
			assert.Empty(t, gate.Left(t), "processes of the gate outlived miles-ci")
		})
	}
}

// TestGate_SIGTERMEndsAHungGateCall checks SIGTERM while a gate call hangs
// (the hook left a daemon holding the pipes and blocks; the gate's timeout
// is ten minutes): miles-ci exits 128 + the signal promptly, on the orderly
// path (the forced exit is ten minutes away), with its report written and
// nothing of the gate left.
func TestGate_SIGTERMEndsAHungGateCall(t *testing.T) {
	t.Parallel()
	gate := testutil.NewHostileGate(t)
	var out bytes.Buffer
	cmd, report := startGateRun(t, gate, "daemon,block", &out, "MILES_CI_TEST_FORCE_EXIT_AFTER=10m")
	require.Eventually(t, func() bool {
		_, err := os.Stat(gate.Path("blocked"))
		return err == nil
	}, gateHangBound, 10*time.Millisecond, "the gate's hook never blocked:\n%s", &out)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 128+int(syscall.SIGTERM), waitGateRun(t, cmd, &out), "exit status; output:\n%s", &out)
	rep, statuses := readGateReport(t, report)
	assert.True(t, rep.Interrupted)
	assert.Equal(t, []string{"tests/fast-gpu/test_a.py PASS", "tests/fast-gpu/test_b.py NOT RUN"}, statuses)
	assert.Empty(t, gate.Left(t), "processes of the gate outlived miles-ci")
}
