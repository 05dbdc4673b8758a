//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// The sample keeps tests/ci/run_suite.py as the compatibility entry point
// a migrated repository keeps for the external nightly: run with Python,
// it prints what `miles-ci run` with the same arguments prints and exits
// with its status, for a plan and for a mistake.
func TestSampleEntryPoint_IsMilesCIRun(t *testing.T) {
	python := testutil.NeedPython(t)
	self, err := os.Executable()
	require.NoError(t, err)
	bin := t.TempDir()
	require.NoError(t, os.Symlink(self, filepath.Join(bin, "miles-ci")))
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(filepath.Join("..", "..", "testdata", "sample"))))
	env := append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	run := func(argv ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir, cmd.Env = root, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%v: %v", argv, err)
		}
		return out.String(), cmd.ProcessState.ExitCode()
	}
	for _, args := range [][]string{
		{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only"},
		{"--hw", "rocm", "--suite", "nightly-stage-c-8-gpu-mi350", "--list-only", "--auto-partition-id", "0", "--auto-partition-size", "2"},
		{"--hw", "cuda", "--suite", "stage-c-8-gpu-h10", "--list-only"},
	} {
		want, wantCode := run(append([]string{filepath.Join(bin, "miles-ci"), "run"}, args...)...)
		got, code := run(append([]string{python, "tests/ci/run_suite.py"}, args...)...)
		assert.Equal(t, want, got, "%v", args)
		assert.Equal(t, wantCode, code, "%v", args)
		assert.NotEmpty(t, want)
	}
}
