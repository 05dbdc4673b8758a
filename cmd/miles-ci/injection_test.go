package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runAsGitHubJob runs miles-ci with args on the repository at root as a
// GitHub Actions job would, and returns its output and exit status.
func runAsGitHubJob(t *testing.T, root string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--root", root}, args...)...)
	cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_OUTPUT=")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

// assertNoForgedCommand fails for every output line that starts with the
// workflow command the test files below try to forge.
func assertNoForgedCommand(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		assert.False(t, strings.HasPrefix(line, "::error title="), "a forged workflow command: %q", line)
	}
}

// TestFileNames_CannotForgeWorkflowCommands puts a test file whose name
// holds a line break followed by a workflow command next to an ordinary
// one, and runs every command that prints test file names as a GitHub
// Actions job would. The file is refused, its name quoted on one line.
func TestFileNames_CannotForgeWorkflowCommands(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests", "fast-gpu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	const body = "import sys\n\n\ndef register_cuda_ci(**kw):\n    pass\n\n\n" +
		"register_cuda_ci(est_time=1, suite=\"stage-b-2-gpu-h200\", labels=[\"lora\"])\nsys.exit(1)\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_\n::error title=X::y.py"), []byte(body), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_ok.py"), []byte(strings.Replace(body, "sys.exit(1)", "sys.exit(0)", 1)), 0o644))

	for _, args := range [][]string{
		{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora", "--list-only"},
		{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora", "--continue-on-error"},
		{"suites"},
		{"suites", "--suite", "stage-b-2-gpu-h200"},
		{"partition", "--suite", "stage-b-2-gpu-h200", "--match-all-labels"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, code := runAsGitHubJob(t, root, args...)
			assert.Equal(t, 1, code, "%s", out)
			assert.Contains(t, out, "\n"+`error: "tests/fast-gpu/test_\n::error title=X::y.py": the file name holds the control character U+000A, which CI logs cannot show safely; rename the file`+"\n")
			assertNoForgedCommand(t, out)
		})
	}
}

// TestDisabledReasons_CannotForgeWorkflowCommands: a disabled reason is
// text a test file chooses, printed by the plan and the partition view.
func TestDisabledReasons_CannotForgeWorkflowCommands(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests", "fast-gpu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	const body = "register_cuda_ci(est_time=1, suite=\"stage-b-2-gpu-h200\", labels=[\"lora\"], disabled=\"broken\\n::error title=X::y\")\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_off.py"), []byte(body), 0o644))

	for _, args := range [][]string{
		{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora", "--list-only"},
		{"partition", "--suite", "stage-b-2-gpu-h200", "--match-all-labels"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			out, code := runAsGitHubJob(t, root, args...)
			assert.Equal(t, 0, code, "%s", out)
			assert.Contains(t, out, `  - tests/fast-gpu/test_off.py (reason: broken\n::error title=X::y)`+"\n")
			assertNoForgedCommand(t, out)
		})
	}
}
