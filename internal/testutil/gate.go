package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// HostileGate is one use of testdata/gates/hostilegate.py, the
// metric-history gate that misbehaves (the file says how): it writes the
// adapter's pid and its helpers' into Dir, and marks every helper's
// command line with Dir, so a test can look for what is left of it.
type HostileGate struct {
	Dir string
}

// NewHostileGate prepares a use of the hostile gate. What is left of it
// when t ends is killed, so that a failed test leaves no helper sleeping
// for an hour; the test checks Left first.
func NewHostileGate(t testing.TB) *HostileGate {
	t.Helper()
	NeedLinux(t, "/proc, to find what the gate left")
	g := &HostileGate{Dir: t.TempDir()}
	t.Cleanup(func() {
		for _, p := range LeftRunning(g.Dir, g.pid("adapter.pid")) {
			if pid, err := strconv.Atoi(strings.SplitN(p, ":", 2)[0]); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return g
}

// HostileGateSource is the text of the gate module, hostilegate.py for
// the adapter to import from the repository root.
func HostileGateSource(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(ModuleRoot(t), "testdata", "gates", "hostilegate.py"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Env is the environment the gate's adapter needs to do acts (a
// comma-separated list) and register every file in the CUDA suite suite.
func (g *HostileGate) Env(acts, suite string) []string {
	return []string{"HOSTILE_GATE=" + acts, "HOSTILE_GATE_DIR=" + g.Dir, "HOSTILE_GATE_SUITE=" + suite}
}

// Path is the path of a file the gate writes: adapter.pid, helper.pid,
// blocked.
func (g *HostileGate) Path(name string) string { return filepath.Join(g.Dir, name) }

// Left lists what is alive of the gate after its run: the adapter, a
// member of its process group, a helper. It fails t when the hook never
// ran, which would make the list empty for nothing.
func (g *HostileGate) Left(t testing.TB) []string {
	t.Helper()
	adapter := g.pid("adapter.pid")
	if adapter == 0 {
		t.Fatal("the hostile gate's hook never ran")
	}
	left := LeftRunning(g.Dir, adapter)
	for _, name := range []string{"adapter.pid", "helper.pid"} {
		if pid := g.pid(name); pid != 0 && Alive(pid) {
			left = append(left, fmt.Sprintf("%d: the %s", pid, strings.TrimSuffix(name, ".pid")))
		}
	}
	return left
}

// pid is the pid the gate wrote to name, 0 when it wrote none.
func (g *HostileGate) pid(name string) int {
	data, err := os.ReadFile(g.Path(name))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	return pid
}
