//go:build unix

package testutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// nonRootID is the user and group a root test process runs the tests of
// RunAsNonRoot as: nobody's, by convention.
const nonRootID = 65534

// nonRootEnv marks the test process RunAsNonRoot started, so that one that
// is somehow still root does not start another.
const nonRootEnv = "MILES_CI_TEST_NON_ROOT"

// RunAsNonRoot is for a test of what an unreadable file or directory does:
// root reads everything. Called first in a top-level test, it returns true
// when the process is not root, and the test goes on. As root it runs the
// same test in a copy of the test binary as user nobody (uid 65534), in a
// temporary directory of that user's, reports its result as this test's,
// and returns false: the caller returns at once. When switching users is
// impossible here the test is skipped (see Skip).
func RunAsNonRoot(t *testing.T) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return true
	}
	if os.Getenv(nonRootEnv) == "1" {
		Skip(t, "still root after switching to user nobody")
		return false
	}
	// Not t.TempDir, whose parent only root may enter.
	dir, err := os.MkdirTemp("", "miles-ci-non-root-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	bin := filepath.Join(dir, "test.bin")
	if err := copyExecutable(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, bin} {
		if err := os.Chown(p, nonRootID, nonRootID); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(bin, "-test.run=^"+regexp.QuoteMeta(t.Name())+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "HOME="+dir, nonRootEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nonRootID, Gid: nonRootID}}
	out, err := cmd.CombinedOutput()
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) {
		Skip(t, fmt.Sprintf("cannot run as user nobody: %v", err))
		return false
	}
	report := fmt.Sprintf("as user nobody (uid %d):\n%s", nonRootID, out)
	switch {
	case err != nil:
		t.Fatalf("failed %s", report)
	case strings.Contains(string(out), "--- SKIP: "+t.Name()+" "):
		Skip(t, "skipped "+report)
	case !strings.Contains(string(out), "--- PASS: "+t.Name()+" "):
		t.Fatalf("did not run %s", report)
	default:
		t.Log("passed " + report)
	}
	return false
}

func copyExecutable(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
