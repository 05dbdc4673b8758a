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
		{"--runners a.json --runners org,x.json", LintOptions{Runners: []string{"a.json", "org,x.json"}}},
		{"--external nightly.yml --external b.yaml", LintOptions{External: []string{"nightly.yml", "b.yaml"}}},
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
			assert.Equal(t, tc.want.Runners, got.Runners)
			assert.Equal(t, tc.want.External, got.External)
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

// lintFleetFile is the lint package's hand-written runners listing: every
// label set of the built-in roster, on two pages as gh --paginate prints
// them.
const lintFleetFile = "../lint/testdata/runners/fleet.json"

// writeListing writes a runners listing holding the runners of
// lintFleetFile that keep says to keep.
func writeListing(t *testing.T, keep func(name string) bool) string {
	t.Helper()
	data, err := os.ReadFile(lintFleetFile)
	require.NoError(t, err)
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var out []byte
	for dec.More() {
		var page struct {
			TotalCount int              `json:"total_count"`
			Runners    []map[string]any `json:"runners"`
		}
		require.NoError(t, dec.Decode(&page))
		kept := []map[string]any{}
		for _, r := range page.Runners {
			if keep(r["name"].(string)) {
				kept = append(kept, r)
			}
		}
		page.Runners = kept
		b, err := json.Marshal(page)
		require.NoError(t, err)
		out = append(out, b...)
	}
	p := filepath.Join(t.TempDir(), "runners.json")
	require.NoError(t, os.WriteFile(p, out, 0o644))
	return p
}

// --runners adds the fleet's findings and nothing else: a fleet carrying
// every label set leaves lint's output as it was; without the h100
// runners, lint fails at the roster's runs_on and at the job's; the
// listings of several files (a repository's and its organization's) are
// one fleet.
func TestLint_RunnersChecksTheRosterAgainstTheFleet(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		f, out, errOut := suitesFactory(lintFixture, nil)
		code := Main(append([]string{"--root", lintFixture, "lint"}, args...), f)
		return code, out.String(), errOut.String()
	}
	code, out, errOut := run("--runners", lintFleetFile)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, fixtureOrphan+"\n0 errors, 1 warning\n", out)

	noH100 := writeListing(t, func(name string) bool { return !strings.Contains(name, "h100") })
	code, out, _ = run("--runners", noH100)
	assert.Equal(t, 1, code)
	lines := strings.Split(out, "\n")
	require.Len(t, lines, 5, out)
	assert.True(t, strings.HasPrefix(lines[0], `.github/workflows/pr-test.yml:131:7: error: no runner of `+noH100+` carries all of ["h100","8gpu"] (the runs_on of job 'stage-c-8-gpu-h100')`), lines[0])
	assert.True(t, strings.HasPrefix(lines[1], `miles-ci config --default:69:7: error: no runner of `+noH100+` carries all of ["h100","8gpu"] (the roster's runs_on for stage-c-8-gpu-h100)`), lines[1])
	assert.Equal(t, "2 errors, 1 warning", lines[3])

	onlyH100 := writeListing(t, func(name string) bool { return strings.Contains(name, "h100") })
	code, out, errOut = run("--runners", noH100, "--runners", onlyH100)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, fixtureOrphan+"\n0 errors, 1 warning\n", out)
}

// A runners listing or an external workflow that cannot be read, or is
// not one, stops lint with one line naming it; an empty value is a usage
// error.
func TestLint_FileFlagsRefuseWhatTheyCannotRead(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte("{\"runners\": [\n  {\"id\": 1,}\n]}"), 0o644))
	brokenYAML := filepath.Join(dir, "broken.yml")
	require.NoError(t, os.WriteFile(brokenYAML, []byte("on: push\njobs:\n  a: [\n"), 0o644))
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"--runners", filepath.Join(dir, "nope.json")}, 1, "error: --runners " + filepath.Join(dir, "nope.json") + ": no such file or directory\n"},
		{[]string{"--runners", dir}, 1, "error: --runners " + dir + ": is a directory, not a regular file\n"},
		{[]string{"--runners", broken}, 1, "error: " + broken + ":2: not a runners listing: invalid character '}' looking for beginning of object key string; expected the output of gh api --paginate repos/OWNER/REPO/actions/runners\n"},
		{[]string{"--runners", lintFleetFile, "--runners", ""}, 2, "error: --runners needs a path, got an empty value\n"},
		{[]string{"--external", filepath.Join(dir, "nope.yml")}, 1, "error: --external " + filepath.Join(dir, "nope.yml") + ": no such file or directory\n"},
		{[]string{"--external", dir}, 1, "error: --external " + dir + ": is a directory, not a regular file\n"},
		{[]string{"--external", externalNightly, "--external", brokenYAML}, 1, "error: " + brokenYAML + ":3: the workflow is not valid YAML: did not find expected node content\n"},
		{[]string{"--external", ""}, 2, "error: --external needs a path, got an empty value\n"},
	} {
		f, out, errOut := suitesFactory(lintFixture, nil)
		assert.Equal(t, tc.code, Main(append([]string{"--root", lintFixture, "lint"}, tc.args...), f), tc.args)
		assert.Empty(t, out.String())
		assert.True(t, strings.HasPrefix(errOut.String(), tc.stderr), "%v: %s", tc.args, errOut.String())
		if tc.code == 1 {
			assert.Equal(t, tc.stderr, errOut.String(), "one line")
		}
	}
}

// The external nightly in the form another repository publishes it, with
// Miles' own stage names; the lint package's tests pin its findings.
const externalNightly = "../../testdata/docs/external/nightly-mi350.yml"

// --external adds the external workflow's findings to lint's own, and
// fails on them; the JSON and the annotations carry them like any other.
func TestLint_ExternalChecksAnotherRepositorysWorkflow(t *testing.T) {
	f, out, errOut := suitesFactory(lintFixture, map[string]string{"GITHUB_ACTIONS": "true"})
	assert.Equal(t, 1, Main([]string{"--root", lintFixture, "lint", "--external", externalNightly}, f))
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	require.Len(t, lines, 9, out.String())
	assert.Equal(t, "7 errors, 1 warning", lines[8])
	assert.Contains(t, lines, fixtureOrphan)
	var external int
	for _, l := range lines {
		if strings.HasPrefix(l, externalNightly+":") {
			external++
		}
	}
	assert.Equal(t, 4, external, "the wrong suites at their matrix entries, and the runner the fixture does not hold")
	assert.Contains(t, errOut.String(), "::error file="+externalNightly+",line=")
	assert.Contains(t, errOut.String(), "title=external-owned::")
}
