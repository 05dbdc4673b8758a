//go:build unix

package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// ActionlintModule is the external workflow linter the tests ask for a
// second opinion, at the version the project pins. It is a dev check: the
// binary never depends on it.
const ActionlintModule = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

// Actionlint returns the path of actionlint at ActionlintModule's version,
// built once per machine into the user's cache directory with `go install`
// (the module proxy serves it; concurrent test processes share one build
// through a file lock). A machine where it cannot be built skips the test
// through Skip, so CI, which is strict, fails instead of going green
// without the second opinion.
func Actionlint(t testing.TB) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		Skip(t, "go is not on PATH, so actionlint cannot be built")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	version := ActionlintModule[strings.LastIndexByte(ActionlintModule, '@')+1:]
	dir := filepath.Join(cache, "miles-ci-test", "actionlint-"+version+"-"+runtime.GOOS+"-"+runtime.GOARCH)
	bin := filepath.Join(dir, "actionlint")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		Skip(t, "cannot make a directory for actionlint: "+err.Error())
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		Skip(t, "cannot lock the actionlint build: "+err.Error())
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		Skip(t, "cannot lock the actionlint build: "+err.Error())
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) //nolint:errcheck // released by close too
	if st, err := os.Stat(bin); err == nil && st.Mode().IsRegular() {
		return bin
	}
	cmd := exec.Command(goBin, "install", ActionlintModule)
	cmd.Dir = dir // outside any module, so this repository's go.mod is not touched
	cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		Skip(t, "cannot build "+ActionlintModule+": "+err.Error()+"\n"+string(out))
	}
	return bin
}
