package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
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
// function warn and return None, =raise makes it raise.
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
	python := testutil.NeedPython(t)
	tree := map[string]string{"fakegate/__init__.py": fakeGate}
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
	rep := Run(context.Background(), fs, opts)
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
	startedAt := time.Now()
	rep, calls, out := gateRun(t, []string{"tests/a.py", "tests/hang.py", "tests/b.py"}, func(o *Options) {
		o.Gate.Timeout = 2 * time.Second
	})
	assert.True(t, rep.Passed())
	assert.Less(t, time.Since(startedAt), 30*time.Second)
	assert.Contains(t, out, "[CI Gate] hook failed for tests/hang.py: no answer after 2s; gate disabled.\n")
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
