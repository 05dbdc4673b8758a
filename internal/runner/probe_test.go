package runner

import (
	"context"
	"os"
	"path/filepath"
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

// probing is fakePreflight with the fake probe (testdata/gpu/fake-probe)
// run with args, and the built-in configuration's CUDA fingerprints.
func probing(t *testing.T, env []string, args ...string) Preflight {
	t.Helper()
	p := fakePreflight(t, "cuda", env...)
	p.Probe = config.Probe{Argv: append([]string{"fake-probe"}, args...), Timeout: 30 * time.Second}
	for _, f := range config.InfraFingerprintsFor(config.Default().InfraFingerprints, config.CUDA) {
		p.Fingerprints = append(p.Fingerprints, Fingerprint{Name: f.Name, Pattern: f.Regexp})
	}
	return p
}

func TestPreflight_AProbeThatPassesKeepsTheHostReady(t *testing.T) {
	pf, gpus := probing(t, nil, "ok").CheckGPUs(context.Background(), "start")
	assert.Equal(t, report.PreflightReady, pf.Status)
	assert.Equal(t, "", pf.Reason)
	assert.Equal(t, "", pf.FailedCheck)
	require.NotNil(t, pf.Probe)
	assert.Equal(t, report.ProbePassed, pf.Probe.Status)
	assert.Equal(t, []string{"fake-probe", "ok"}, pf.Probe.Argv, "as configured, not as found on PATH")
	assert.Equal(t, "tensor(1., device='cuda:0')", pf.Probe.LastWords)
	assert.GreaterOrEqual(t, pf.Elapsed, pf.Probe.Elapsed, "the check's time counts the probe's")
	assert.Len(t, gpus, 8)
}

// The GPU tool answers, CUDA does not (radixark/miles#2542): the probe
// makes the host not ready, and the record blames the probe, in its words.
func TestPreflight_AProbeThatFailsMakesTheHostNotReady(t *testing.T) {
	p := probing(t, nil, "802")
	p.Sleep = func(context.Context, time.Duration) error { t.Error("a failed probe is not waited out"); return nil }
	pf, _ := p.CheckGPUs(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, report.CheckProbe, pf.FailedCheck)
	assert.Equal(t, "the probe exited with status 1; its output matched the infra fingerprint cuda-802", pf.Reason)
	assert.Equal(t, "CUDA error 802: system not yet initialized", pf.LastWords)
	assert.Equal(t, "the probe", pf.Speaker())
	assert.Equal(t, 8, pf.GpusFound, "the GPU tool's check passed")
	assert.Equal(t, report.ProbeFailed, pf.Probe.Status)
	assert.Equal(t, "cuda-802", pf.Probe.Fingerprint)
	assert.Equal(t, 1, pf.Tries)
}

func TestPreflight_AProbeWhoseOutputMatchesAFingerprintFailsThoughItExits0(t *testing.T) {
	pf, _ := probing(t, nil, "swallowed").CheckGPUs(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, "the probe's output matched the infra fingerprint cuda-802", pf.Reason)
	assert.Equal(t, "CUDA error 802: system not yet initialized", pf.LastWords)

	p := probing(t, nil, "swallowed")
	p.Fingerprints = nil
	pf, _ = p.CheckGPUs(context.Background(), "start")
	assert.Equal(t, report.PreflightReady, pf.Status, "with infra_fingerprints: [] only the exit status counts")
}

// A probe that ignores SIGTERM and leaves a child that does too is killed
// with its process group at its timeout: the check ends, not ready, and
// nothing of the probe is left running.
func TestPreflight_AHungProbeIsKilledAtItsTimeoutAndLeavesNoProcess(t *testing.T) {
	testutil.NeedLinux(t, "process groups and /proc")
	pids := filepath.Join(t.TempDir(), "pids")
	p := probing(t, nil, "hang", pids)
	t.Cleanup(func() { killProbe(pids) })
	// The timeout is short, for a quick test, but the probe must have
	// written its pids before it ends it: a loaded machine can take
	// longer than that to start a shell, and the check is then asked
	// again with twice the time, until the probe has.
	var pf report.Preflight
	for p.Probe.Timeout = 300 * time.Millisecond; ; p.Probe.Timeout *= 2 {
		done := make(chan report.Preflight, 1)
		go func() { pf, _ := p.CheckGPUs(context.Background(), "start"); done <- pf }()
		select {
		case pf = <-done:
		case <-time.After(p.Probe.Timeout + 60*time.Second):
			t.Fatalf("the check did not end: the hung probe was not killed at its %s timeout", p.Probe.Timeout)
		}
		if _, err := os.Stat(pids); err == nil || p.Probe.Timeout > 30*time.Second {
			break
		}
	}
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, report.CheckProbe, pf.FailedCheck)
	assert.Equal(t, "the probe timed out after "+p.Probe.Timeout.String(), pf.Reason)
	probe, child := probePids(t, pids)
	assert.Empty(t, testutil.LeftRunning("", probe), "the probe's process group")
	assert.False(t, testutil.Alive(probe), "the probe %d", probe)
	assert.False(t, testutil.Alive(child), "the probe's child %d", child)
}

// The probe runs only where the GPU tool found the host ready: a host
// whose tool fails is blamed on the tool, the probe not run.
func TestPreflight_AProbeDoesNotRunWhenTheGPUToolFails(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "pids")
	p := probing(t, []string{"FAKE_GPU_COUNT=2"}, "hang", pids)
	pf, _ := p.CheckGPUs(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, report.CheckGPUTool, pf.FailedCheck)
	assert.Equal(t, "nvidia-smi listed 2 GPU(s); the suite needs 8", pf.Reason)
	assert.Equal(t, "nvidia-smi", pf.Speaker())
	assert.Equal(t, report.ProbeNotRun, pf.Probe.Status)
	assert.NoFileExists(t, pids, "the probe did not start")

	skipped := Preflight{Backend: "cuda", Path: t.TempDir(), Preflight: config.Preflight{Probe: config.Probe{Argv: []string{"fake-probe", "802"}}}}
	pf = skipped.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightSkipped, pf.Status, "no GPU tool, no check: the run goes on as without a preflight")
	assert.Equal(t, "", pf.FailedCheck)
	assert.Equal(t, report.ProbeNotRun, pf.Probe.Status)
}

func TestPreflight_AProbeNotOnPathFails(t *testing.T) {
	p := probing(t, nil)
	p.Probe.Argv = []string{"no-such-probe", "x"}
	pf := p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, "the probe's program no-such-probe is not on PATH", pf.Reason)
}

// A configuration without a probe records what it did before probes: no
// probe, no failed_check.
func TestPreflight_WithoutAProbeTheRecordIsUnchanged(t *testing.T) {
	pf := fakePreflight(t, "cuda", "FAKE_GPU_COUNT=2").Check(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Nil(t, pf.Probe)
	assert.Equal(t, "", pf.FailedCheck)
}

// probePids reads the probe's and its child's pids from pidfile.
func probePids(t *testing.T, pidfile string) (probe, child int) {
	t.Helper()
	data, err := os.ReadFile(pidfile)
	require.NoError(t, err)
	f := strings.Fields(string(data))
	require.Len(t, f, 2, "the probe writes its pid and its child's")
	probe, err = strconv.Atoi(f[0])
	require.NoError(t, err)
	child, err = strconv.Atoi(f[1])
	require.NoError(t, err)
	return probe, child
}

// killProbe kills what a hung fake probe left, should a test fail with
// it running.
func killProbe(pidfile string) {
	data, _ := os.ReadFile(pidfile)
	for _, l := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(l); err == nil && pid > 0 && testutil.Alive(pid) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
