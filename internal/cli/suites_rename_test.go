package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// copyDir copies the tree at src into dst, files writable.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	}))
}

// renameCheck is what a rename must keep: what lint says and what run
// lists for the suite, under its new name.
type renameCheck struct {
	lint string
	runs []string
}

// renameFacts lints root and lists, for each of the argument lists, what
// run --list-only of suite prints (stdout and stderr).
func renameFacts(t *testing.T, root, suite string, runs [][]string) renameCheck {
	t.Helper()
	code, out, errOut := miles(t, root, nil, "lint")
	require.Equal(t, 0, code, out+errOut)
	c := renameCheck{lint: out + errOut}
	for _, args := range runs {
		code, out, errOut := miles(t, root, nil, append([]string{"run", "--list-only", "--hw", "cuda", "--suite", suite}, args...)...)
		require.Equal(t, 0, code, out+errOut)
		require.Contains(t, out, suite)
		c.runs = append(c.runs, out+"--- stderr\n"+errOut)
	}
	return c
}

// changedFiles lists the files whose text differs between two reads of
// a tree, and checks that each differs only by the name: its words are
// the old ones with some old names, standing alone, now the new one, and
// nothing else moved.
func changedFiles(t *testing.T, before, after map[string][]byte, old, new string) []string {
	t.Helper()
	var changed []string
	for p, b := range before {
		a := after[p]
		if string(a) == string(b) {
			continue
		}
		changed = append(changed, filepath.ToSlash(p))
		wb, wa := wholeWords(string(b)), wholeWords(string(a))
		require.Equal(t, len(wb), len(wa), "%s: the words of the file changed", p)
		renamed := 0
		for i := range wb {
			if wb[i] != wa[i] {
				require.Equal(t, [2]string{old, new}, [2]string{wb[i], wa[i]}, "%s: word %d", p, i)
				renamed++
			}
		}
		assert.Equal(t, len(b)+renamed*(len(new)-len(old)), len(a), "%s changed more than the name", p)
	}
	sort.Strings(changed)
	return changed
}

// wholeWords splits text into its runs of suite-name characters.
func wholeWords(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool {
		return !(r == '-' || r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	})
}

// The runs compared before and after a rename: the nightly listing of
// every test, and each shard of the suite.
var renameRuns = [][]string{
	{"--match-all-labels", "--cadence", "nightly"},
	{"--match-all-labels", "--cadence", "nightly", "--auto-partition-id", "0", "--auto-partition-size", "2"},
	{"--match-all-labels", "--cadence", "nightly", "--auto-partition-id", "1", "--auto-partition-size", "2"},
}

// renameAndCompare renames old to new in root and checks that lint says
// what it said and run lists what it listed, but for the name; it returns
// the files the rename changed.
func renameAndCompare(t *testing.T, root, old, new string, edits, files int) ([]string, string) {
	t.Helper()
	before := renameFacts(t, root, old, renameRuns)
	tree := readTree(t, root)
	code, out, errOut := miles(t, root, nil, "suites", "rename", old, new)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "hint: renamed "+old+" to "+new+" ("+strconv.Itoa(edits)+" edits in "+strconv.Itoa(files)+" files); check the workflows against the roster with `miles-ci --root "+root+" lint`, then commit\n",
		errOut[strings.Index(errOut, "hint: "):])
	after := renameFacts(t, root, new, renameRuns)
	assert.Equal(t, before.lint, after.lint, "lint says after the rename what it said before")
	for i := range before.runs {
		assert.Equal(t, strings.ReplaceAll(before.runs[i], old, new), after.runs[i], "run --list-only %v", renameRuns[i])
	}
	code, _, errOut = miles(t, root, nil, "run", "--list-only", "--hw", "cuda", "--suite", old)
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "Unknown suite "+old)
	return changedFiles(t, tree, readTree(t, root), old, new), out
}

func TestSuitesRename_TheSampleKeepsItsLintAndItsTests(t *testing.T) {
	root := t.TempDir()
	copyDir(t, filepath.Join("..", "..", "testdata", "sample"), root)
	code, _, errOut := miles(t, root, nil, "config", "--init")
	require.Equal(t, 0, code, errOut)

	changed, out := renameAndCompare(t, root, "stage-c-8-gpu-h100", "stage-d-8-gpu-h100", 8, 6)
	want := []string{
		".github/workflows/pr-test.yml",
		".miles-ci.yaml",
		"tests/e2e/megatron/test_megatron_ckpt.py",
		"tests/e2e/megatron/test_megatron_long.py",
		"tests/e2e/megatron/test_megatron_pp4.py",
		"tests/e2e/megatron/test_megatron_tp2.py",
	}
	assert.Equal(t, want, changed)
	code, lintOut, errOut := miles(t, root, nil, "lint")
	assert.Equal(t, 0, code)
	assert.Equal(t, "0 errors, 0 warnings\n", lintOut+errOut, "the sample lints clean after the rename")
	assert.Equal(t, ".github/workflows/pr-test.yml: 3 edits\n.miles-ci.yaml: 1 edit\n"+
		"tests/e2e/megatron/test_megatron_ckpt.py: 1 edit\ntests/e2e/megatron/test_megatron_long.py: 1 edit\n"+
		"tests/e2e/megatron/test_megatron_pp4.py: 1 edit\ntests/e2e/megatron/test_megatron_tp2.py: 1 edit\n", out)
}

// The pinned Miles workflows and CI scripts, with a test file per suite
// and a roster written by config --init: the rename of a GPU suite touches
// the roster, the job, the register call and the three Python lists.
func TestSuitesRename_MilesKeepsItsLintAndItsTests(t *testing.T) {
	ref := testutil.MilesRef(t)
	root := t.TempDir()
	copyDir(t, filepath.Join(ref, ".github", "workflows"), filepath.Join(root, ".github", "workflows"))
	copyDir(t, filepath.Join(ref, "tests"), filepath.Join(root, "tests"))
	copyDir(t, filepath.Join("..", "lint", "testdata", "miles", "tests"), filepath.Join(root, "tests"))
	code, _, errOut := miles(t, root, nil, "config", "--init")
	require.Equal(t, 0, code, errOut)

	code, diff, errOut := miles(t, root, nil, "suites", "rename", "stage-c-8-gpu-h100", "stage-c-8-gpu-h100-nvl", "--dry-run")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "dry run: 8 edits in 6 files; nothing written\n")
	assert.Contains(t, errOut, "note: tests/ci/run_suite.py still names stage-c-8-gpu-h100 on line 34,")
	assert.Contains(t, errOut, "note: tests/ci/test/test_run_suite.py still names stage-c-8-gpu-h100 on lines 49, 101, 399, 640, 655, 676, 686, 693, … (29 lines),")
	var headers []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+++ ") {
			headers = append(headers, l)
		}
	}
	assert.Equal(t, []string{
		"+++ b/.github/workflows/pr-test.yml", "+++ b/.miles-ci.yaml", "+++ b/tests/ci/file_run.py",
		"+++ b/tests/ci/run_suite.py", "+++ b/tests/ci/stage_selection.py", "+++ b/tests/e2e/megatron/test_stage_c_8_gpu_h100.py",
	}, headers, "the diff goes file by file, sorted")

	changed, _ := renameAndCompare(t, root, "stage-c-8-gpu-h100", "stage-c-8-gpu-h100-nvl", 8, 6)
	assert.Equal(t, []string{
		".github/workflows/pr-test.yml", ".miles-ci.yaml", "tests/ci/file_run.py", "tests/ci/run_suite.py",
		"tests/ci/stage_selection.py", "tests/e2e/megatron/test_stage_c_8_gpu_h100.py",
	}, changed)
}

func TestSuitesRename_RefusesAndWritesNothing(t *testing.T) {
	base := t.TempDir()
	copyDir(t, filepath.Join("..", "..", "testdata", "sample"), base)

	cases := []struct {
		name   string
		init   bool
		edit   func(t *testing.T, root string)
		args   []string
		code   int
		stderr string
	}{
		{name: "the built-in roster", args: []string{"stage-c-8-gpu-h100", "stage-x"}, code: 1,
			stderr: "error: the roster in effect is miles-ci's built-in one, which a rename cannot edit: run `miles-ci config --init` to write it into .miles-ci.yaml, commit it, then rename\n"},
		{name: "an unknown suite", init: true, args: []string{"stage-c-8-gpu-h10", "stage-x"}, code: 1,
			stderr: "error: Unknown suite stage-c-8-gpu-h10; known suites: stage-a-cpu, stage-b-cpu, stage-b-2-gpu-h200, stage-c-8-gpu-h100, stage-c-8-gpu-h200, stage-c-4-gpu-h200, stage-c-2-gpu-h200, stage-c-4-gpu-mi350, nightly-stage-c-8-gpu-mi350, nightly-stage-c-4-gpu-mi350, nightly-stage-c-2-gpu-mi350\nhint: did you mean stage-c-8-gpu-h100?\n"},
		{name: "a taken name", init: true, args: []string{"stage-c-8-gpu-h100", "stage-b-cpu"}, code: 2,
			stderr: "error: suite stage-b-cpu is in the roster (.miles-ci.yaml) already; choose another name\nRun 'miles-ci suites rename --help' for usage.\n"},
		{name: "one argument", init: true, args: []string{"stage-c-8-gpu-h100"}, code: 2,
			stderr: "error: suites rename takes two arguments, OLD and NEW (got 1)\nRun 'miles-ci suites rename --help' for usage.\n"},
		{name: "an f-string registration", init: true, args: []string{"stage-c-8-gpu-h100", "stage-x"}, code: 1,
			edit: func(t *testing.T, root string) {
				testutil.WriteFile(t, root, "tests/e2e/megatron/test_built.py",
					"GPUS = 8\nregister_cuda_ci(est_time=60, suite=f\"stage-c-{GPUS}-gpu-h100\", labels=[\"megatron\"])\n")
			},
			stderr: "error: tests/e2e/megatron/test_built.py:2: cannot rename stage-c-8-gpu-h100: the suite of register_cuda_ci() is an f-string, which may name the suite but cannot be renamed in place; write it as a string literal\n" +
				"error: 1 place cannot be renamed safely; nothing was written\n"},
		{name: "a read-only file", init: true, args: []string{"stage-c-8-gpu-h100", "stage-x"}, code: 1,
			edit: func(t *testing.T, root string) {
				require.NoError(t, os.Chmod(filepath.Join(root, "tests/e2e/megatron/test_megatron_pp4.py"), 0o444))
			},
			stderr: "error: tests/e2e/megatron/test_megatron_pp4.py:11: cannot rename stage-c-8-gpu-h100: the file cannot be rewritten: is read-only; refusing to rewrite it\n" +
				"error: 1 place cannot be renamed safely; nothing was written\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			copyDir(t, base, root)
			if tc.init {
				code, _, errOut := miles(t, root, nil, "config", "--init")
				require.Equal(t, 0, code, errOut)
			}
			if tc.edit != nil {
				tc.edit(t, root)
			}
			tree := readTree(t, root)
			code, out, errOut := miles(t, root, nil, append([]string{"suites", "rename"}, tc.args...)...)
			assert.Equal(t, tc.code, code)
			assert.Empty(t, out)
			assert.Equal(t, tc.stderr, errOut)
			assert.Equal(t, tree, readTree(t, root), "nothing was written")
		})
	}
}

// Another repository's workflow runs an external suite by name, which no
// rename here can change: the rename says so.
func TestSuitesRename_WarnsThatAnExternalSuiteIsNamedElsewhere(t *testing.T) {
	root := t.TempDir()
	copyDir(t, filepath.Join("..", "..", "testdata", "sample"), root)
	code, _, errOut := miles(t, root, nil, "config", "--init")
	require.Equal(t, 0, code, errOut)
	code, diff, errOut := miles(t, root, nil, "suites", "rename", "nightly-stage-c-2-gpu-mi350", "nightly-stage-c-2-gpu-mi355", "--dry-run")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(errOut, "warning: nightly-stage-c-2-gpu-mi350 is an external suite: another repository's workflow runs it by name, "+
		"and fails on an unknown suite until it says nightly-stage-c-2-gpu-mi355 too (`miles-ci lint --external FILE` checks that workflow)\n"), errOut)
	assert.Contains(t, diff, "+    - name: nightly-stage-c-2-gpu-mi355\n")
}
