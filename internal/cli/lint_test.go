package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lintFixture is the lint package's trimmed copy of the Miles workflows:
// no error, one orphan registration.
const lintFixture = "../lint/testdata/miles"

func TestNewCmdLint_ParsesFlags(t *testing.T) {
	cases := []struct {
		argv string
		want LintOptions
	}{
		{"", LintOptions{}},
		{"--json", LintOptions{JSON: true}},
		{"--strict --json", LintOptions{JSON: true, Strict: true}},
	}
	for _, tc := range cases {
		t.Run(tc.argv, func(t *testing.T) {
			f, _, _ := suitesFactory(".", nil)
			var got *LintOptions
			cmd := NewCmdLint(f, func(o *LintOptions) error { got = o; return nil })
			cmd.SetArgs(strings.Fields(tc.argv))
			require.NoError(t, cmd.Execute())
			assert.Equal(t, tc.want.JSON, got.JSON)
			assert.Equal(t, tc.want.Strict, got.Strict)
		})
	}
}

const fixtureOrphan = "tests/e2e/megatron/test_blackwell.py:3:1: warning: suite 'stage-c-8-gpu-b200' is not in the roster and no job runs it, " +
	"so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (the built-in roster; see `miles-ci config --default`) [orphan-registration]"

func TestLint_ExitStatusAndOutput(t *testing.T) {
	cases := []struct {
		name   string
		args   []string
		code   int
		stdout string
	}{
		{"warnings pass", []string{"lint"}, 0, fixtureOrphan + "\n0 errors, 1 warning\n"},
		{"--strict fails on a warning", []string{"lint", "--strict"}, 1, fixtureOrphan + "\n0 errors, 1 warning\n"},
		{"a usage error", []string{"lint", "--nope"}, 2, ""},
		{"no arguments", []string{"lint", "x"}, 2, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, out, errOut := suitesFactory(lintFixture, nil)
			assert.Equal(t, tc.code, Main(append([]string{"--root", lintFixture}, tc.args...), f), errOut.String())
			assert.Equal(t, tc.stdout, out.String())
		})
	}
}

// copyFixture copies the lint fixture so a test can break it.
func copyFixture(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(lintFixture)))
	return dst
}

func TestLint_AnErrorFailsAndAnnotatesUnderGitHubActions(t *testing.T) {
	root := copyFixture(t)
	p := filepath.Join(root, ".github/workflows/pr-test.yml")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(data), `'["h100", "8gpu"]'`, `'["h100", "4gpu"]'`, 1)), 0o644))

	want := `.github/workflows/pr-test.yml:131:7: error: runs_on is ["h100","4gpu"] but the roster has ["h100","8gpu"] for stage-c-8-gpu-h100 (the built-in roster; see ` + "`miles-ci config --default`" + `) [runs-on]`
	for _, env := range []map[string]string{{"GITHUB_ACTIONS": "true"}, {"GITHUB_ACTIONS": "1"}} {
		f, out, errOut := suitesFactory(root, env)
		assert.Equal(t, 1, Main([]string{"--root", root, "lint"}, f))
		assert.Equal(t, want+"\n"+fixtureOrphan+"\n1 error, 1 warning\n", out.String(), "stdout holds only findings and the summary")
		if env["GITHUB_ACTIONS"] == "true" {
			assert.Equal(t, `::error file=.github/workflows/pr-test.yml,line=131,col=7,title=runs-on::runs_on is ["h100","4gpu"] but the roster has ["h100","8gpu"] for stage-c-8-gpu-h100 (the built-in roster; see `+"`miles-ci config --default`"+`)`+"\n"+
				`::warning file=tests/e2e/megatron/test_blackwell.py,line=3,col=1,title=orphan-registration::suite 'stage-c-8-gpu-b200' is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (the built-in roster; see `+"`miles-ci config --default`"+`)`+"\n",
				errOut.String())
		} else {
			assert.Empty(t, errOut.String(), "annotations only when GITHUB_ACTIONS is exactly true")
		}
	}

	f, out, _ := suitesFactory(root, nil)
	assert.Equal(t, 1, Main([]string{"--root", root, "lint", "--json"}, f))
	var doc struct {
		Findings []map[string]any `json:"findings"`
		Errors   int              `json:"errors"`
		Warnings int              `json:"warnings"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &doc), out.String())
	assert.Equal(t, 1, doc.Errors)
	assert.Equal(t, 1, doc.Warnings)
	require.Len(t, doc.Findings, 2)
	assert.Equal(t, map[string]any{"path": ".github/workflows/pr-test.yml", "line": 131.0, "col": 7.0, "severity": "error", "rule": "runs-on",
		"message": `runs_on is ["h100","4gpu"] but the roster has ["h100","8gpu"] for stage-c-8-gpu-h100 (the built-in roster; see ` + "`miles-ci config --default`" + `)`}, doc.Findings[0])
}

func TestLint_ABrokenTestFileIsTheCollectorsError(t *testing.T) {
	root := copyFixture(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "tests/ci/test_slow_cpu.py"), []byte("register_cpu_ci(\n"), 0o644))
	f, out, errOut := suitesFactory(root, nil)
	assert.Equal(t, 1, Main([]string{"--root", root, "lint"}, f))
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), "error: tests/ci/test_slow_cpu.py")
}

func TestLint_NoFindingsIsAnEmptyJSONList(t *testing.T) {
	root := copyFixture(t)
	require.NoError(t, os.Remove(filepath.Join(root, "tests/e2e/megatron/test_blackwell.py")))
	f, out, errOut := suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "lint", "--json", "--strict"}, f), errOut.String())
	assert.JSONEq(t, `{"findings":[],"errors":0,"warnings":0}`, out.String())
}

// A workflow is pull-request text too: neither a file name nor a command
// line of it can start an output line with a workflow command.
func TestLint_WorkflowTextCannotForgeWorkflowCommands(t *testing.T) {
	root := copyFixture(t)
	wfDir := filepath.Join(root, ".github", "workflows")
	require.NoError(t, os.WriteFile(filepath.Join(wfDir, "x\n::error title=X::y.yml"), []byte("jobs: [\n"), 0o644))
	p := filepath.Join(wfDir, "pr-test.yml")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	// An empty line keeps a line break in a folded scalar.
	forged := strings.Replace(string(data), "--auto-partition-size 4", "--auto-partition-size '4\n\n        ::error title=X::y'", 1)
	forged = strings.Replace(forged, "--suite stage-b-cpu", "--suite ${{ 'a\n\n        ::error title=X::y' }}", 1)
	require.NotEqual(t, string(data), forged)
	require.NoError(t, os.WriteFile(p, []byte(forged), 0o644))

	for _, args := range [][]string{{"lint"}, {"lint", "--json"}} {
		f, out, errOut := suitesFactory(root, map[string]string{"GITHUB_ACTIONS": "true"})
		assert.Equal(t, 1, Main(append([]string{"--root", root}, args...), f))
		for _, rule := range []string{"shards", "unknown-suite", "yaml"} {
			assert.Contains(t, out.String()+errOut.String(), "title="+rule+"::", "%v", args)
		}
		for _, line := range strings.Split(out.String()+errOut.String(), "\n") {
			assert.False(t, strings.HasPrefix(line, "::error title="), "a forged workflow command: %q", line)
		}
	}
}
