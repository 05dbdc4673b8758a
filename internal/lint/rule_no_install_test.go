package lint

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// withFiles is smallTests and more files of the repository.
func withFiles(extra map[string]string) map[string]string {
	out := maps.Clone(smallTests)
	maps.Copy(out, extra)
	return out
}

// lintJob lints the small repository with one more workflow, ci.yml,
// whose one job `lint` has the given steps, and returns the findings in
// ci.yml and in the files given.
func lintJob(t *testing.T, steps string, files map[string]string) []string {
	t.Helper()
	wf := "on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n" + steps
	var out []string
	for _, l := range lintSmall(t, map[string]string{"pr-test.yml": smallWorkflow, "ci.yml": wf}, withFiles(files)) {
		if !strings.HasPrefix(l, ".github/workflows/pr-test.yml:") {
			out = append(out, l)
		}
	}
	return out
}

const (
	checkout     = "      - uses: actions/checkout@v4\n"
	setup        = "      - uses: ./.github/actions/setup-miles-ci\n"
	noInstallMsg = "error: job 'lint' runs miles-ci with no install step before it, so GitHub fails the step with \"miles-ci: command not found\": " +
		"add the step `uses: ./.github/actions/setup-miles-ci` after its checkout (miles-ci help migrate)"
)

// The three install steps lint recognises, and a job with none: the
// finding stands at the first miles-ci word, one per job.
func TestNoInstall_WhatCountsAsAnInstallStep(t *testing.T) {
	about(t, RuleNoInstall, RuleInstallVersion)
	const ci = ".github/workflows/ci.yml:"
	cases := []struct {
		name, steps string
		files       map[string]string
		want        []string
	}{
		{"the composite action", checkout + setup + "      - run: miles-ci lint\n", nil, nil},
		{"no install step", checkout + "      - run: miles-ci lint --strict\n      - run: miles-ci suites\n", nil, []string{
			ci + "7:14: " + noInstallMsg + " [no-install]"}},
		{"the install after the command", checkout + "      - run: miles-ci lint\n" + setup, nil, []string{
			ci + "7:14: " + noInstallMsg + " [no-install]"}},
		{"an inline step that appends to $GITHUB_PATH", checkout +
			"      - run: |\n          tar -xzf miles-ci.tar.gz -C \"$RUNNER_TEMP/miles-ci/bin\" miles-ci\n          echo \"$RUNNER_TEMP/miles-ci/bin\" >> \"$GITHUB_PATH\"\n" +
			"      - run: miles-ci lint\n", nil, nil},
		{"$GITHUB_PATH without miles-ci is another tool", checkout +
			"      - run: echo \"$HOME/.local/bin\" >> $GITHUB_PATH\n      - run: miles-ci lint\n", nil, []string{
			ci + "8:14: " + noInstallMsg + " [no-install]"}},
		{"go install", checkout + "      - run: go install github.com/radixark/miles-ci/cmd/miles-ci@v0.5.0\n      - run: miles-ci lint\n", nil, nil},
		{"go install of another tool", checkout + "      - run: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12\n      - run: miles-ci lint\n", nil, []string{
			ci + "8:14: " + noInstallMsg + " [no-install]"}},
		// Through a wrapper, the finding is on the miles-ci word.
		{"a wrapper", checkout + "      - run: CI=1 timeout 600 miles-ci run --hw cpu --file tests/test_unit.py\n", nil, []string{
			ci + "7:31: " + noInstallMsg + " [no-install]"}},
		// What needs no install: the Python runner, a miles-ci by its
		// path, a line that only mentions it.
		{"what is not a call of miles-ci by name", checkout +
			"      - run: python3 -S -m tests.ci.file_run\n" +
			"      - run: ./bin/miles-ci lint && \"$(go env GOPATH)/bin/miles-ci\" suites\n" +
			"      - run: echo miles-ci lint; grep -rn miles-ci docs\n", nil, nil},
		// An action that follows another to the install is one.
		{"an action that uses the install action", checkout + "      - uses: ./ci/setup\n      - run: miles-ci lint\n", map[string]string{
			"ci/setup/action.yaml": "runs:\n  using: composite\n  steps:\n    - uses: actions/setup-python@v5\n    - uses: ./.github/actions/setup-miles-ci\n"}, nil},
		// A local action that installs nothing is named in the message.
		{"a missing action", checkout + "      - uses: ./.github/actions/setup-miles\n      - run: miles-ci lint\n", nil, []string{
			ci + "8:14: " + noInstallMsg + "; the step at line 7 uses ./.github/actions/setup-miles, but .github/actions/setup-miles/action.yml does not exist below the root (nor action.yaml), so GitHub fails that step [no-install]"}},
		{"an action that is not composite", checkout + "      - uses: ./tools/js\n      - run: miles-ci lint\n", map[string]string{
			"tools/js/action.yml": "runs:\n  using: node20\n  main: index.js\n"}, []string{
			ci + "8:14: " + noInstallMsg + "; the step at line 7 uses ./tools/js, but tools/js/action.yml is not a composite action (runs.using: composite), so lint cannot see what it installs [no-install]"}},
		{"an action that installs nothing", checkout + "      - uses: ./tools/cache\n      - run: miles-ci lint\n", map[string]string{
			"tools/cache/action.yml": "runs:\n  using: composite\n  steps:\n    - uses: actions/cache@v4\n      with: {path: x, key: y}\n"}, []string{
			ci + "8:14: " + noInstallMsg + "; the step at line 7 uses ./tools/cache, but tools/cache/action.yml holds no install step (a run: that appends miles-ci's directory to $GITHUB_PATH, or go install …/cmd/miles-ci@…) [no-install]"}},
		{"actions that use each other", checkout + "      - uses: ./a\n      - run: miles-ci lint\n", map[string]string{
			"a/action.yml": "runs:\n  using: composite\n  steps:\n    - uses: ./b\n",
			"b/action.yml": "runs:\n  using: composite\n  steps:\n    - uses: ./a\n"}, []string{
			ci + "8:14: " + noInstallMsg + "; the step at line 7 uses ./a, but a/action.yml holds no install step (a run: that appends miles-ci's directory to $GITHUB_PATH, or go install …/cmd/miles-ci@…) [no-install]"}},
		{"an action outside the repository", checkout + "      - uses: ./../x\n      - run: miles-ci lint\n", nil, []string{
			ci + "8:14: " + noInstallMsg + "; the step at line 7 uses ./../x, but it names a directory outside the repository [no-install]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := lintJob(t, tc.steps, tc.files)
			assert.Equal(t, tc.want, got)
		})
	}
}

// After the migration's last step tests/ci/run_suite.py is the
// compatibility entry point, which runs miles-ci: a job that calls it
// needs the install as a job that calls miles-ci does. The runner of
// before the migration (with its CI_SUITES) needs none.
func TestNoInstall_TheCompatibilityEntryPointRunsMilesCI(t *testing.T) {
	about(t, RuleNoInstall)
	const (
		ci     = ".github/workflows/ci.yml:"
		call   = "      - run: python3 tests/ci/run_suite.py --hw cpu --suite stage-a-cpu\n"
		compat = "import os\nimport sys\n\nif __name__ == \"__main__\":\n    os.execvp(\"miles-ci\", [\"miles-ci\", \"run\", *sys.argv[1:]])\n"
	)
	shim := map[string]string{RunSuitePath: compat}
	noInstall := func(findings []string) []string {
		var out []string
		for _, f := range findings {
			if strings.HasSuffix(f, "[no-install]") {
				out = append(out, f)
			}
		}
		return out
	}
	assert.Equal(t, []string{ci + "7:22: error: job 'lint' runs tests/ci/run_suite.py (the compatibility entry point, which runs miles-ci) with no install step before it, " +
		"so GitHub fails the step with the entry point's \"miles-ci is not on the PATH\" and status 127: " +
		"add the step `uses: ./.github/actions/setup-miles-ci` after its checkout (miles-ci help migrate) [no-install]"},
		noInstall(lintJob(t, checkout+call, shim)))
	assert.Empty(t, noInstall(lintJob(t, checkout+setup+call, shim)), "installed first")
	assert.Empty(t, noInstall(lintJob(t, checkout+call, nil)), "the Python runner of before the migration")
}

// The sample's stage jobs call a reusable workflow: the install belongs
// in the called job, before its step that runs the command; the finding
// stands at the caller's miles-ci, where the call says it runs one.
func TestNoInstall_AReusableWorkflowInstallsBeforeItRunsTheCommand(t *testing.T) {
	about(t, RuleNoInstall)
	called := func(steps string) string {
		return "on: {workflow_call: {inputs: {execute_command: {type: string}}}}\njobs:\n  run:\n    runs-on: ubuntu-latest\n    steps:\n" + steps
	}
	caller := strings.Replace(smallWorkflow, "    runs-on: ubuntu-latest\n    steps:\n      - uses: ./.github/actions/setup-miles-ci\n      - run: |\n          miles-ci run --hw cpu --suite unit \\\n            --cadence ${{ needs.policy.outputs.cadence }} --labels ${{ needs.policy.outputs.raw_labels }}\n",
		"    uses: ./.github/workflows/_cpu.yml\n    with:\n      execute_command: >-\n        miles-ci run --hw cpu --suite unit --cadence ${{ needs.policy.outputs.cadence }}\n        --labels ${{ needs.policy.outputs.raw_labels }}\n", 1)
	require.NotEqual(t, smallWorkflow, caller)
	msg := prYML + anchorPlace(t, caller, "execute_command: >-", "miles-ci run") + ": error: job 'unit' runs miles-ci in job 'run' of .github/workflows/_cpu.yml, whose step at line 7 runs ${{ inputs.execute_command }} " +
		"with no install step before it: there, add the step `uses: ./.github/actions/setup-miles-ci` after its checkout (miles-ci help migrate) [no-install]"
	for _, tc := range []struct {
		name, steps string
		want        []string
	}{
		{"installed first", checkout + setup + "      - run: ${{ inputs.execute_command }} --list-only\n", []string{}},
		{"not installed", checkout + "      - run: ${{inputs.execute_command}} --list-only\n" + setup + "      - run: ${{ inputs.execute_command }}\n", []string{msg}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lintSmall(t, map[string]string{"pr-test.yml": caller, "_cpu.yml": called(tc.steps)}, nil)
			assert.Equal(t, tc.want, got)
		})
	}
	// A Python command passed to the same workflow needs no install.
	python := strings.Replace(caller, "miles-ci run --hw cpu --suite unit", "python tests/ci/run_suite.py --hw cpu --suite unit", 1)
	assert.Empty(t, lintSmall(t, map[string]string{"pr-test.yml": python, "_cpu.yml": called(checkout + "      - run: ${{ inputs.execute_command }}\n")}, nil))
}

// The sample repository installs miles-ci in every job that runs it, with
// its one action; taking the step out of one job is an error there.
func TestNoInstall_TheSampleWithoutOneInstallStep(t *testing.T) {
	about(t, RuleNoInstall)
	root := copyTree(t, sampleRoot)
	p := filepath.Join(root, ".github/workflows/pr-test-rocm.yml")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	const step = "      - name: Install miles-ci\n        uses: ./.github/actions/setup-miles-ci\n"
	text := string(data)
	require.Equal(t, 2, strings.Count(text, step))
	cut := text[:strings.LastIndex(text, step)] + text[strings.LastIndex(text, step)+len(step):]
	require.NoError(t, os.WriteFile(p, []byte(cut), 0o644))
	assert.Equal(t, []string{
		".github/workflows/pr-test-rocm.yml:" + anchorPlace(t, cut, "  stage-c-4-gpu-mi350:", "miles-ci run") +
			": error: job 'stage-c-4-gpu-mi350' runs miles-ci with no install step before it, so GitHub fails the step with \"miles-ci: command not found\": " +
			"add the step `uses: ./.github/actions/setup-miles-ci` after its checkout (miles-ci help migrate) [no-install]",
	}, findingLines(lintTree(t, root)))
}
