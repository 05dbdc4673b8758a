package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFileNames_CannotForgeWorkflowCommands puts a test file whose name
// holds a line break followed by a workflow command next to an ordinary
// one, and runs every command that prints test file names as a GitHub
// Actions job would. No output line may start with the forged command:
// the file is refused, with its name quoted on one line.
func TestFileNames_CannotForgeWorkflowCommands(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests", "fast-gpu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	const evil = "test_\n::error title=X::y.py"
	const body = "import sys\n\n\ndef register_cuda_ci(**kw):\n    pass\n\n\n" +
		"register_cuda_ci(est_time=1, suite=\"stage-b-2-gpu-h200\", labels=[\"lora\"])\nsys.exit(1)\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, evil), []byte(body), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_ok.py"), []byte(strings.Replace(body, "sys.exit(1)", "sys.exit(0)", 1)), 0o644))

	for _, args := range [][]string{
		{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora", "--list-only"},
		{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora", "--continue-on-error"},
		{"suites"},
		{"suites", "--suite", "stage-b-2-gpu-h200"},
		{"partition", "--suite", "stage-b-2-gpu-h200", "--match-all-labels"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var out bytes.Buffer
			cmd := exec.Command(os.Args[0], append([]string{"--root", root}, args...)...)
			cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=", "GITHUB_OUTPUT=")
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			var exit *exec.ExitError
			require.ErrorAs(t, err, &exit, "%s", &out)
			assert.Equal(t, 1, exit.ExitCode(), "%s", &out)

			sc := bufio.NewScanner(&out)
			var lines []string
			for sc.Scan() {
				lines = append(lines, sc.Text())
				assert.False(t, strings.HasPrefix(sc.Text(), "::error title="), "a forged workflow command: %q", sc.Text())
			}
			assert.Contains(t, lines, `error: "tests/fast-gpu/test_\n::error title=X::y.py": the file name holds the control character U+000A, which CI logs cannot show safely; rename the file`)
		})
	}
}
