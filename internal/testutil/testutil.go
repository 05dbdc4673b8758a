// Package testutil holds what the tests of several miles-ci packages share:
// the one way a test says it cannot run here, the files they write, and the
// child processes they start and watch. Only tests import it.
package testutil

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// StrictEnv names the variable that turns every skip of Skip into a
// failure. A test that cannot run here (no python3, no /proc, not Linux)
// is skipped on a developer's machine; in CI, which exports
// MILES_CI_STRICT=1 (see .ci/run), a suite that went green without testing
// process handling would be a lie, so it fails instead.
const StrictEnv = "MILES_CI_STRICT"

// Strict reports whether StrictEnv is set to 1.
func Strict() bool { return os.Getenv(StrictEnv) == "1" }

// Skip ends t because something it needs is missing here, saying what: a
// skip normally, a failure when MILES_CI_STRICT=1. Every skip for a missing
// tool or system feature goes through it; a skip that is no lack (an
// optional oracle such as a Miles checkout, a helper run only by its
// parent test) uses t.Skip.
func Skip(t testing.TB, reason string) {
	t.Helper()
	if Strict() {
		t.Fatalf("cannot run here: %s (%s=1 makes this a failure; unset it to skip)", reason, StrictEnv)
	}
	t.Skip(reason)
}

// NeedPython returns the path of python3, for a test whose subject is
// Python itself (a differential test against CPython); see Skip. It is
// the interpreter python3 on the PATH runs (its sys.executable), asked
// once per test binary: a version manager's python3 is often a shim
// (pyenv's is a bash script that starts a dozen processes, about 0.4 s,
// before it execs the interpreter), and a test that starts Python many
// times would otherwise pay that each time for nothing it tests.
func NeedPython(t testing.TB) string {
	t.Helper()
	path := NeedCommand(t, "python3")
	pythonOnce.Do(func() { pythonPath = resolvePython(path) })
	return pythonPath
}

// resolvePython is the interpreter that path runs, or path itself when
// it cannot say.
func resolvePython(path string) string {
	out, err := exec.Command(path, "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		return path
	}
	exe := strings.TrimSpace(string(out))
	if st, err := os.Stat(exe); err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return path
	}
	return exe
}

// NeedCommand returns the path of the program name; see Skip.
func NeedCommand(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		Skip(t, name+" is not installed")
	}
	return path
}

// NeedLinux is for a test of something only Linux has (a child subreaper,
// /proc); see Skip.
func NeedLinux(t testing.TB, what string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		Skip(t, what+" is Linux's")
	}
}

// MilesCheckoutEnv names the variable that points the tests comparing with
// the Python scripts at a checkout of Miles.
const MilesCheckoutEnv = "MILES_CHECKOUT"

// MilesCheckout returns the Miles checkout named by MILES_CHECKOUT, and
// skips t when the variable is unset: the checkout is an optional oracle,
// not a lack, so this skip is never strict. A set variable that names no
// checkout (no tests/ci in it) fails t.
func MilesCheckout(t testing.TB) string {
	t.Helper()
	root := os.Getenv(MilesCheckoutEnv)
	if root == "" {
		t.Skipf("%s is not set; to compare with the Python scripts of a Miles checkout, run "+
			"MILES_CHECKOUT=/path/to/miles go test -run %s ./...", MilesCheckoutEnv, t.Name())
	}
	if st, err := os.Stat(root + "/tests/ci"); err != nil || !st.IsDir() {
		t.Fatalf("%s=%s is not a Miles checkout: it has no tests/ci directory", MilesCheckoutEnv, root)
	}
	return root
}

// Pytest returns a python3 that imports pytest and yaml, for a test that
// runs a Python test suite (Miles' tests/ci/test); see Skip. Debian's
// /usr/bin/python3 comes first, as .ci/run installs python3-pytest and
// python3-yaml for it; then python3 on PATH.
func Pytest(t testing.TB) string {
	t.Helper()
	pytestOnce.Do(func() {
		candidates := []string{"/usr/bin/python3"}
		if p, err := exec.LookPath("python3"); err == nil {
			candidates = append(candidates, p)
		}
		for _, p := range candidates {
			if exec.Command(p, "-c", "import pytest, yaml").Run() == nil {
				pytestPath = p
				return
			}
		}
	})
	if pytestPath == "" {
		Skip(t, "no python3 with pytest and PyYAML (apt-get install python3-pytest python3-yaml)")
	}
	return pytestPath
}

var (
	pytestOnce sync.Once
	pytestPath string
	pythonOnce sync.Once
	pythonPath string
)

// Short reports whether the test runs under -short and so leaves out
// what (a heavy case; its doc says why it is heavy), and logs that it
// does. The inner loop, go test -short ./..., leaves these out; make test
// and CI run every case. Under MILES_CI_STRICT=1 -short fails t instead:
// a strict run must never go green having left a case out.
func Short(t testing.TB, what string) bool {
	t.Helper()
	if !testing.Short() {
		return false
	}
	if Strict() {
		t.Fatalf("-short leaves out %s, and %s=1 runs every case: drop -short", what, StrictEnv)
	}
	t.Logf("-short: %s left out (make test runs it)", what)
	return true
}

// SkipShort skips t under -short: the whole of t is heavy (see Short).
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if Short(t, what) {
		t.SkipNow()
	}
}
