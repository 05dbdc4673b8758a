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

// The workflow all small cases edit: every rule passes on it.
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
	root := t.TempDir()
	if tests == nil {
		tests = smallTests
	}
	files := map[string]string{config.FileName: smallConfig, setupActionFile: setupActionYAML}
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
	res, err := Run(root, cfg, reg.Registrations)
	require.NoError(t, err)
	for _, l := range findingLines(res) {
		require.NotContains(t, l, root, "a finding names the configuration by its path from the root")
	}
	return res
}

// A job aliased into a hundred jobs makes the same two mistakes a hundred
// times: the first 20 of each rule are listed, then one line counts the
// rest, and the totals count them all.
func TestRules_ARuleRepeatedInAFileIsListedUpToACap(t *testing.T) {
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
	last := 32 + MaxPerRule - 1 // unit0 is on line 32
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

func TestRules_TheSmallWorkflowPasses(t *testing.T) {
	assert.Empty(t, lintSmall(t, map[string]string{"pr-test.yml": smallWorkflow}, nil))
}

func TestRules_EachRuleReportsItsLine(t *testing.T) {
	const pr = ".github/workflows/pr-test.yml:"
	cases := []struct {
		name string
		edit func(string) string
		want []string
	}{
		{"job-name", edit("  unit:\n    needs", "  unit-tests:\n    needs"), []string{
			pr + "10:3: error: job 'unit-tests' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
		}},
		{"duplicate-job on the later job", func(s string) string {
			return s + strings.Replace(s[strings.Index(s, "  unit:"):strings.Index(s, "  gpu:")], "  unit:", "  unit2:", 1)
		}, []string{
			pr + "32:3: error: job 'unit2' runs suite unit, which job 'unit' (.github/workflows/pr-test.yml:10) runs already; a suite has exactly one stage job [duplicate-job]",
			pr + "32:3: error: job 'unit2' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
		}},
		{"external-job", edit("--suite unit", "--suite ext"), []string{
			pr + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			pr + "10:3: error: job 'unit' runs suite 'ext'; stage and suite names are one set, so name the job ext [job-name]",
			pr + "16:41: error: suite ext is external: another repository's workflow runs it, so no job here may (" + ".miles-ci.yaml) [external-job]",
		}},
		{"unknown-suite as an expression", edit("--suite unit", "--suite ${{ matrix.suite }}"), []string{
			pr + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			pr + "16:41: error: --suite is the expression ${{ matrix.suite }}; write the suite's name so the job can be checked against the roster [unknown-suite]",
		}},
		// A mistyped suite is offered the suite meant, and the job is not
		// told to take the typo's name.
		{"unknown-suite: a typo", edit("--suite unit", "--suite units"), []string{
			pr + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			pr + "16:41: error: suite 'units' is not in the roster (.miles-ci.yaml); did you mean unit? [unknown-suite]",
		}},
		// A suite of another backend is never offered: the job's own
		// name is.
		{"unknown-suite: a typo of another backend's suite", edit("--suite gpu", "--suite unit2"), []string{
			pr + "4:1: error: no job runs suite gpu, so its registration never runs: add a job gpu running miles-ci run --hw cuda --suite gpu [missing-job]",
			pr + "28:59: error: suite 'unit2' is not in the roster (.miles-ci.yaml); did you mean gpu, the job's own name? [unknown-suite]",
		}},
		{"unknown-suite: nothing near, the job's name is a suite", edit("--suite unit", "--suite tests-on-cpu"), []string{
			pr + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			pr + "16:41: error: suite 'tests-on-cpu' is not in the roster (.miles-ci.yaml); did you mean unit, the job's own name? [unknown-suite]",
		}},
		{"unknown-suite: nothing near at all", func(s string) string {
			return edit("  unit:\n    needs", "  cpu-tests:\n    needs")(edit("--suite unit", "--suite tests-on-cpu")(s))
		}, []string{
			pr + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			pr + "16:41: error: suite 'tests-on-cpu' is not in the roster (.miles-ci.yaml); known suites: unit, gpu, ext [unknown-suite]",
		}},
		// argparse keeps the last of a repeated flag; so do the rules, and
		// the earlier one is a warning.
		{"repeated-flag: --suite twice, the last wins", edit("--suite unit", "--suite ext --suite unit"), []string{
			pr + "16:33: warning: --suite is given again later in the command (--suite unit) and the runner keeps the last, so this --suite ext is ignored: give --suite once [repeated-flag]",
		}},
		{"repeated-flag: the last is read", edit("--suite unit", "--suite unit --suite=units"), []string{
			pr + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			pr + "16:33: warning: --suite is given again later in the command (--suite=units) and the runner keeps the last, so this --suite unit is ignored: give --suite once [repeated-flag]",
			pr + "16:46: error: suite 'units' is not in the roster (.miles-ci.yaml); did you mean unit? [unknown-suite]",
		}},
		{"repeated-flag: a list flag and a value flag", edit("--auto-partition-size 2\n          --cadence", "--auto-partition-size 3 --auto-partition-size 2\n          --labels a b --cadence"), []string{
			pr + "29:58: warning: --auto-partition-size is given again later in the command (--auto-partition-size 2) and the runner keeps the last, so this --auto-partition-size 3 is ignored: give --auto-partition-size once [repeated-flag]",
			pr + "30:11: warning: --labels is given again later in the command (--labels ${{ needs.policy.outputs.raw_labels }}) and the runner keeps the last, so this --labels a b is ignored: give --labels once [repeated-flag]",
		}},
		// A wrapper that runs the runner (here a time limit) leaves it a
		// stage job: before wrappers were read, its wrong --hw passed.
		{"hw through a wrapper", edit("miles-ci run --hw cpu --suite unit", "timeout 600 miles-ci run --hw cuda --suite unit"), []string{
			pr + "16:41: error: --hw is 'cuda' but suite unit is a cpu suite in the roster (.miles-ci.yaml): write --hw cpu [hw]",
		}},
		{"hw given with =", edit("--hw=cuda", "--hw=rocm"), []string{
			pr + "28:41: error: --hw is 'rocm' but suite gpu is a cuda suite in the roster (.miles-ci.yaml): write --hw cuda [hw]",
		}},
		{"runs-on as a list", edit("runs-on: [gpu, 2x]", "runs-on: [gpu]"), []string{
			pr + "25:5: error: runs-on is [\"gpu\"] but the roster has [\"gpu\",\"2x\"] for gpu (.miles-ci.yaml) [runs-on]",
		}},
		{"shards: size, id and matrix", func(s string) string {
			return edit("--auto-partition-id ${{ matrix.partition_id }} --auto-partition-size 2", "--auto-partition-id 0 --auto-partition-size 1")(
				edit("partition_id: [0, 1]", "partition_id: [1, 0]")(s))
		}, []string{
			pr + "24:9: error: partition_id is [1, 0] but the roster has 2 shards for gpu (.miles-ci.yaml): write [0, 1] [shards]",
			pr + "29:31: error: --auto-partition-id is 0; each shard job must take its own: --auto-partition-id ${{ matrix.partition_id }} [shards]",
			pr + "29:55: error: --auto-partition-size is 1 but the roster has 2 shards for gpu (.miles-ci.yaml) [shards]",
		}},
		// An exclude drops a shard the partition_id list still shows.
		{"shards: matrix.exclude removes a shard", edit("partition_id: [0, 1]\n", "partition_id: [0, 1]\n        exclude:\n          - partition_id: 1\n"), []string{
			pr + "26:13: error: matrix.exclude removes partition_id 1, so that shard of the 2 shards of gpu (.miles-ci.yaml) never runs: remove the exclude entry [shards]",
		}},
		{"skip-guard without skipped_stages", edit("${{ !contains(fromJSON(needs.policy.outputs.skipped_stages), 'gpu') }}", "always()"), []string{
			pr + "20:5: error: if: does not test skipped_stages for gpu, so the job runs even when the policy skips it: add !contains(fromJSON(needs.policy.outputs.skipped_stages || '[]'), 'gpu') [skip-guard]",
		}},
		{"skip-guard that lost its !", edit("${{ !contains(", "${{ contains("), []string{
			pr + "20:5: error: if: tests contains(…skipped_stages…, 'gpu') without !, so the job runs only when the policy skips gpu and never when it should run: write !contains(fromJSON(needs.policy.outputs.skipped_stages || '[]'), 'gpu') [skip-guard]",
		}},
		{"skip-guard with no if", edit("    if: ${{ !contains(fromJSON(needs.policy.outputs.skipped_stages), 'gpu') }}\n", ""), []string{
			pr + "18:3: error: the job has no if: guard, so it runs even when the policy skips gpu: add !contains(fromJSON(needs.policy.outputs.skipped_stages || '[]'), 'gpu') [skip-guard]",
		}},
		{"policy-inputs: labels from elsewhere and no need", func(s string) string {
			return edit("--labels ${{ needs.policy.outputs.raw_labels }}\n", "--labels ${{ github.event.label.name }}\n")(edit("needs: [policy, unit]", "needs: [unit]")(s))
		}, []string{
			pr + "17:59: error: --labels does not take the policy job's raw_labels: write --labels ${{ needs.policy.outputs.raw_labels }} [policy-inputs]",
			pr + "19:5: error: the job does not need the policy job policy, so it cannot read its outputs: add it to needs [policy-inputs]",
		}},
		{"policy-inputs with no policy job (and no cron check)", edit("      - run: miles-ci policy\n", "      - run: echo no policy\n"), []string{
			pr + "16:11: error: no job of pr-test.yml resolves the CI policy (python -m tests.ci.ci_policy or miles-ci policy), so the command cannot take --cadence and --labels from it [policy-inputs]",
			pr + "28:11: error: no job of pr-test.yml resolves the CI policy (python -m tests.ci.ci_policy or miles-ci policy), so the command cannot take --cadence and --labels from it [policy-inputs]",
		}},
		{"needs", edit("needs: [policy, unit]", "needs: [policy]"), []string{
			pr + "19:5: error: needs lacks unit, which the roster lists for gpu: needs: [policy, unit] (.miles-ci.yaml) [needs]",
		}},
		{"weekly-serial", edit("${{ needs.policy.outputs.cadence == 'weekly' && 1 || 2 }}", "2"), []string{
			pr + "22:7: error: max-parallel is 2 and does not depend on the policy's cadence, so a weekly run does not run one shard at a time: write max-parallel: ${{ needs.policy.outputs.cadence == 'weekly' && 1 || 2 }} [weekly-serial]",
		}},
		{"cron", edit("- cron: '0 1 * * *'", "- cron: '0 2 * * *'"), []string{
			pr + "3:13: error: cron '0 2 * * *' has no cadence in the configuration's schedules ('0 1 * * *' -> nightly), so the policy step would fail with \"No CI policy is defined for schedule: 0 2 * * *\"; add it to the configuration's schedules (.miles-ci.yaml) or remove it [cron]",
		}},
		{"yaml", func(string) string { return "jobs:\n  unit: [\n" }, []string{
			pr + "2:1: error: the workflow is not valid YAML: did not find expected node content [yaml]",
		}},
		{"yaml duplicate key", func(s string) string { return s + "  unit:\n    runs-on: ubuntu-latest\n" }, []string{
			pr + `32:3: error: the key "unit" is defined twice in one mapping (lines 10 and 32); GitHub Actions refuses the workflow [yaml]`,
		}},
		{"a step shared through a YAML alias is reported once", func(s string) string {
			s = strings.Replace(s, "    steps:\n      - uses: ./.github/actions/setup-miles-ci\n      - run: |\n          miles-ci run --hw cpu", "    steps: &unitsteps\n      - uses: ./.github/actions/setup-miles-ci\n      - run: |\n          miles-ci run --hw cpu", 1)
			s = strings.Replace(s, "--labels ${{ needs.policy.outputs.raw_labels }}\n  gpu:", "--labels run-ci-all\n  unit-again:\n    needs: policy\n    runs-on: ubuntu-latest\n    steps: *unitsteps\n  gpu:", 1)
			return s
		}, []string{
			pr + "17:59: error: --labels does not take the policy job's raw_labels: write --labels ${{ needs.policy.outputs.raw_labels }} [policy-inputs]",
			pr + "18:3: error: job 'unit-again' runs suite unit, which job 'unit' (.github/workflows/pr-test.yml:10) runs already; a suite has exactly one stage job [duplicate-job]",
			pr + "18:3: error: job 'unit-again' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
		}},
		// Shapes GitHub Actions refuses: the rules read nothing more of the
		// workflow, so its suites are not reported missing as well.
		{"yaml empty", func(string) string { return "# nothing yet\n" }, []string{
			pr + "1:1: error: the workflow is empty; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml a list", func(string) string { return "- on\n- jobs\n" }, []string{
			pr + "1:1: error: the workflow is a list, not a mapping of keys such as on: and jobs:; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml no jobs", func(s string) string { return s[:strings.Index(s, "jobs:")] }, []string{
			pr + "1:1: error: the workflow has no jobs: key; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml jobs a number", func(s string) string { return s[:strings.Index(s, "jobs:")] + "jobs: 5\n" }, []string{
			pr + "4:7: error: jobs: is the scalar '5', not a mapping of job ids to jobs; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml only a document marker", func(string) string { return "# c\n---\n# d\n" }, []string{
			pr + "1:1: error: the workflow is empty; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml no job", func(s string) string { return s[:strings.Index(s, "jobs:")] + "jobs: {}\n" }, []string{
			pr + "4:7: error: jobs: holds no job; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml no trigger", func(s string) string { return s[strings.Index(s, "jobs:"):] }, []string{
			pr + "1:1: error: the workflow has no on: key, so no event triggers it; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml a long scalar job", edit("  unit:\n    needs", "  other: "+strings.Repeat("x", 300)+"\n  unit:\n    needs"), []string{
			pr + "10:10: error: job 'other' is the scalar '" + strings.Repeat("x", 40) + "'…, not a mapping of keys such as runs-on: and steps:; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml a job a number", edit("  unit:\n    needs", "  other: 5\n  unit:\n    needs"), []string{
			pr + "10:10: error: job 'other' is the scalar '5', not a mapping of keys such as runs-on: and steps:; GitHub Actions refuses the workflow [yaml]",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := lintSmall(t, map[string]string{"pr-test.yml": tc.edit(smallWorkflow)}, nil)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestRules_RegistrationsNoJobRuns(t *testing.T) {
	tests := map[string]string{
		"tests/test_unit.py":  "register_cpu_ci(1, 'unit')\n",
		"tests/test_gpu.py":   "register_cuda_ci(1, 'gpu', labels=['core'], disabled='flaky')\n",
		"tests/test_ext.py":   "register_rocm_ci(1, 'ext', labels=['core'])\n",
		"tests/test_amd.py":   "\nregister_rocm_ci(1, 'gpu', labels=['core'])\n",
		"tests/test_gone.py":  "import os\nregister_cpu_ci(1, 'stage-gone')\n",
		"tests/test_mixed.py": "register_cpu_ci(1, 'unit')\nregister_cuda_ci(2, 'b200', labels=['core'])\n",
	}
	got := lintSmall(t, map[string]string{"pr-test.yml": smallWorkflow}, tests)
	assert.Equal(t, []string{
		// The gpu suite's only cuda test is disabled: its job runs nothing.
		".github/workflows/pr-test.yml:18:3: warning: suite gpu holds no enabled cuda registration, so job 'gpu' runs no test (fine while tests migrate to it) [empty-suite]",
		"tests/test_amd.py:2:1: warning: suite 'gpu' is a cuda suite, so its job never runs this rocm registration: register it with the suite's backend or in a rocm suite [orphan-registration]",
		"tests/test_gone.py:2:1: warning: suite 'stage-gone' is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (.miles-ci.yaml) [orphan-registration]",
		"tests/test_mixed.py:2:1: warning: suite 'b200' is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (.miles-ci.yaml) [orphan-registration]",
	}, got)
}

func TestRules_WhereAJobLands(t *testing.T) {
	reusable := "on: {workflow_call: {inputs: {execute_command: {type: string}}}}\njobs:\n  run:\n    runs-on: %s\n    steps:\n      - uses: ./.github/actions/setup-miles-ci\n      - run: ${{ inputs.execute_command }}\n"
	caller := func(uses, with string) string {
		return edit("    runs-on: ubuntu-latest\n    steps:\n      - uses: ./.github/actions/setup-miles-ci\n      - run: |\n          miles-ci run --hw cpu --suite unit \\\n            --cadence ${{ needs.policy.outputs.cadence }} --labels ${{ needs.policy.outputs.raw_labels }}\n",
			"    uses: "+uses+"\n    with:\n"+with+"      execute_command: >-\n        miles-ci run --hw cpu --suite unit --cadence ${{ needs.policy.outputs.cadence }}\n        --labels ${{ needs.policy.outputs.raw_labels }}\n")(smallWorkflow)
	}
	cases := []struct {
		name      string
		workflows map[string]string
		want      []string
	}{
		{"the single job of a local reusable workflow", map[string]string{
			"pr-test.yml": caller("./.github/workflows/_cpu.yml", ""), "_cpu.yml": fmt.Sprintf(reusable, "ubuntu-latest")}, nil},
		{"a wrong label there is reported on uses:", map[string]string{
			"pr-test.yml": caller("./.github/workflows/_cpu.yml", ""), "_cpu.yml": fmt.Sprintf(reusable, "[self-hosted, cpu]")}, []string{
			".github/workflows/pr-test.yml:12:5: error: the runs-on of .github/workflows/_cpu.yml is [\"self-hosted\",\"cpu\"] but the roster has [\"ubuntu-latest\"] for unit (.miles-ci.yaml) [runs-on]"}},
		{"runs_on input wins", map[string]string{
			"pr-test.yml": caller("./.github/workflows/_gpu.yml", "      runs_on: '[\"ubuntu-latest\"]'\n"), "_gpu.yml": fmt.Sprintf(reusable, "${{ fromJSON(inputs.runs_on) }}")}, nil},
		{"runs_on as an expression", map[string]string{
			"pr-test.yml": caller("./.github/workflows/_gpu.yml", "      runs_on: ${{ needs.plan.outputs.runs_on }}\n"), "_gpu.yml": fmt.Sprintf(reusable, "${{ fromJSON(inputs.runs_on) }}")}, []string{
			".github/workflows/pr-test.yml:14:7: error: runs_on is the expression ${{ needs.plan.outputs.runs_on }}, so lint cannot tell where the job lands; write the labels; the roster has [\"ubuntu-latest\"] for unit [runs-on]"}},
		{"a reusable workflow of another repository", map[string]string{
			"pr-test.yml": caller("org/repo/.github/workflows/ci.yml@v1", "")}, []string{
			".github/workflows/pr-test.yml:12:5: error: the job calls org/repo/.github/workflows/ci.yml@v1, whose runners lint cannot see; pass runs_on or call a workflow of this repository; the roster has [\"ubuntu-latest\"] for unit [runs-on]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := lintSmall(t, tc.workflows, nil)
			if tc.want == nil {
				tc.want = []string{}
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// The /rerun-test workflow runs one file, not a stage; the other entry
// points and commands that merely mention the runner are not stage jobs.
func TestRules_OnlyRunnerInvocationsAreStageJobs(t *testing.T) {
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

// A job that plans its suite, then runs it, is one job of that suite.
func TestRules_TwoCommandsOfOneJobAreOneStageJob(t *testing.T) {
	twice := edit("      - run: |\n          miles-ci run --hw cpu --suite unit \\\n",
		"      - run: miles-ci run --hw cpu --suite unit --list-only --cadence ${{ needs.policy.outputs.cadence }} --labels ${{ needs.policy.outputs.raw_labels }}\n"+
			"      - run: |\n          miles-ci run --hw cpu --suite unit \\\n")(smallWorkflow)
	assert.Empty(t, lintSmall(t, map[string]string{"pr-test.yml": twice}, nil))

	renamed := strings.Replace(twice, "  unit:\n", "  unit-job:\n", 1)
	assert.Equal(t, []string{
		".github/workflows/pr-test.yml:10:3: error: job 'unit-job' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
	}, lintSmall(t, map[string]string{"pr-test.yml": renamed}, nil))
}

// A run: script of 400,000 words on one line is read and placed in time
// linear in its length: the finding after them has its exact column. Words
// YAML escapes, so that none is found as written, are read as fast; the
// finding is then placed where its word is, or at the command.
func TestRules_ALongRunScript(t *testing.T) {
	var words strings.Builder
	for i := range 400000 {
		fmt.Fprintf(&words, "w%d ", i)
	}
	prefix := "echo " + words.String() + "&& miles-ci run --hw cpu --suite "
	wf := edit("miles-ci run --hw cpu --suite unit", prefix+"ext")(smallWorkflow)
	got := lintSmall(t, map[string]string{"pr-test.yml": wf}, nil)
	assert.Contains(t, got, fmt.Sprintf(".github/workflows/pr-test.yml:16:%d: error: suite ext is external: another repository's workflow runs it, so no job here may (.miles-ci.yaml) [external-job]", 11+len(prefix)))

	escaped := strings.ReplaceAll(words.String()[:2<<20], "w", `\u00e9`)
	run := smallWorkflow[strings.Index(smallWorkflow, "      - run: |\n          miles-ci run --hw cpu"):strings.Index(smallWorkflow, "  gpu:")]
	wf = edit(run, `      - run: "echo `+escaped+` && miles-ci run --hw cpu --suite ext --cadence ${{ needs.policy.outputs.cadence }} --labels ${{ needs.policy.outputs.raw_labels }}"`+"\n")(smallWorkflow)
	got = lintSmall(t, map[string]string{"pr-test.yml": wf}, nil)
	require.Len(t, got, 3, "%q", got)
	assert.Regexp(t, `^\.github/workflows/pr-test\.yml:15:[0-9]+: error: suite ext is external`, got[2])
}
