package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/lint"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The acceptance of the roster's move out of CI_SUITES: a suite added the
// Miles way (appended to CI_SUITES) is a lint error at its line until the
// roster has it too; `config --init` writes the roster into the
// repository, one line there adds the suite, and then `run` selects its
// registrations and lint asks for its job.

// syntheticRunSuite is a runner of the Miles form whose CI_SUITES agrees
// with the built-in roster (written for this test).
const syntheticRunSuite = `"""Runs one CI suite (a stand-in for the Python runner)."""

import argparse

from tests.ci.ci_register import HWBackend

CI_SUITES = {
    HWBackend.CPU: ["stage-a-cpu", "stage-b-cpu"],
    HWBackend.CUDA: [
        "stage-b-2-gpu-h200",
        "stage-c-8-gpu-h100",
        "stage-c-8-gpu-h200",
        "stage-c-4-gpu-h200",
        "stage-c-2-gpu-h200",
    ],
    # The first runs here, the nightly ones elsewhere.
    HWBackend.ROCM: [
        "stage-c-4-gpu-mi350",
        "nightly-stage-c-8-gpu-mi350",
        "nightly-stage-c-4-gpu-mi350",
        "nightly-stage-c-2-gpu-mi350",
    ],
}


def main():
    argparse.ArgumentParser().parse_args()
`

const b200 = "stage-c-8-gpu-b200"

// lintFindings runs lint --json on root and returns its status and
// findings.
func lintFindings(t *testing.T, root string) (int, []lint.Finding) {
	t.Helper()
	code, out, errOut := cfgRun(t, root, "lint", "--json")
	require.Contains(t, []int{0, 1}, code, errOut)
	var doc struct{ Findings []lint.Finding }
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	return code, doc.Findings
}

func byRule(fs []lint.Finding, rule string) []lint.Finding {
	var out []lint.Finding
	for _, f := range fs {
		if f.Rule == rule {
			out = append(out, f)
		}
	}
	return out
}

// insertAfter inserts line after the first line of the file at p that
// holds anchor (indented as that line) and returns the new line's number.
func insertAfter(t *testing.T, p, anchor, line string) int {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if strings.Contains(l, anchor) {
			indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
			lines = slices.Insert(lines, i+1, indent+line)
			require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644))
			return i + 2
		}
	}
	require.Failf(t, "no anchor", "%q is not in %s", anchor, p)
	return 0
}

// registrationsOf lists, from suites --json, the files registered in suite.
func registrationsOf(t *testing.T, root, suite string) []string {
	t.Helper()
	code, out, errOut := cfgRun(t, root, "suites", "--json")
	require.Equal(t, 0, code, errOut)
	var doc struct {
		Registrations []struct{ File, Suite string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	var files []string
	for _, r := range doc.Registrations {
		if r.Suite == suite {
			files = append(files, r.File)
		}
	}
	return files
}

// addSuiteTheMilesWay walks the migration on a repository whose CI_SUITES
// and workflows agree with the built-in roster and that registers two
// files in the B200 suite no roster has.
func addSuiteTheMilesWay(t *testing.T, root string) {
	runSuite := filepath.Join(root, filepath.FromSlash(lint.RunSuitePath))
	code, findings := lintFindings(t, root)
	assert.Equal(t, 0, code, "the repository lints clean of errors to begin with: %v", findings)
	assert.Empty(t, byRule(findings, lint.RuleCISuites))
	files := registrationsOf(t, root, b200)
	require.Len(t, files, 2)

	// Appended to CI_SUITES, the suite does nothing for miles-ci: lint says so.
	line := insertAfter(t, runSuite, `"stage-c-2-gpu-h200",`, `"`+b200+`",`)
	code, findings = lintFindings(t, root)
	assert.Equal(t, 1, code)
	got := byRule(findings, lint.RuleCISuites)
	require.Len(t, got, 1, "%v", findings)
	assert.Equal(t, lint.RunSuitePath, got[0].Path)
	assert.Equal(t, line, got[0].Line)
	assert.Equal(t, lint.Error, got[0].Severity)
	assert.Equal(t, "suite 'stage-c-8-gpu-b200' is in CI_SUITES[HWBackend.CUDA] but not in the roster (the built-in roster; see `miles-ci config --default`), "+
		"so miles-ci never runs it: add it under suites: cuda of a .miles-ci.yaml (`miles-ci config --init` writes one)", got[0].Message)

	// config --init puts the roster in the repository, unchanged.
	_, before, _ := cfgRun(t, root, "suites", "--json")
	code, _, errOut := cfgRun(t, root, "config", "--init")
	require.Equal(t, 0, code, errOut)
	_, after, _ := cfgRun(t, root, "suites", "--json")
	assert.JSONEq(t, before, after)
	_, findings = lintFindings(t, root)
	got = byRule(findings, lint.RuleCISuites)
	require.Len(t, got, 1)
	assert.Contains(t, got[0].Message, "(.miles-ci.yaml), so miles-ci never runs it: add it under suites: cuda there")

	// One line there adds the suite; CI_SUITES and the roster agree.
	cfgFile := filepath.Join(root, ".miles-ci.yaml")
	data, err := os.ReadFile(cfgFile)
	require.NoError(t, err)
	edited := strings.Replace(string(data), "\n  rocm:\n", "\n    - {name: "+b200+", runs_on: [b200, 8gpu], shards: 1}\n  rocm:\n", 1)
	require.NotEqual(t, string(data), edited)
	require.NoError(t, os.WriteFile(cfgFile, []byte(edited), 0o644))
	code, out, errOut := cfgRun(t, root, "config")
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasPrefix(out, "configuration OK: "), out)

	code, out, errOut = cfgRun(t, root, "run", "--hw", "cuda", "--suite", b200, "--match-all-labels", "--list-only")
	require.Equal(t, 0, code, errOut)
	for _, f := range files {
		assert.Contains(t, out, f)
	}
	assert.Contains(t, out, "Suite: "+b200)

	code, findings = lintFindings(t, root)
	assert.Equal(t, 1, code)
	assert.Empty(t, byRule(findings, lint.RuleCISuites), "CI_SUITES and the roster agree")
	assert.Empty(t, byRule(findings, lint.RuleOrphan), "the registrations are the roster's now")
	missing := byRule(findings, lint.RuleMissingJob)
	require.Len(t, missing, 1, "%v", findings)
	assert.Equal(t, ".github/workflows/pr-test.yml", missing[0].Path)
	assert.Equal(t, "no job runs suite stage-c-8-gpu-b200, so its 2 registrations never run: add a job stage-c-8-gpu-b200 running miles-ci run --hw cuda --suite stage-c-8-gpu-b200", missing[0].Message)
}

func TestRoster_AddingASuiteTheMilesWay(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.CopyFS(root, os.DirFS(lintFixture)))
	testutil.WriteTree(t, root, map[string]string{
		lint.RunSuitePath: syntheticRunSuite,
		"tests/e2e/megatron/test_blackwell_short.py": "from tests.ci.ci_register import register_cuda_ci\n\n" +
			"register_cuda_ci(est_time=900, suite=\"" + b200 + "\", labels=[\"short\"])\n",
	})
	addSuiteTheMilesWay(t, root)
}

func TestRoster_AddingASuiteTheMilesWay_OnMiles(t *testing.T) {
	miles := testutil.MilesCheckout(t)
	root := t.TempDir()
	for _, dir := range []string{"tests", ".github"} {
		require.NoError(t, os.CopyFS(filepath.Join(root, dir), os.DirFS(filepath.Join(miles, dir))))
	}
	addSuiteTheMilesWay(t, root)
}
