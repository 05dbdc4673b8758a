package runner

import (
	"bytes"
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

// fakeGPUDir holds the fake nvidia-smi and amd-smi (see their comments for
// the environment that drives them).
func fakeGPUDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../testdata/gpu")
	require.NoError(t, err)
	return dir
}

// fakePreflight is a preflight of backend asking the fakes, first on
// PATH, with env (FAKE_GPU_*) and short bounds a test can wait for.
func fakePreflight(t *testing.T, backend string, env ...string) Preflight {
	t.Helper()
	path := fakeGPUDir(t) + string(os.PathListSeparator) + "/usr/bin:/bin"
	return Preflight{Backend: backend, Path: path, Env: append([]string{"PATH=" + path}, env...),
		Preflight:  config.Preflight{Timeout: 30 * time.Second, Interval: 10 * time.Millisecond, QueryTimeout: 10 * time.Second},
		GPUsNeeded: 8}
}

func TestPreflight_AHealthyHostIsReadyOnTheFirstTry(t *testing.T) {
	pf, gpus := fakePreflight(t, "cuda").CheckGPUs(context.Background(), "start")
	assert.Equal(t, report.PreflightReady, pf.Status)
	assert.Equal(t, "start", pf.When)
	assert.Equal(t, "nvidia-smi", pf.Tool)
	assert.Equal(t, "", pf.Reason)
	assert.Equal(t, "", pf.LastWords)
	assert.Equal(t, 1, pf.Tries)
	assert.Equal(t, 8, pf.GpusNeeded)
	assert.Equal(t, 8, pf.GpusFound)
	assert.Equal(t, []report.ForeignProcess{}, pf.Foreign, "none, and [] in the report")
	require.Len(t, gpus, 8)
	assert.Equal(t, "NVIDIA H100 80GB HBM3", gpus[7].Name)
}

func TestPreflight_Error802NTimesThenHealthyIsReadyAfterNPlusOneTries(t *testing.T) {
	state := filepath.Join(t.TempDir(), "calls")
	pf := fakePreflight(t, "cuda", "FAKE_GPU_FAILURES=3", "FAKE_GPU_STATE="+state).Check(context.Background(), "start")
	assert.Equal(t, report.PreflightReady, pf.Status)
	assert.Equal(t, 4, pf.Tries)
	assert.Equal(t, "Unable to determine the device handle for GPU0000:1B:00.0: Unknown Error", pf.LastWords,
		"the failure it waited out stays on record")
}

func TestPreflight_AToolThatNeverAnswersIsNotReadyWithItsLastWords(t *testing.T) {
	p := fakePreflight(t, "cuda", "FAKE_GPU_MODE=fail")
	p.Timeout, p.Interval = 300*time.Millisecond, 50*time.Millisecond
	pf := p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, "not ready within 300ms: nvidia-smi exited with status 255", pf.Reason)
	assert.Equal(t, "Failed to initialize NVML: Unknown Error", pf.LastWords)
	assert.GreaterOrEqual(t, pf.Tries, 1)
	assert.Equal(t, 0, pf.GpusFound)
}

func TestPreflight_AHungToolCostsItsBoundAndLeavesNoProcess(t *testing.T) {
	testutil.NeedLinux(t, "process groups and /proc")
	pids := filepath.Join(t.TempDir(), "pids")
	p := fakePreflight(t, "cuda", "FAKE_GPU_MODE=hang", "FAKE_GPU_PIDFILE="+pids)
	p.Timeout, p.QueryTimeout = 1500*time.Millisecond, 400*time.Millisecond
	pf := p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	// The last try ends at its own bound or, cut short, at the check's.
	assert.Regexp(t, `^not ready within 1.5s: nvidia-smi timed out (after 400ms|at the preflight's 1.5s deadline)$`, pf.Reason)
	assert.GreaterOrEqual(t, pf.Tries, 2, "a hung call ends at its bound, and the tool is asked again")
	// The tool sleeps 1000 s; the check's record shows it ended near its
	// 1.5 s bound (the slack is the kill's and the sweep's).
	assert.Less(t, pf.Elapsed, 15.0, "the hung tool was not stopped at its bound")
	data, err := os.ReadFile(pids)
	require.NoError(t, err)
	lines := strings.Fields(string(data))
	assert.Len(t, lines, pf.Tries, "one process per try")
	for _, l := range lines {
		pid, err := strconv.Atoi(l)
		require.NoError(t, err)
		assert.False(t, testutil.Alive(pid), "the hung tool %d was left running", pid)
	}
}

func TestPreflight_CancellingTheContextEndsTheCheckAtOnce(t *testing.T) {
	testutil.NeedLinux(t, "process groups and /proc")
	ctx, cancel := context.WithCancel(context.Background())
	p := fakePreflight(t, "cuda", "FAKE_GPU_MODE=hang")
	p.QueryTimeout = time.Hour
	p.Sleep = func(context.Context, time.Duration) error { t.Error("no second try after a cancel"); return nil }
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	pf := p.Check(ctx, "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, "interrupted", pf.Reason)
	assert.Equal(t, 1, pf.Tries)
}

func TestPreflight_TooFewGPUsIsNotReadyAtOnce(t *testing.T) {
	p := fakePreflight(t, "cuda", "FAKE_GPU_COUNT=2")
	p.Sleep = func(context.Context, time.Duration) error { t.Error("GPUs do not appear by waiting"); return nil }
	pf := p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, "nvidia-smi listed 2 GPU(s); the suite needs 8", pf.Reason)
	assert.Equal(t, 1, pf.Tries)
	assert.Equal(t, 2, pf.GpusFound)
}

func TestPreflight_MoreGPUsThanNeededOrNoCountIsReady(t *testing.T) {
	p := fakePreflight(t, "cuda", "FAKE_GPU_COUNT=8")
	p.GPUsNeeded = 4
	assert.Equal(t, report.PreflightReady, p.Check(context.Background(), "start").Status)
	p.GPUsNeeded = 0
	pf := p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightReady, pf.Status)
	assert.Equal(t, 0, pf.GpusNeeded)
}

func TestPreflight_AForeignProcessIsRecordedOrKeepsTheHostNotReady(t *testing.T) {
	foreign := []report.ForeignProcess{{PID: 4242, Name: "python3", GPU: "GPU-fake-0", UsedMiB: 30512}}
	p := fakePreflight(t, "cuda", "FAKE_GPU_FOREIGN=4242,python3,30512")
	pf := p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightReady, pf.Status, "by default a warning")
	assert.Equal(t, foreign, pf.Foreign)

	p.ForeignProcesses, p.Timeout, p.Interval = config.ForeignFail, 200*time.Millisecond, 50*time.Millisecond
	pf = p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, "not ready within 200ms: 1 process(es) of another job hold GPU memory", pf.Reason)
	assert.Equal(t, foreign, pf.Foreign)
}

func TestPreflight_NoToolOnPathIsSkipped(t *testing.T) {
	for backend, reason := range map[string]string{
		"cuda": "nvidia-smi not found on PATH",
		"rocm": "neither amd-smi nor rocm-smi found on PATH",
	} {
		pf := Preflight{Backend: backend, Path: t.TempDir()}.Check(context.Background(), "start")
		assert.Equal(t, report.PreflightSkipped, pf.Status, backend)
		assert.Equal(t, reason, pf.Reason, backend)
		assert.Equal(t, 0, pf.Tries, backend)
	}
}

// Where the tool is required (a GPU job in GitHub Actions), its absence is
// a host not ready, at once: waiting does not put a tool on PATH.
func TestPreflight_NoToolOnPathIsNotReadyWhenTheToolIsRequired(t *testing.T) {
	for backend, reason := range map[string]string{
		"cuda": "nvidia-smi not found on PATH",
		"rocm": "neither amd-smi nor rocm-smi found on PATH",
	} {
		slept := false
		pf := Preflight{Backend: backend, Path: t.TempDir(), ToolRequired: true,
			Sleep: func(context.Context, time.Duration) error { slept = true; return nil }}.Check(context.Background(), "start")
		assert.Equal(t, report.PreflightNotReady, pf.Status, backend)
		assert.Equal(t, reason, pf.Reason, backend)
		assert.Equal(t, 0, pf.Tries, backend)
		assert.False(t, slept, backend)
	}
}

func TestPreflight_ROCmAsksAmdSMIInEitherShape(t *testing.T) {
	for _, shape := range []string{"list", "gpu_data"} {
		p := fakePreflight(t, "rocm", "FAKE_AMD_SHAPE="+shape, "FAKE_GPU_FOREIGN=77,vllm,1024")
		p.GPUsNeeded = 4
		pf, gpus := p.CheckGPUs(context.Background(), "start")
		assert.Equal(t, report.PreflightReady, pf.Status, shape)
		assert.Equal(t, "amd-smi", pf.Tool, shape)
		assert.Equal(t, 4, pf.GpusFound, shape)
		assert.Equal(t, []report.ForeignProcess{{PID: 77, Name: "vllm", GPU: "0", UsedMiB: 1024}}, pf.Foreign, shape)
		require.Len(t, gpus, 4, shape)
		assert.Equal(t, report.GPU{Index: 3, Name: "AMD Instinct MI350X", MemoryMiB: 294896, Driver: "6.12.12"}, gpus[3], shape)
	}
	p := fakePreflight(t, "rocm", "FAKE_GPU_COUNT=2")
	assert.Equal(t, "amd-smi listed 2 GPU(s); the suite needs 8", p.Check(context.Background(), "start").Reason)
}

// A host found not ready before the first file runs nothing: every file
// is NOT RUN with the host's reason, and the run says so.
func TestRun_AHostNotReadyAtTheStartRunsNoFile(t *testing.T) {
	root := repo(t, map[string]string{"a.py": shPass, "b.py": shPass})
	var out bytes.Buffer
	opts, log := baseOptions(root, &out)
	var asked []string
	opts.Preflight = func(_ context.Context, when string) bool { asked = append(asked, when); return false }
	rep := Run(context.Background(), []File{{"a.py", 1}, {"b.py", 1}}, opts)
	assert.Equal(t, []string{"start"}, asked)
	assert.True(t, rep.HostNotReady)
	assert.False(t, rep.Interrupted)
	assert.False(t, rep.Passed())
	for _, f := range rep.Files {
		assert.Equal(t, NotRun, f.Status)
		assert.Empty(t, f.Attempts, "no child started")
		assert.Equal(t, "not run: host not ready", f.Reason())
	}
	assert.Empty(t, log.lines, "no attempt, no group")
	assert.Contains(t, out.String(), "Test Summary: 0/2 passed\n")
	doc := rep.Document("s", "cuda")
	assert.True(t, doc.HostNotReady)
	assert.Equal(t, "not run: host not ready", doc.Files[1].Reason)
}

func TestRun_AReadyHostRunsAsWithoutAPreflight(t *testing.T) {
	root := repo(t, map[string]string{"a.py": shPass})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	n := 0
	opts.Preflight = func(context.Context, string) bool { n++; return true }
	rep := Run(context.Background(), []File{{"a.py", 1}}, opts)
	assert.Equal(t, 1, n, "one check before the first file")
	assert.True(t, rep.Passed())
	assert.False(t, rep.HostNotReady)
}

// BenchmarkPreflight_HealthyHost is what the preflight adds to a run on a
// ready host: two calls of the (fake) nvidia-smi, the listing and the
// process query, each a process of its own.
func BenchmarkPreflight_HealthyHost(b *testing.B) {
	dir, err := filepath.Abs("../../testdata/gpu")
	require.NoError(b, err)
	path := dir + string(os.PathListSeparator) + "/usr/bin:/bin"
	p := Preflight{Backend: "cuda", Path: path, Env: []string{"PATH=" + path}, GPUsNeeded: 8}
	for b.Loop() {
		if pf := p.Check(context.Background(), "start"); pf.Status != report.PreflightReady {
			b.Fatal(pf.Reason)
		}
	}
}

// The process list only warns by default: a tool that lists the GPUs but
// cannot give the processes leaves the host ready, and the report says
// why it has no list; with foreign_processes: fail the host is not ready.
func TestPreflight_AProcessListTheToolCannotGiveOnlyWarnsByDefault(t *testing.T) {
	p := fakePreflight(t, "cuda", "FAKE_GPU_PROCS=denied")
	pf := p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightReady, pf.Status)
	assert.Equal(t, 8, pf.GpusFound)
	assert.Contains(t, pf.ForeignError, "nvidia-smi process list not understood")

	p.ForeignProcesses, p.Timeout, p.Interval = config.ForeignFail, 200*time.Millisecond, 50*time.Millisecond
	pf = p.Check(context.Background(), "start")
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Contains(t, pf.Reason, "process list not understood")
}

// After SIGKILL a child gets killWait to exit; one stuck in the kernel
// (no signal reaches a process in state D) is left behind instead of
// holding the run.
func TestWaitAtMost_GivesUpOnAChildThatNeverExits(t *testing.T) {
	never := make(chan error)
	assert.False(t, waitAtMost(never, 10*time.Millisecond))
	exited := make(chan error, 1)
	exited <- nil
	assert.True(t, waitAtMost(exited, time.Hour))
}

// A GPU tool's last words reach the log, annotations and the report as
// text: its terminal escapes are made inert, its last line kept.
func TestLastWords_KeepsTheLastLineAndNoControlCharacter(t *testing.T) {
	assert.Equal(t, "?[31mFailed to initialize NVML?\tUnknown Error", lastWords("first\n\x1b[31mFailed to initialize NVML\a\tUnknown Error\n"))
}

// The check's deadline bounds every call of the tool, the process list's
// too: with --preflight-timeout 2s and a query_timeout of 60s, a process
// list that hangs ends at the check's deadline, and the record names that
// deadline, not the query's bound. By default the host is then as ready as
// its GPUs say (the list only warns); with foreign_processes: fail it is
// not ready. The hung tool is killed with its process group.
func TestPreflight_TheDeadlineBoundsAHungProcessList(t *testing.T) {
	testutil.SkipShort(t, "two checks that wait out their 2 s deadline")
	testutil.NeedLinux(t, "process groups and /proc")
	for _, foreign := range []string{config.ForeignWarn, config.ForeignFail} {
		pids := filepath.Join(t.TempDir(), "pids")
		t.Cleanup(func() { killFakes(pids) })
		p := fakePreflight(t, "cuda", "FAKE_GPU_PROCS=hang", "FAKE_GPU_PIDFILE="+pids)
		p.Timeout, p.QueryTimeout, p.ForeignProcesses = 2*time.Second, 60*time.Second, foreign
		done := make(chan report.Preflight, 1)
		go func() { done <- p.Check(context.Background(), "start") }()
		var pf report.Preflight
		select {
		case pf = <-done:
		case <-time.After(30 * time.Second):
			t.Fatal("the check did not end within 30s: its 2s deadline did not bound the process list")
		}
		const cut = "nvidia-smi timed out at the preflight's 2s deadline"
		if foreign == config.ForeignFail {
			assert.Equal(t, report.PreflightNotReady, pf.Status)
			assert.Equal(t, "not ready within 2s: "+cut, pf.Reason)
		} else {
			assert.Equal(t, report.PreflightReady, pf.Status)
			assert.Equal(t, 8, pf.GpusFound)
			assert.Equal(t, cut, pf.ForeignError)
		}
		assert.Equal(t, 1, pf.Tries, "no second try past the deadline")
		data, err := os.ReadFile(pids)
		require.NoError(t, err)
		for _, l := range strings.Fields(string(data)) {
			pid, err := strconv.Atoi(l)
			require.NoError(t, err)
			assert.False(t, testutil.Alive(pid), "the hung tool %d was left running", pid)
		}
	}
}

// killFakes kills the process group of every fake tool that wrote its pid
// to pidfile, so that a test that fails while a fake hangs leaves nothing
// running (each call of the tool leads a group of its own).
func killFakes(pidfile string) {
	data, _ := os.ReadFile(pidfile)
	for _, l := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(l); err == nil && pid > 0 && testutil.Alive(pid) {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}
