package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/timings"
)

const h100Call = "register_cuda_ci(est_time=600, suite=\"stage-c-8-gpu-h100\", labels=[\"short\"])\n"

// applyMain runs miles-ci with args under root's factory and returns the
// exit status, stdout and stderr.
func applyMain(t *testing.T, root string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := suitesFactory(root, nil)
	code := Main(args, f)
	return code, out.String(), errOut.String()
}

// runPrinted runs a command a hint printed, split as a shell splits it,
// in process: what a user pasting it would get.
func runPrinted(t *testing.T, root, cmdline string) (int, string, string) {
	t.Helper()
	argv := shellWords(t, "hint", cmdline)
	require.Equal(t, "miles-ci", argv[0], cmdline)
	return applyMain(t, root, argv[1:]...)
}

// A timings file names files; apply writes only the registered test
// files below the root, reached through real directories. A key that
// leaves the root makes the timings file unusable (no writer of miles-ci
// makes one): nothing is written. A key naming no registered file (gone,
// moved, outside the discovery roots) is a warning: CI's timings lag the
// tree. A registered file reached through a linked directory is an error,
// and is not written.
func TestTimingsApply_WritesOnlyRegisteredFilesBelowTheRoot(t *testing.T) {
	outside := testutil.TempTree(t, map[string]string{
		"victim.py":        h100Call,
		"linked/test_v.py": h100Call,
	})
	// tests/fast-gpu, a discovery root, is a link to a directory of the
	// repository: discovery walks it, but apply writes no file through it.
	root := testutil.TempTree(t, map[string]string{
		"tests/e2e/short/test_b.py": h100Call,
		"tools/test_tool.py":        h100Call,
		"gpu/test_r.py":             h100Call,
	})
	require.NoError(t, os.Symlink(filepath.Join(outside, "linked"), filepath.Join(root, "tests/e2e/linked")))
	require.NoError(t, os.Symlink(filepath.Join(root, "gpu"), filepath.Join(root, "tests/fast-gpu")))
	dir := t.TempDir()

	escape := writeTimings(t, dir, "escape.json", timings.Timings{"../" + filepath.Base(outside) + "/victim.py": 3000, "tests/e2e/short/test_b.py": 3000})
	code, _, errOut := applyMain(t, root, "--root", root, "timings", "apply", escape)
	assert.Equal(t, 1, code)
	assert.Equal(t, `error: read timings "`+escape+`": timing of "../`+filepath.Base(outside)+`/victim.py": the file is not a path relative to the repository root ('/'-separated, no '.', '..' or empty part), as the registry names test files`+"\n", errOut)
	for _, p := range []string{filepath.Join(outside, "victim.py"), filepath.Join(root, "tests/e2e/short/test_b.py")} {
		data, _ := os.ReadFile(p)
		assert.Equal(t, h100Call, string(data), "nothing is written: %s", p)
	}

	tm := writeTimings(t, dir, "t.json", timings.Timings{
		"tests/e2e/linked/test_v.py": 3000, "tests/fast-gpu/test_r.py": 3000, "tools/test_tool.py": 3000, "tests/e2e/short/test_b.py": 3000,
	})
	code, out, errOut := applyMain(t, root, "--root", root, "timings", "apply", "--hw", "cuda", tm)
	assert.Equal(t, 1, code, errOut)
	assert.Equal(t, "tests/e2e/short/test_b.py:1 est_time 600 -> 3000 (measured 3000s)\n", out)
	assert.Contains(t, errOut, "warning: tests/e2e/linked/test_v.py: not a test file of the repository (none of that name below the discovery roots: deleted, renamed or never one); left alone\n")
	assert.Contains(t, errOut, "warning: tools/test_tool.py: not a test file of the repository")
	assert.Contains(t, errOut, "error: tests/fast-gpu/test_r.py: its directory tests/fast-gpu is a symbolic link; refusing to rewrite through it (rewrite the file where it lies)\n")
	for _, p := range []string{filepath.Join(outside, "linked/test_v.py"), filepath.Join(root, "gpu/test_r.py"), filepath.Join(root, "tools/test_tool.py")} {
		data, _ := os.ReadFile(p)
		assert.Equal(t, h100Call, string(data), p)
	}
}

// A measured time no run can take (9.2e18 s, which once became
// est_time=-9223372036854775808 and broke every command) is refused where
// the timings file is read, naming the file and the test file; the
// largest accepted one is written as an est_time every command reads.
func TestTimingsApply_BoundsTheMeasuredSeconds(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{"tests/e2e/short/test_b.py": h100Call})
	dir := t.TempDir()
	huge := writeTimings(t, dir, "huge.json", timings.Timings{"tests/e2e/short/test_b.py": 9.2e18})
	code, _, errOut := applyMain(t, root, "--root", root, "timings", "apply", huge)
	assert.Equal(t, 1, code)
	assert.Equal(t, `error: read timings "`+huge+`": timing of "tests/e2e/short/test_b.py" is 9.2e+18 seconds, more than the 3024000 (35 days) a workflow run may last; expected measured seconds`+"\n", errOut)

	most := writeTimings(t, dir, "most.json", timings.Timings{"tests/e2e/short/test_b.py": timings.MaxSeconds})
	code, out, errOut := applyMain(t, root, "--root", root, "timings", "apply", most)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "tests/e2e/short/test_b.py:1 est_time 600 -> 3100000 (measured 3024000s)\n", out)
	regs := suitesJSON(t, root)
	require.Len(t, regs, 1)
	assert.Equal(t, 3100000.0, regs[0].EstTime)
	code, out, errOut = applyMain(t, root, "--root", root, "run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--match-all-labels", "--list-only")
	assert.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "tests/e2e/short/test_b.py (est_time=3100000.0s)")
}

// apply keeps the file's mode, set-group-ID and sticky bits included, and
// refuses a file with a second name, leaving both names as they were.
func TestTimingsApply_KeepsTheModeAndRefusesHardLinks(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"tests/e2e/short/test_b.py": h100Call,
		"tests/e2e/short/test_c.py": h100Call,
	})
	b := filepath.Join(root, "tests/e2e/short/test_b.py")
	require.NoError(t, os.Chmod(b, 0o775|os.ModeSetgid|os.ModeSticky))
	before, err := os.Stat(b)
	require.NoError(t, err)
	c := filepath.Join(root, "tests/e2e/short/test_c.py")
	other := filepath.Join(t.TempDir(), "snapshot_of_c.py")
	require.NoError(t, os.Link(c, other))
	tm := writeTimings(t, t.TempDir(), "t.json", timings.Timings{"tests/e2e/short/test_b.py": 3000, "tests/e2e/short/test_c.py": 3000})

	code, out, errOut := applyMain(t, root, "--root", root, "timings", "apply", tm)
	assert.Equal(t, 1, code)
	assert.Equal(t, "tests/e2e/short/test_b.py:1 est_time 600 -> 3000 (measured 3000s)\n", out)
	after, err := os.Stat(b)
	require.NoError(t, err)
	assert.Equal(t, before.Mode(), after.Mode())
	assert.Contains(t, errOut, "error: tests/e2e/short/test_c.py: has 2 hard links; refusing to rewrite it")
	for _, p := range []string{c, other} {
		data, _ := os.ReadFile(p)
		assert.Equal(t, h100Call, string(data), p)
	}
}

// On the Miles tree most test files register a CUDA and a ROCm suite.
// Timings written by run --timings-out name the suite that measured each
// file, and apply changes that suite's call alone, with no flag; timings
// that do not name it fail with hints whose commands, run as printed, do
// the job; so does the command --check prints.
func TestTimingsApply_MilesFilesOfTwoBackends(t *testing.T) {
	root := copyTests(t, testutil.MilesCheckout(t))
	var file string
	var est float64
	byFile := map[string][]jsonReg{}
	for _, r := range suitesJSON(t, root) {
		byFile[r.File] = append(byFile[r.File], r)
	}
	for f, regs := range byFile {
		if len(regs) == 2 && regs[0].Backend == "cuda" && regs[1].Backend == "rocm" && (file == "" || f < file) {
			file, est = f, regs[0].EstTime
		}
	}
	require.NotEmpty(t, file, "a Miles file registering a CUDA and then a ROCm suite")
	cuda, rocm := byFile[file][0], byFile[file][1]
	measured := est*2 + 100
	want := float64(timings.Round(measured))
	estOf := func() (float64, float64) {
		for _, r := range suitesJSON(t, root) {
			if r.File == file && r.Backend == "cuda" {
				cuda = r
			} else if r.File == file && r.Backend == "rocm" {
				rocm = r
			}
		}
		return cuda.EstTime, rocm.EstTime
	}
	_, rocmEst := estOf()
	dir := t.TempDir()

	// Old timings: no suite named. The run fails and changes nothing.
	old := writeTimings(t, dir, "old timings.json", timings.Timings{file: measured})
	code, _, errOut := applyMain(t, root, "--root", root, "timings", "apply", "--check", old)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "and the timings do not say which of them measured it; left alone")
	hint := regexp.MustCompile(`(?m)^hint: if they were measured on cuda runners, run: (.*)$`).FindStringSubmatch(errOut)
	require.NotNil(t, hint, errOut)
	assert.Contains(t, hint[1], `'`+old+`'`, "a path with a blank is quoted")

	// The hint, run as printed: --check with --hw cuda lists the drift and
	// prints the command that updates it; that one, run, writes it.
	code, out, errOut := runPrinted(t, root, hint[1])
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, out, file+":")
	update := regexp.MustCompile(`(?m)drifted; to update them, run: (.*)$`).FindStringSubmatch(errOut)
	require.NotNil(t, update, errOut)
	code, _, errOut = runPrinted(t, root, update[1])
	require.Equal(t, 0, code, errOut)
	gotCuda, gotRocm := estOf()
	assert.Equal(t, want, gotCuda)
	assert.Equal(t, rocmEst, gotRocm, "the ROCm call keeps its value")

	// New timings name the suite: no flag is needed, and the ROCm call of
	// the file moves when the ROCm suite measured it.
	d := &timings.Document{Seconds: timings.Timings{file: measured * 2},
		Sources: map[string]timings.Source{file: {Suite: rocm.Suite, Backend: config.ROCM}}}
	data, err := d.Marshal()
	require.NoError(t, err)
	named := filepath.Join(dir, "rocm.json")
	require.NoError(t, os.WriteFile(named, data, 0o644))
	code, out, errOut = applyMain(t, root, "--root", root, "timings", "apply", named)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, file+":"), out)
	gotCuda, gotRocm = estOf()
	assert.Equal(t, want, gotCuda)
	assert.Equal(t, float64(timings.Round(measured*2)), gotRocm)
}
