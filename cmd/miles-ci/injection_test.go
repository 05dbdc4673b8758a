package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// runAsGitHubJob runs miles-ci with args on the repository at root as a
// GitHub Actions job on a GPU runner would (testdata/gpu's fake nvidia-smi
// first on PATH, for the GPU preflight), and returns its output and exit
// status.
func runAsGitHubJob(t *testing.T, root string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"--root", root}, args...)...)
	gpu := filepath.Join(testutil.ModuleRoot(t), "testdata", "gpu")
	cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=true", "GITHUB_RUN_ID=1658821493", "GITHUB_STEP_SUMMARY=", "GITHUB_OUTPUT=",
		"PATH="+gpu+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

// assertNoForgedCommand fails for every output line that starts with the
// workflow command the test files below try to forge. The Actions runner
// ends a line at CR as well as LF, and skips blanks before a command.
func assertNoForgedCommand(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
		line = strings.TrimLeftFunc(line, unicode.IsSpace)
		assert.False(t, strings.HasPrefix(line, "::error") || strings.HasPrefix(line, "::warning"), "a forged workflow command: %q", line)
	}
}

// TestFileNames_CannotForgeWorkflowCommands puts test files whose names
// hold a line break followed by a workflow command next to an ordinary
// one, and runs every command that prints test file names as a GitHub
// Actions job would. The files are kept and run; every line shows their
// line breaks escaped, as the Python runner escapes them in its group
// titles (%0A, %0D) and summary lines (\n, \r).
func TestFileNames_CannotForgeWorkflowCommands(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests", "fast-gpu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	const body = "import sys\n\n\ndef register_cuda_ci(**kw):\n    pass\n\n\n" +
		"register_cuda_ci(est_time=1, suite=\"stage-b-2-gpu-h200\", labels=[\"lora\"])\nsys.exit(1)\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_\n::error title=X::y.py"), []byte(body), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_\r::error title=X::z.py"), []byte(body), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_ok.py"), []byte(strings.Replace(body, "sys.exit(1)", "sys.exit(0)", 1)), 0o644))

	for _, tc := range []struct {
		args []string
		code int
		want []string
	}{
		{[]string{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora", "--list-only"}, 0, []string{
			"\n  - tests/fast-gpu/test_\\n::error title=X::y.py (est_time=1.0s)\n",
			"\n  - tests/fast-gpu/test_\\r::error title=X::z.py (est_time=1.0s)\n",
		}},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora", "--continue-on-error"}, 1, []string{
			"\n::group::tests/fast-gpu/test_%0A::error title=X::y.py  (1/3 est=1s attempt=1)\n",
			"\n::group::tests/fast-gpu/test_%0D::error title=X::z.py  (2/3 est=1s attempt=1)\n",
			"\n[1/3] tests/fast-gpu/test_\\n::error title=X::y.py  FAIL  elapsed=",
			"\n[2/3] tests/fast-gpu/test_\\r::error title=X::z.py  FAIL  elapsed=",
			"\npython3 " + root + "/tests/fast-gpu/test_\\n::error title=X::y.py\n",
			"\nfilename='tests/fast-gpu/test_\\n::error title=X::y.py', elapsed=",
			"\nFAILED: tests/fast-gpu/test_\\n::error title=X::y.py returned exit code 1\n",
			"\n  tests/fast-gpu/test_\\r::error title=X::z.py (exit code 1)\n",
		}},
		{[]string{"suites"}, 0, nil},
		{[]string{"suites", "--suite", "stage-b-2-gpu-h200"}, 0, []string{"tests/fast-gpu/test_\\n::error title=X::y.py"}},
		{[]string{"partition", "--suite", "stage-b-2-gpu-h200", "--match-all-labels"}, 0, []string{
			"\n  - tests/fast-gpu/test_\\n::error title=X::y.py (est_time=1.0s)\n",
		}},
		{[]string{"partition", "--suite", "stage-b-2-gpu-h200", "--match-all-labels", "--id", "0"}, 0, []string{
			"tests/fast-gpu/test_\\n::error title=X::y.py\ntests/fast-gpu/test_\\r::error title=X::z.py\ntests/fast-gpu/test_ok.py\n",
		}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out, code := runAsGitHubJob(t, root, tc.args...)
			assert.Equal(t, tc.code, code, "%s", out)
			for _, w := range tc.want {
				assert.Contains(t, out, w)
			}
			assertNoForgedCommand(t, out)
		})
	}
}

// TestFileNames_GroupTitleAndSummaryLineAsThePythonRunner ports the
// reference's TestGroupTitleEncoding and TestSummaryFilenameEscape to a
// real run: '%' is encoded first (%25), then CR and LF (%0D, %0A) in the
// group title, and the summary line writes CR and LF as \r and \n and
// leaves '%' alone.
func TestFileNames_GroupTitleAndSummaryLineAsThePythonRunner(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests", "fast-gpu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	const body = "def register_cuda_ci(**kw):\n    pass\n\n\nregister_cuda_ci(est_time=1, suite=\"stage-b-2-gpu-h200\", labels=[\"lora\"])\n"
	for _, name := range []string{"test_100% pass.py", "test_a%b\nc.py", "test_part1\rpart2.py", "test_weird\nname.py"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	out, code := runAsGitHubJob(t, root, "run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora")
	assert.Equal(t, 0, code, "%s", out)
	var marks []string
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "::") || strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "[CI Preflight] ready: ") {
			marks = append(marks, regexp.MustCompile(`elapsed=\d+s`).ReplaceAllString(line, "elapsed=Ns"))
		}
	}
	assert.Equal(t, []string{
		"::group::tests/fast-gpu/test_100%25 pass.py  (1/4 est=1s attempt=1)",
		"::endgroup::",
		"[1/4] tests/fast-gpu/test_100% pass.py  PASS  elapsed=Ns",
		"::group::tests/fast-gpu/test_a%25b%0Ac.py  (2/4 est=1s attempt=1)",
		"::endgroup::",
		"[2/4] tests/fast-gpu/test_a%b\\nc.py  PASS  elapsed=Ns",
		"::group::tests/fast-gpu/test_part1%0Dpart2.py  (3/4 est=1s attempt=1)",
		"::endgroup::",
		"[3/4] tests/fast-gpu/test_part1\\rpart2.py  PASS  elapsed=Ns",
		"::group::tests/fast-gpu/test_weird%0Aname.py  (4/4 est=1s attempt=1)",
		"::endgroup::",
		"[4/4] tests/fast-gpu/test_weird\\nname.py  PASS  elapsed=Ns",
	}, marks)
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

// TestDiffPaths_CannotForgeWorkflowCommands: the paths of a PR's diff are
// text the pull request chooses, printed by `policy --explain` one per
// line; a line break or a leading "::" in one is quoted.
func TestDiffPaths_CannotForgeWorkflowCommands(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "tests", "fast-gpu"), 0o755))
	diff := filepath.Join(root, "diff")
	require.NoError(t, os.WriteFile(diff, []byte("M\x00docs/a\n::error title=X::y.md\x00M\x00::error::z\x00M\x00 \t::error::w\x00"), 0o644))
	t.Setenv("EVENT_NAME", "pull_request")
	t.Setenv("PR_LABELS_JSON", "[]")
	t.Setenv("CHANGED_FILES_PATH", diff)
	out, code := runAsGitHubJob(t, root, "policy", "--explain", "--github-output", filepath.Join(root, "out"))
	assert.Equal(t, 0, code, "%s", out)
	assert.Contains(t, out, "\n  \"docs/a\\n::error title=X::y.md\"  spared by the no-GPU rule docs/*/**\n")
	assert.Contains(t, out, "\n  \"::error::z\"  ")
	assert.Contains(t, out, "\n  \" \\t::error::w\"  ")
	assertNoForgedCommand(t, out)
}

// TestFileNames_SurviveAReportRoundTrip: a test file whose name holds a
// line break is written to the JSON report and JUnit XML as it is, kept
// by `report merge`, and selected again by --rerun-failed.
func TestFileNames_SurviveAReportRoundTrip(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tests", "fast-gpu")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	const body = "import sys\n\n\ndef register_cuda_ci(**kw):\n    pass\n\n\n" +
		"register_cuda_ci(est_time=1, suite=\"stage-b-2-gpu-h200\", labels=[\"lora\"])\nsys.exit(1)\n"
	const bad = "tests/fast-gpu/test_\r\n::error title=X::y%.py"
	require.NoError(t, os.WriteFile(filepath.Join(root, bad), []byte(body), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_ok.py"), []byte(strings.Replace(body, "sys.exit(1)", "sys.exit(0)", 1)), 0o644))
	stage := []string{"run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-lora"}

	rep, junit := filepath.Join(root, "r.json"), filepath.Join(root, "r.xml")
	out, code := runAsGitHubJob(t, root, append(stage, "--continue-on-error", "--json-report", rep, "--junit-xml", junit)...)
	require.Equal(t, 1, code, "%s", out)
	data, err := os.ReadFile(rep)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"file": "tests/fast-gpu/test_\r\n::error title=X::y%.py"`)
	data, err = os.ReadFile(junit)
	require.NoError(t, err)
	assert.Contains(t, string(data), `name="tests/fast-gpu/test_&#xD;&#xA;::error title=X::y%.py"`)

	merged := filepath.Join(root, "merged.json")
	out, code = runAsGitHubJob(t, root, "report", "merge", rep, "-o", merged)
	require.Equal(t, 0, code, "%s", out)
	out, code = runAsGitHubJob(t, root, append(stage, "--rerun-failed", merged, "--list-only")...)
	require.Equal(t, 0, code, "%s", out)
	assert.Contains(t, out, "Enabled 1 test(s) (est total 1s):\n  - tests/fast-gpu/test_\\r\\n::error title=X::y%.py (est_time=1.0s)\n")
	assertNoForgedCommand(t, out)
}
