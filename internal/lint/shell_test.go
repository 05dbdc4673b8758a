package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

func texts(cmds [][]word) [][]string {
	out := [][]string{}
	for _, c := range cmds {
		var ws []string
		for _, w := range c {
			ws = append(ws, w.text)
		}
		out = append(out, ws)
	}
	return out
}

func TestSplitScript_ReadsWordsAndCommands(t *testing.T) {
	cases := []struct {
		script string
		want   [][]string
	}{
		{"python tests/ci/run_suite.py --hw cuda", [][]string{{"python", "tests/ci/run_suite.py", "--hw", "cuda"}}},
		{"a  b\tc\r\n\nd", [][]string{{"a", "b", "c"}, {"d"}}},
		{"a; b && c || d | e & f", [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}, {"f"}}},
		{`a 'b c' "d \"e\" \$f" g\ h`, [][]string{{"a", "b c", `d "e" $f`, "g h"}}},
		{"a \\\n  b", [][]string{{"a", "b"}}},
		{"# a comment\na #not a comment? yes: a word starts it\nb x#y", [][]string{{"a"}, {"b", "x#y"}}},
		{"--labels ${{ needs.p.outputs.raw_labels }} --x", [][]string{{"--labels", "${{ needs.p.outputs.raw_labels }}", "--x"}}},
		{"${{ a == 'x; y' && '--m' || '' }} z", [][]string{{"${{ a == 'x; y' && '--m' || '' }}", "z"}}},
		{"x'${{ 'a b' }}'y", [][]string{{"x${{ 'a b' }}y"}}},
		{"${{ 'it''s }}' }} z", [][]string{{"${{ 'it''s }}' }}", "z"}}},
		{"python3 '${{ inputs.f }}' \"${{ inputs.g }}\"", [][]string{{"python3", "${{ inputs.f }}", "${{ inputs.g }}"}}},
		{"'unterminated", [][]string{{"unterminated"}}},
		{"${{ unterminated", [][]string{{"${{ unterminated"}}},
		{"", [][]string{}},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, texts(splitScript(tc.script)), "%q", tc.script)
	}
}

func TestSplitScript_KeepsEachWordAsWritten(t *testing.T) {
	s := `run --a 'b c' ${{ x }}`
	for _, c := range splitScript(s) {
		for _, w := range c {
			assert.Equal(t, w.raw, s[w.start:w.start+len(w.raw)])
		}
	}
	assert.True(t, word{text: "${{ matrix.partition_id }}"}.isExpr())
	assert.False(t, word{text: "a${{ x }}"}.isExpr())
	assert.False(t, word{text: "${{ x }}${{ y }}"}.isExpr())
}

func TestClassify_KnowsEveryFormOfTheEntryPoints(t *testing.T) {
	cases := map[string]invocationKind{
		"python tests/ci/run_suite.py --hw cpu":              runSuite,
		"python3 ./tests/ci/run_suite.py --hw cpu":           runSuite,
		"python -u -m tests.ci.run_suite --hw cpu":           runSuite,
		"FOO=1 miles-ci run --hw cpu":                        runSuite,
		"./bin/miles-ci --root . --config=x.yaml run --hw x": runSuite,
		"miles-ci run --file tests/e2e/test_x.py":            runFile,
		"miles-ci run --file=tests/e2e/test_x.py":            runFile,
		"python -m tests.ci.ci_policy":                       resolvePolicy,
		"python3 tests/ci/ci_policy.py":                      resolvePolicy,
		"miles-ci policy --explain":                          resolvePolicy,
		// A wrapper that runs the entry point: in a container, under a
		// time limit.
		"bash ci/exec_in_container.sh -w /root/miles python3 tests/ci/run_suite.py --hw rocm": runSuite,
		"timeout 3600 miles-ci run --hw cpu":                                                  runSuite,
		"sudo -E env A=1 python -m tests.ci.ci_policy":                                        resolvePolicy,
	}
	for script, want := range cases {
		cmds := splitScript(script)
		require.Len(t, cmds, 1)
		inv := classify(cmds[0])
		if assert.NotNil(t, inv, script) {
			assert.Equal(t, want, inv.kind, script)
		}
	}
	for _, script := range []string{"python3 tests/e2e/test_x.py", "miles-ci suites", "echo miles-ci run", "python -m pytest", "miles-ci", "python",
		"printf '%s' python tests/ci/run_suite.py", "X=1 echo miles-ci run --hw cpu", "test -f miles-ci run", "docker exec ctr python3 tests/e2e/test_x.py"} {
		assert.Nil(t, classify(splitScript(script)[0]), script)
	}
}

// FuzzSplitScript: any script is read without a panic, every word's raw
// text is where its start says, and the reader makes progress.
func FuzzSplitScript(f *testing.F) {
	for _, s := range []string{"a 'b' \"c\\\"\" ${{ 'x' }}", "a\\\nb;c&&d", "${{", "'", "\"\\", "# c\nx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range splitScript(s) {
			for _, w := range c {
				if w.start < 0 || w.start+len(w.raw) > len(s) || s[w.start:w.start+len(w.raw)] != w.raw {
					t.Fatalf("word %+v is not at its place in %q", w, s)
				}
			}
		}
	})
}

// FuzzLintWorkflow: any workflow text gives findings, never a panic, and
// every finding has a place, a rule and a message.
func FuzzLintWorkflow(f *testing.F) {
	f.Add(smallWorkflow)
	f.Add("jobs:\n  a: &x\n    runs-on: *x\n")
	f.Add("on: [push]\njobs: 3\n")
	f.Add("jobs:\n  unit:\n    steps:\n      - run: miles-ci run --suite unit --hw")
	for _, name := range []string{"pr-test.yml", "pr-test-rocm.yml", "run-ci-file.yml"} {
		data, err := os.ReadFile(filepath.Join(milesFixture, ".github", "workflows", name))
		require.NoError(f, err)
		f.Add(string(data))
	}
	root := f.TempDir()
	cfg, err := config.Parse("c.yaml", []byte(smallConfig))
	require.NoError(f, err)
	dir := filepath.Join(root, ".github", "workflows")
	require.NoError(f, os.MkdirAll(dir, 0o755))
	f.Fuzz(func(t *testing.T, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "pr-test.yml"), []byte(text), 0o644))
		res, err := Run(root, cfg, nil)
		require.NoError(t, err)
		for _, fd := range res.Findings {
			if fd.Line < 1 || fd.Col < 1 || fd.Rule == "" || fd.Message == "" {
				t.Fatalf("finding without a place, rule or message: %+v", fd)
			}
		}
	})
}
