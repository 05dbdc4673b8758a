package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// fakeGate is a gate package in the shape of Miles' tests.ci.ci_utils: the
// store, the provenance, the registry reader and the hook. The hook writes
// one JSON line per call to $FAKE_GATE_CALLS; a file named *boom* makes it
// raise, *hang* makes it sleep; FAKE_GATE_STORE=none makes the store
// function warn and return None, =raise makes it raise. The provenance
// function, the last before the adapter answers "ready", writes a line to
// the descriptor $FAKE_GATE_READY_FD names (see startWhenGateReady).
const fakeGate = `import enum, json, os, sys, time

class Backend(enum.Enum):
    CPU = enum.auto()
    CUDA = enum.auto()

class Reg:
    def __init__(self, filename, backend, suite):
        self.filename, self.backend, self.suite = filename, backend, suite

def build_store():
    how = os.environ.get("FAKE_GATE_STORE", "")
    if how == "none":
        print("[CI Gate] store unavailable (OperationalError: down); gate disabled.", file=sys.stderr)
        return None
    if how == "raise":
        raise RuntimeError("no driver")
    return {"pid": os.getpid()}

def provenance():
    ready = os.environ.get("FAKE_GATE_READY_FD")
    if ready:
        os.write(int(ready), b"\n")
        os.close(int(ready))
    return {"sha": os.environ.get("GITHUB_SHA", "")}

def registry(filename):
    return [Reg(filename, Backend.CPU, "stage-a-cpu"), Reg(filename, Backend.CUDA, "suite-x")]

def hook(filename, record, *, store, registry, write_baseline, provenance):
    if "boom" in filename:
        raise ValueError("boom")
    if "hang" in filename:
        time.sleep(60)
    with open(record) as f:
        text = f.read()
    with open(os.environ["FAKE_GATE_CALLS"], "a") as f:
        f.write(json.dumps({"file": filename, "record": text, "baseline": write_baseline, "suite": registry.suite,
                            "backend": registry.backend.name, "pid": os.getpid(), "store": store["pid"],
                            "provenance": provenance}) + "\n")
    print("[CI Gate][shadow] " + filename + ": TRUSTED (1 metric(s))", flush=True)
`

type gateCall struct {
	File, Record, Suite, Backend string
	Baseline                     bool
	Pid, Store                   int
	Provenance                   map[string]string
}

// gateRun runs files (sh tests that write a record) with the adapter
// driving the fake gate, and returns the calls it made and the output.
func gateRun(t *testing.T, files []string, tweak func(*Options)) (*Results, []gateCall, string) {
	t.Helper()
	return gateRunWithin(t, context.Background(), 0, files, tweak)
}

// hangBound is how much longer than its bound a run may take before a
// test calls it hung: far more than a loaded machine needs to start a
// few processes.
const hangBound = 60 * time.Second

// gateRunWithin is gateRun under ctx, failing t when Run has not returned
// within bound (0: the gate's timeout plus hangBound): a run that hangs
// fails its test instead of stalling it.
func gateRunWithin(t *testing.T, ctx context.Context, bound time.Duration, files []string, tweak func(*Options)) (*Results, []gateCall, string) {
	t.Helper()
	python := testutil.NeedPython(t)
	tree := map[string]string{"fakegate/__init__.py": fakeGate, "hostilegate.py": testutil.HostileGateSource(t)}
	for _, f := range files {
		body := shEnvDump
		if strings.Contains(f, "fail") {
			body += "exit 1\n"
		}
		tree[f] = body
	}
	root := repo(t, tree)
	calls := filepath.Join(t.TempDir(), "calls")
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	opts.Out = &lockedBuffer{buf: &out}
	opts.ErrOut = opts.Out
	opts.ContinueOnError = true
	opts.GateBaseDir = t.TempDir()
	opts.WriteBaseline = true
	opts.Env = append(os.Environ(), "FAKE_GATE_CALLS="+calls, "GITHUB_SHA=abc123")
	opts.Start = startWhenGateReady
	opts.Gate = &GateAdapter{
		Python: python, Hook: "fakegate:hook", Store: "fakegate:build_store",
		Provenance: "fakegate:provenance", Registry: "fakegate:registry",
		Timeout: 30 * time.Second, Backend: "cuda", Suite: "suite-x",
	}
	if tweak != nil {
		tweak(&opts)
	}
	var fs []File
	for _, f := range files {
		fs = append(fs, File{f, 1})
	}
	if bound == 0 {
		bound = opts.Gate.Timeout + hangBound
	}
	done := make(chan *Results, 1)
	go func() { done <- Run(ctx, fs, opts) }()
	var rep *Results
	select {
	case rep = <-done:
	case <-time.After(bound):
		t.Fatalf("the run did not end within %s:\n%s", bound, opts.Out)
	}
	var got []gateCall
	if data, err := os.ReadFile(calls); err == nil {
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var c gateCall
			require.NoError(t, json.Unmarshal([]byte(line), &c))
			got = append(got, c)
		}
	}
	return rep, got, out.String()
}

// startWhenGateReady starts c as exec does, and the adapter (the one child
// with a descriptor beyond stderr) so that it returns only once the fake
// gate has built its store and provenance: the gate's timeout, which
// counts from there, then never races a Python start-up that a loaded
// machine stretches. The gate says so on a descriptor after the adapter's
// own; an adapter that ends first closes it, which does as well.
func startWhenGateReady(c *exec.Cmd) error {
	if len(c.ExtraFiles) == 0 {
		return c.Start()
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	c.ExtraFiles = append(c.ExtraFiles, w)
	c.Env = append(c.Env[:len(c.Env):len(c.Env)], fmt.Sprintf("FAKE_GATE_READY_FD=%d", 2+len(c.ExtraFiles)))
	err = c.Start()
	w.Close()
	if err != nil {
		return err
	}
	// Only a broken fixture comes near this deadline.
	_ = r.SetReadDeadline(time.Now().Add(2 * time.Minute))
	_, _ = r.Read(make([]byte, 1))
	return nil
}

// One adapter process serves every passed file of the run with one store,
// survives the sweeps after each file, gets the merged record, the
// baseline flag, the run's registration and provenance; a failed file is
// not gated; the gate's output reaches the log; nothing outlives Run.
func TestGateAdapter_OneProcessPerRunCallsTheHookPerPassedFile(t *testing.T) {
	rep, calls, out := gateRun(t, []string{"tests/a.py", "tests/fail.py", "tests/b.py"}, nil)
	assert.False(t, rep.Passed())
	require.Len(t, calls, 2, out)
	assert.Equal(t, "tests/a.py", calls[0].File)
	assert.Equal(t, "tests/b.py", calls[1].File)
	for _, c := range calls {
		assert.Equal(t, `{"metric": "loss", "series": [[1, 0.75], [2, 0.5]]}`+"\n", c.Record)
		assert.True(t, c.Baseline)
		assert.Equal(t, "suite-x", c.Suite)
		assert.Equal(t, "CUDA", c.Backend)
		assert.Equal(t, map[string]string{"sha": "abc123"}, c.Provenance)
		assert.Equal(t, calls[0].Pid, c.Pid, "one adapter process per run")
		assert.Equal(t, calls[0].Pid, c.Store, "the store is built once, in the adapter")
	}
	assert.Contains(t, out, "[CI Gate][shadow] tests/b.py: TRUSTED (1 metric(s))\n")
	assert.False(t, testutil.Alive(calls[0].Pid), "the adapter outlived the run")
}

func TestGateAdapter_FailuresAreWarningsAndNeverChangeAVerdict(t *testing.T) {
	t.Run("store is None", func(t *testing.T) {
		rep, calls, out := gateRun(t, []string{"tests/a.py", "tests/b.py"}, func(o *Options) {
			o.Env = append(o.Env, "FAKE_GATE_STORE=none")
		})
		assert.True(t, rep.Passed())
		assert.Empty(t, calls)
		assert.Equal(t, 1, strings.Count(out, "[CI Gate] store unavailable"), out)
	})
	t.Run("store raises", func(t *testing.T) {
		rep, calls, out := gateRun(t, []string{"tests/a.py", "tests/b.py"}, func(o *Options) {
			o.Env = append(o.Env, "FAKE_GATE_STORE=raise")
		})
		assert.True(t, rep.Passed())
		assert.Empty(t, calls)
		assert.Equal(t, 1, strings.Count(out, "[CI Gate] gate unavailable (RuntimeError: no driver); gate disabled.\n"), out)
	})
	t.Run("module missing", func(t *testing.T) {
		rep, _, out := gateRun(t, []string{"tests/a.py"}, func(o *Options) { o.Gate.Hook = "nogate:hook" })
		assert.True(t, rep.Passed())
		assert.Contains(t, out, "[CI Gate] gate unavailable (ModuleNotFoundError: No module named 'nogate'); gate disabled.\n")
	})
	t.Run("interpreter missing", func(t *testing.T) {
		rep, _, out := gateRun(t, []string{"tests/a.py"}, func(o *Options) { o.Gate.Python = "/nonexistent/python3" })
		assert.True(t, rep.Passed())
		assert.Contains(t, out, "[CI Gate] gate unavailable (")
	})
	t.Run("hook raises", func(t *testing.T) {
		rep, calls, out := gateRun(t, []string{"tests/boom.py", "tests/b.py"}, nil)
		assert.True(t, rep.Passed())
		assert.Contains(t, out, "[CI Gate] hook failed for tests/boom.py: ValueError: boom\n")
		require.Len(t, calls, 1, "the gate stays on after a hook error")
		assert.Equal(t, "tests/b.py", calls[0].File)
	})
	t.Run("no registration of the suite", func(t *testing.T) {
		rep, _, out := gateRun(t, []string{"tests/a.py"}, func(o *Options) { o.Gate.Suite = "other" })
		assert.True(t, rep.Passed())
		assert.Contains(t, out, "[CI Gate] hook failed for tests/a.py: LookupError: tests/a.py registers no cuda test in suite other\n")
	})
}

// A hook that does not answer within the bounded wait is killed, the gate
// is off for the rest of the run, and the run goes on with its verdicts.
func TestGateAdapter_AHangingHookIsKilledAfterTheTimeout(t *testing.T) {
	testutil.SkipShort(t, "a run that waits out the gate's 5 s timeout")
	rep, calls, out := gateRun(t, []string{"tests/a.py", "tests/hang.py", "tests/b.py"}, func(o *Options) {
		o.Gate.Timeout = 5 * time.Second
	})
	assert.True(t, rep.Passed())
	assert.Contains(t, out, "[CI Gate] hook failed for tests/hang.py: no answer after 5s; gate disabled.\n")
	require.Len(t, calls, 1, out)
	assert.Equal(t, "tests/a.py", calls[0].File)
	assert.False(t, testutil.Alive(calls[0].Pid), "the hung adapter outlived the run")
}

// --gate-hook wins over the configured gate.
func TestGateAdapter_GateHookWins(t *testing.T) {
	_, calls, out := gateRun(t, []string{"tests/a.py"}, func(o *Options) { o.GateHook = "echo hook ran" })
	assert.Empty(t, calls)
	assert.Contains(t, out, "hook ran\n")
}

// hostile configures gateRun for the hostile gate doing acts. The gate's
// timeout is ten minutes: none of these gates may cost it, and a run that
// ends within hangBound did not.
func hostile(t *testing.T, acts string) (*testutil.HostileGate, func(*Options)) {
	t.Helper()
	g := testutil.NewHostileGate(t)
	return g, func(o *Options) {
		o.Gate.Hook, o.Gate.Store = "hostilegate:hook", "hostilegate:build_store"
		o.Gate.Provenance, o.Gate.Registry = "hostilegate:provenance", "hostilegate:registry"
		o.Gate.Timeout = 10 * time.Minute
		o.Start = nil
		o.Env = append(o.Env, g.Env(acts, o.Gate.Suite)...)
	}
}

// A gate that closes the adapter's answer pipe and blocks, leaves a daemon
// in a new session holding the pipes, or dies leaving a child holding its
// output: each run of passing files passes, ends long before the gate's
// timeout, says what the gate did, and leaves nothing of the gate running.
func TestGateAdapter_AHostileGateNeitherHangsNorFailsTheRun(t *testing.T) {
	tests := []struct {
		acts   string
		want   string // the warning; "" for none
		helper bool   // the hook started a helper
	}{
		{"closefd,block", "[CI Gate] hook failed for tests/a.py: the gate process closed its answer pipe and kept running; gate disabled.\n", false},
		{"daemon", "", true},
		{"fork", "[CI Gate] hook failed for tests/a.py: the gate process exited with status 3; gate disabled.\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.acts, func(t *testing.T) {
			if tt.acts == "closefd,block" {
				// The binary's TestGate_AHostileGateNeverHangsNorFailsARun
				// runs this gate under -short too.
				testutil.SkipShort(t, "a run that waits out the 5 s the adapter gives a closed pipe")
			}
			gate, tweak := hostile(t, tt.acts)
			rep, _, out := gateRunWithin(t, context.Background(), hangBound, []string{"tests/a.py", "tests/b.py"}, tweak)
			assert.True(t, rep.Passed(), out)
			assert.Equal(t, []Status{Pass, Pass}, []Status{rep.Files[0].Status, rep.Files[1].Status})
			if tt.want != "" {
				assert.Contains(t, out, tt.want)
			} else {
				assert.NotContains(t, out, "[CI Gate]")
			}
			if tt.helper {
				assert.FileExists(t, gate.Path("helper.pid"), "the hook started no helper:\n%s", out)
			}
			assert.Empty(t, gate.Left(t), "processes of the gate outlived the run")
		})
	}
}

// An interrupt while a gate call hangs (the hook left a daemon holding the
// pipes and blocks, and the gate's timeout is long) ends the run at once:
// the file that passed stays passed, the rest is not run, and nothing of
// the gate is left.
func TestGateAdapter_AnInterruptEndsAHungGateCall(t *testing.T) {
	gate, tweak := hostile(t, "daemon,block")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The hook says when it blocks; only then does the interrupt come.
		for {
			if _, err := os.Stat(gate.Path("blocked")); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(10 * time.Millisecond):
			}
		}
	}()
	rep, _, out := gateRunWithin(t, ctx, hangBound, []string{"tests/a.py", "tests/b.py"}, tweak)
	assert.True(t, rep.Interrupted, out)
	assert.Equal(t, []Status{Pass, NotRun}, []Status{rep.Files[0].Status, rep.Files[1].Status})
	assert.Contains(t, out, "[CI Gate] hook failed for tests/a.py: interrupted; gate disabled.\n")
	assert.Empty(t, gate.Left(t), "processes of the gate outlived the run")
}
