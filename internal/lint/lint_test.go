package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// smallConfig is a roster of three suites: a CPU one, a sharded GPU one and
// an external one; the policy job is called "policy".
const smallConfig = `discovery:
  roots: [tests]
  pattern: "**/test_*.py"
register_functions:
  register_cpu_ci: cpu
  register_cuda_ci: cuda
  register_rocm_ci: rocm
labels: [core]
suites:
  cpu:
    - name: unit
      runs_on: [ubuntu-latest]
      needs: [policy]
  cuda:
    - name: gpu
      runs_on: [gpu, 2x]
      shards: 2
      needs: [policy, unit]
  rocm:
    - name: ext
      external: true
schedules:
  "0 1 * * *": nightly
`

// The workflow all small cases edit: no rule finds an error in it
// (TestRules_TheSmallWorkflowHasNoError). Its copies under testdata/rules
// make one slip each; a test asserts what its own rules find there
// (scope_test.go), so a rule that fires on this workflow changes no other
// rule's expectations.
const smallWorkflow = `on:
  schedule:
    - cron: '0 1 * * *'
jobs:
  policy:
    runs-on: ubuntu-latest
    steps:
      - uses: ./.github/actions/setup-miles-ci
      - run: miles-ci policy
  unit:
    needs: policy
    runs-on: ubuntu-latest
    steps:
      - uses: ./.github/actions/setup-miles-ci
      - run: |
          miles-ci run --hw cpu --suite unit \
            --cadence ${{ needs.policy.outputs.cadence }} --labels ${{ needs.policy.outputs.raw_labels }}
  gpu:
    needs: [policy, unit]
    if: ${{ !contains(fromJSON(needs.policy.outputs.skipped_stages), 'gpu') }}
    strategy:
      max-parallel: ${{ needs.policy.outputs.cadence == 'weekly' && 1 || 2 }}
      matrix:
        partition_id: [0, 1]
    runs-on: [gpu, 2x]
    steps:
      - run: >-
          python3 -m tests.ci.run_suite --hw=cuda --suite gpu
          --auto-partition-id ${{ matrix.partition_id }} --auto-partition-size 2
          --cadence ${{ needs.policy.outputs.cadence }}
          --labels ${{ needs.policy.outputs.raw_labels }}
`

// setupActionFile is the one install definition of a migrated
// repository, which every job that runs miles-ci uses; setupActionYAML is
// a stand-in in its shape (miles-ci help migrate has the real one).
const (
	setupActionFile = ".github/actions/setup-miles-ci/action.yml"
	setupActionYAML = `name: Set up miles-ci
description: Install the pinned miles-ci and put it on PATH
runs:
  using: composite
  steps:
    - name: Install miles-ci
      shell: sh
      env:
        MILES_CI_VERSION: v0.5.0
      run: |
        mkdir -p "$RUNNER_TEMP/miles-ci/bin"
        cp "$MILES_CI_BIN" "$RUNNER_TEMP/miles-ci/bin/miles-ci"
        echo "$RUNNER_TEMP/miles-ci/bin" >> "$GITHUB_PATH"
`
)

var smallTests = map[string]string{
	"tests/test_unit.py": "register_cpu_ci(1, 'unit')\n",
	"tests/test_gpu.py":  "register_cuda_ci(1, 'gpu', labels=['core'])\n",
	"tests/test_ext.py":  "register_rocm_ci(1, 'ext', labels=['core'])\n",
}

// lintSmall lints a repository of smallConfig, the given workflows and
// test files (smallTests unless tests is given), and returns the finding
// lines with the configuration's temporary path written .miles-ci.yaml.
func lintSmall(t *testing.T, workflows map[string]string, tests map[string]string) []string {
	t.Helper()
	return findingLines(lintSmallResult(t, workflows, tests))
}

// lintSmallResult is lintSmall's whole result.
func lintSmallResult(t *testing.T, workflows map[string]string, tests map[string]string) *Result {
	t.Helper()
	return lintRepoResult(t, smallConfig, workflows, tests, Options{})
}

// lintRepoResult is lintSmallResult of a repository whose configuration
// is cfgText, linted with opts: the findings of the rules the test is
// about (scope_test.go).
func lintRepoResult(t *testing.T, cfgText string, workflows map[string]string, tests map[string]string, opts Options) *Result {
	t.Helper()
	root := t.TempDir()
	if tests == nil {
		tests = smallTests
	}
	files := map[string]string{config.FileName: cfgText, setupActionFile: setupActionYAML}
	for name, text := range workflows {
		files[".github/workflows/"+name] = text
	}
	for name, text := range tests {
		files[name] = text
	}
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	cfg, err := config.Load(root, "")
	require.NoError(t, err)
	reg, err := registry.Collect(root, cfg)
	require.NoError(t, err)
	res, err := RunWith(root, cfg, reg.Registrations, opts)
	require.NoError(t, err)
	for _, l := range findingLines(res) {
		require.NotContains(t, l, root, "a finding names the configuration by its path from the root")
	}
	requireRegistered(t, res)
	return scoped(t, res)
}

// prYML is how a finding in a fixture linted as pr-test.yml begins.
const prYML = ".github/workflows/pr-test.yml:"

// lintFixture lints a repository of smallConfig and tests (smallTests
// when nil) whose workflow is the fixture testdata/rules/NAME.yml, as
// pr-test.yml, or whose workflows are the files of the directory
// testdata/rules/NAME, and returns the finding lines. Each rule's test
// has fixtures of its own, so that a line added to one moves the
// expectations of that fixture only.
func lintFixture(t *testing.T, name string, tests map[string]string) []string {
	t.Helper()
	p := filepath.Join("testdata", "rules", filepath.FromSlash(name))
	workflows := map[string]string{}
	if data, err := os.ReadFile(p + ".yml"); err == nil {
		workflows["pr-test.yml"] = string(data)
	} else {
		entries, err := os.ReadDir(p)
		require.NoError(t, err, "no fixture %s.yml, nor a directory %s", p, p)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(p, e.Name()))
			require.NoError(t, err)
			workflows[e.Name()] = string(data)
		}
	}
	return lintSmall(t, workflows, tests)
}

// fixtureCase is a fixture and every finding lint reports on it of the
// rules its test is about (about(t, …), scope_test.go).
type fixtureCase struct {
	what    string   // the slip the fixture makes
	fixture string   // testdata/rules/FIXTURE(.yml), as lintFixture reads it
	want    []string // the finding lines, in order; none when nil
}

// testFixtures lints each case's fixture and compares the finding lines.
func testFixtures(t *testing.T, cases []fixtureCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			want := tc.want
			requireAbout(t, want)
			if want == nil {
				want = []string{}
			}
			assert.Equal(t, want, lintFixture(t, tc.fixture, nil))
		})
	}
}

// A job aliased into a hundred jobs makes the same two mistakes a hundred
// times: the first 20 of each rule are listed, then one line counts the
// rest, and the totals count them all.
func TestRules_ARuleRepeatedInAFileIsListedUpToACap(t *testing.T) {
	about(t, RuleDuplicateJob, RuleJobName)
	wf := strings.Replace(smallWorkflow, "  unit:\n    needs", "  unit: &unit\n    needs", 1)
	for i := range 100 {
		wf += fmt.Sprintf("  unit%d: *unit\n", i)
	}
	res := lintSmallResult(t, map[string]string{"pr-test.yml": wf}, nil)
	lines := findingLines(res)
	count := map[string]int{}
	for _, l := range lines {
		count[l[strings.LastIndex(l, "["):]]++
	}
	assert.Equal(t, map[string]int{"[duplicate-job]": MaxPerRule + 1, "[job-name]": MaxPerRule + 1}, count, strings.Join(lines, "\n"))
	const pr = ".github/workflows/pr-test.yml:"
	last := lineOf(t, wf, "", "  unit0:") + MaxPerRule - 1
	assert.Contains(t, lines, fmt.Sprintf("%s%d:3: error: job 'unit%d' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]", pr, last, MaxPerRule-1))
	assert.Contains(t, lines, fmt.Sprintf("%s%d:3: error: %d more job-name findings in this file from here on are not listed (lint lists the first %d of a rule in a file) [job-name]", pr, last+1, 100-MaxPerRule, MaxPerRule))
	assert.Equal(t, 200, res.Errors)
	assert.Equal(t, 0, res.Warnings)
	for _, f := range res.Findings {
		if strings.Contains(f.Message, "more") {
			assert.Equal(t, 100-MaxPerRule, f.Omitted, f.String())
		}
	}
}

func edit(old, new string) func(string) string {
	return func(s string) string {
		if !strings.Contains(s, old) {
			panic("no " + old)
		}
		return strings.Replace(s, old, new, 1)
	}
}

// The small workflow is a valid repository's, which the fixtures make one
// slip in: no rule finds an error in it. (What a warning rule finds on it
// is its own test's: a fixture that copies it leaves its findings to the
// rule's own test.)
func TestRules_TheSmallWorkflowHasNoError(t *testing.T) {
	wholeOutput(t, "no rule finds an error in the small workflow")
	res := lintSmallResult(t, map[string]string{"pr-test.yml": smallWorkflow}, nil)
	assert.Equal(t, 0, res.Errors, "%q", findingLines(res))
	assert.Empty(t, errorLines(res))
}

// A step that a YAML alias shares between two jobs is read once: each of
// its findings comes once, at the step, and the jobs' own findings once
// per job.
func TestRules_AStepSharedThroughAnAliasIsReportedOnce(t *testing.T) {
	about(t, RulePolicyInputs, RuleDuplicateJob, RuleJobName)
	testFixtures(t, []fixtureCase{
		{"a step shared through a YAML alias is reported once", "aliased-step", []string{
			prYML + "17:59: error: --labels does not take the policy job's raw_labels: write --labels ${{ needs.policy.outputs.raw_labels }} [policy-inputs]",
			prYML + "18:3: error: job 'unit-again' runs suite unit, which job 'unit' (.github/workflows/pr-test.yml:10) runs already; a suite has exactly one stage job [duplicate-job]",
			prYML + "18:3: error: job 'unit-again' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
		}},
	})
}

// The /rerun-test workflow runs one file, not a stage; the other entry
// points and commands that merely mention the runner are not stage jobs.
func TestRules_OnlyRunnerInvocationsAreStageJobs(t *testing.T) {
	// The rules that would report them, were they stage jobs: the
	// /rerun-test job has no --suite and lands where an expression says.
	about(t, RuleUnknownSuite, RuleRunsOn, RuleDuplicateJob, RuleJobName, RuleHW, RuleNoInstall)
	extra := `on: workflow_dispatch
jobs:
  run-file:
    uses: ./.github/workflows/_gpu.yml
    with:
      runs_on: ${{ needs.resolve.outputs.runs_on }}
      execute_command: >-
        miles-ci run --file '${{ inputs.test_file }}'
  resolve:
    runs-on: ubuntu-latest
    steps:
      - uses: ./.github/actions/setup-miles-ci
      - run: miles-ci file-run
      - run: echo "python tests/ci/run_suite.py --suite nope"
      - run: grep -n run_suite tests/ci/run_suite.py  # python tests/ci/run_suite.py --suite nope
      - run: ${{ inputs.execute_command }} --list-only
`
	assert.Empty(t, lintSmall(t, map[string]string{"pr-test.yml": smallWorkflow, "run-ci-file.yml": extra}, nil))
}

// A run: script of 400,000 words on one line is read and placed in time
// linear in its length: the finding after them has its exact column. Words
// YAML escapes, so that none is found as written, are read as fast; the
// finding is then placed where its word is, or at the command.
func TestRules_ALongRunScript(t *testing.T) {
	about(t, RuleExternalJob, RuleMissingJob, RuleJobName)
	var words strings.Builder
	for i := range 400000 {
		fmt.Fprintf(&words, "w%d ", i)
	}
	prefix := "echo " + words.String() + "&& miles-ci run --hw cpu --suite "
	wf := edit("miles-ci run --hw cpu --suite unit", prefix+"ext")(smallWorkflow)
	got := lintSmall(t, map[string]string{"pr-test.yml": wf}, nil)
	assert.Contains(t, got, fmt.Sprintf(".github/workflows/pr-test.yml:%d:%d: error: suite ext is external: another repository's workflow runs it, so no job here may (.miles-ci.yaml) [external-job]",
		lineOf(t, wf, "", "echo w0 "), 11+len(prefix)))

	escaped := strings.ReplaceAll(words.String()[:2<<20], "w", `\u00e9`)
	run := smallWorkflow[strings.Index(smallWorkflow, "      - run: |\n          miles-ci run --hw cpu"):strings.Index(smallWorkflow, "  gpu:")]
	wf = edit(run, `      - run: "echo `+escaped+` && miles-ci run --hw cpu --suite ext --cadence ${{ needs.policy.outputs.cadence }} --labels ${{ needs.policy.outputs.raw_labels }}"`+"\n")(smallWorkflow)
	got = lintSmall(t, map[string]string{"pr-test.yml": wf}, nil)
	require.Len(t, got, 3, "%q", got)
	assert.Regexp(t, fmt.Sprintf(`^\.github/workflows/pr-test\.yml:%d:[0-9]+: error: suite ext is external`, lineOf(t, wf, "", `- run: "echo `)), got[2])
}
