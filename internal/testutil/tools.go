package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// MilesRefEnv names the variable that points the tests at the pinned copy
// of Miles' CI files (tests/ci, docs/ci, .github/workflows); unset, they
// look for ../shared/miles-ref beside this checkout.
const MilesRefEnv = "MILES_REF"

// MilesRef returns the pinned copy of Miles' CI files, and skips t when
// there is none: like MilesCheckout it is an oracle kept beside the
// checkout, not something the machine lacks. A MILES_REF that names no such
// copy fails t.
func MilesRef(t testing.TB) string {
	t.Helper()
	root := os.Getenv(MilesRefEnv)
	if root == "" {
		dir, err := moduleRoot()
		if err != nil {
			t.Fatalf("find the module root: %v", err)
		}
		root = filepath.Join(dir, "..", "shared", "miles-ref")
		if _, err := os.Stat(filepath.Join(root, ".github", "workflows")); err != nil {
			t.Skipf("no pinned Miles CI files at %s; set %s to run %s", root, MilesRefEnv, t.Name())
		}
	}
	if st, err := os.Stat(filepath.Join(root, ".github", "workflows")); err != nil || !st.IsDir() {
		t.Fatalf("%s=%s holds no .github/workflows", MilesRefEnv, root)
	}
	return root
}

// ModuleRoot returns the directory of this repository's go.mod.
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := moduleRoot()
	if err != nil {
		t.Fatalf("find the module root: %v", err)
	}
	return dir
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// BuildMilesCI builds this module's miles-ci into a directory of the
// test, as make build does but without the stamped version, and returns
// its path.
func BuildMilesCI(t testing.TB) string {
	t.Helper()
	gobin := NeedCommand(t, "go")
	bin := filepath.Join(t.TempDir(), "miles-ci")
	build := exec.Command(gobin, "build", "-o", bin, "./cmd/miles-ci")
	build.Dir = ModuleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/miles-ci: %v\n%s", err, out)
	}
	return bin
}
