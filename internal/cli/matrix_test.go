package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

func cudaTest(est int, suite string, labels ...string) string {
	return fmt.Sprintf("from tests.ci.ci_register import register_cuda_ci\n\nregister_cuda_ci(est_time=%d, suite=%q, labels=[%s])\n",
		est, suite, `"`+strings.Join(labels, `", "`)+`"`)
}

// matrixRepo is a repository whose four-GPU stage (three roster shards)
// holds two fsdp tests and a megatron one, and whose eight-GPU H100 stage
// holds a megatron test only.
func matrixRepo(t *testing.T) string {
	return testutil.TempTree(t, map[string]string{
		"tests/e2e/fsdp/test_long.py":      cudaTest(600, "stage-c-4-gpu-h200", "fsdp"),
		"tests/e2e/fsdp/test_short.py":     cudaTest(90, "stage-c-4-gpu-h200", "fsdp"),
		"tests/e2e/megatron/test_big.py":   cudaTest(300, "stage-c-4-gpu-h200", "megatron"),
		"tests/e2e/megatron/test_h100.py":  cudaTest(300, "stage-c-8-gpu-h100", "megatron"),
		"tests/fast/test_cpu_only_here.py": "def test_x():\n    pass\n",
	})
}

type matrixEntry struct {
	ID   int    `json:"partition_id"`
	Size int    `json:"partition_size"`
	Plan string `json:"plan"`
}

func policyMatrix(t *testing.T, root string, env map[string]string, extra ...string) map[string][]matrixEntry {
	t.Helper()
	code, out, errOut := miles(t, root, env, append([]string{"policy", "--shard-matrix", "--json"}, extra...)...)
	require.Equal(t, 0, code, errOut)
	var doc struct {
		ShardMatrix map[string]struct {
			Include []matrixEntry `json:"include"`
		} `json:"shard_matrix"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	got := map[string][]matrixEntry{}
	for stage, m := range doc.ShardMatrix {
		got[stage] = m.Include
	}
	return got
}

func listed(t *testing.T, root string, args ...string) ([]string, int) {
	t.Helper()
	code, out, errOut := miles(t, root, nil, append(args, "--list-only", "--json")...)
	if code != 0 {
		return nil, code
	}
	var plan struct {
		Enabled []struct{ File string } `json:"enabled"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &plan), errOut)
	var files []string
	for _, e := range plan.Enabled {
		files = append(files, e.File)
	}
	return files, code
}

func TestPolicyShardMatrix_APullRequestBooksOnlyShardsThatRunATest(t *testing.T) {
	root := matrixRepo(t)
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp"]`}
	m := policyMatrix(t, root, env)

	require.Len(t, m["stage-c-4-gpu-h200"], 2, "600 s and 90 s go to two of the three shards")
	assert.Equal(t, []matrixEntry{{0, 2, m["stage-c-8-gpu-h100"][0].Plan}}, m["stage-c-8-gpu-h100"],
		"a stage with nothing to run keeps shard 0: GitHub refuses an empty matrix")
	for _, stage := range []string{"stage-b-2-gpu-h200", "stage-c-2-gpu-h200", "stage-c-4-gpu-mi350", "stage-c-8-gpu-h200"} {
		assert.Len(t, m[stage], 1, stage)
	}
	assert.NotContains(t, m, "stage-a-cpu")

	for stage, entries := range m {
		whole, code := listed(t, root, "run", "--hw", "cuda", "--suite", stage, "--labels", "run-ci-fsdp")
		if stage == "stage-c-4-gpu-mi350" {
			whole, code = listed(t, root, "run", "--hw", "rocm", "--suite", stage, "--labels", "run-ci-fsdp")
		}
		require.Equal(t, 0, code, stage)
		var union []string
		for _, e := range entries {
			hw := "cuda"
			if stage == "stage-c-4-gpu-mi350" {
				hw = "rocm"
			}
			files, code := listed(t, root, "run", "--hw", hw, "--suite", stage, "--labels", "run-ci-fsdp",
				"--auto-partition-id", fmt.Sprint(e.ID), "--auto-partition-size", fmt.Sprint(e.Size), "--expect-plan="+e.Plan)
			require.Equal(t, 0, code, "%s shard %d checks its own plan", stage, e.ID)
			if len(whole) > 0 {
				assert.NotEmpty(t, files, "%s shard %d is listed but empty", stage, e.ID)
			}
			union = append(union, files...)
		}
		assert.ElementsMatch(t, whole, union, stage)
	}
}

func TestPolicyShardMatrix_OtherEventsBookEveryRosterShard(t *testing.T) {
	root := matrixRepo(t)
	for _, env := range []map[string]string{
		{"EVENT_NAME": "schedule", "SCHEDULE": "0 15 * * 0-5"},
		{"EVENT_NAME": "workflow_dispatch"},
	} {
		m := policyMatrix(t, root, env)
		assert.Equal(t, []matrixEntry{{0, 3, ""}, {1, 3, ""}, {2, 3, ""}}, m["stage-c-4-gpu-h200"], env["EVENT_NAME"])
		assert.Equal(t, []matrixEntry{{0, 2, ""}, {1, 2, ""}}, m["stage-c-8-gpu-h100"], env["EVENT_NAME"])
	}
}

func TestPolicyShardMatrix_WritesTheOutputTheStepSummaryAndTheExplanation(t *testing.T) {
	root := matrixRepo(t)
	dir := t.TempDir()
	out, summary := filepath.Join(dir, "out"), filepath.Join(dir, "summary")
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp"]`,
		"GITHUB_OUTPUT": out, "GITHUB_STEP_SUMMARY": summary}
	code, stdout, errOut := miles(t, root, env, "policy", "--shard-matrix", "--explain")
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^shard_matrix=\{"stage-b-2-gpu-h200":\{"include":\[\{"partition_id":0,"partition_size":1,"plan":"p1\.1\.[0-9a-f]{8}"\}\]\},`, string(data))
	assert.Contains(t, stdout, "\nShard matrix:\n")
	assert.Contains(t, stdout, "stage-c-4-gpu-h200   2 of 3 shards (0, 1), longest 10.0 est. min, 2 tests, on h200,4gpu\n")
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "| `stage-c-4-gpu-h200` | h200,4gpu | 2 / 3 | 10.0 | 2 |\n")
	assert.Contains(t, string(md), "GPU runners booked: 7 of 12 (5 empty shards not started, 26 GPU slots)\n")

	// Without the flag, nothing of it.
	require.NoError(t, os.Remove(out))
	code, _, _ = miles(t, root, env, "policy")
	require.Equal(t, 0, code)
	data, err = os.ReadFile(out)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "shard_matrix")
}

// A stage the policy skips never starts its job: the placeholder shard its
// matrix keeps books no runner, in the step summary and the explanation.
func TestPolicyShardMatrix_SkippedStagesBookNoRunner(t *testing.T) {
	root := matrixRepo(t)
	dir := t.TempDir()
	diff, summary := filepath.Join(dir, "diff"), filepath.Join(dir, "summary")
	require.NoError(t, os.WriteFile(diff, []byte("M\x00tests/e2e/fsdp/test_long.py\x00"), 0o644))
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp"]`,
		"CHANGED_FILES_PATH": diff, "GITHUB_OUTPUT": filepath.Join(dir, "out"), "GITHUB_STEP_SUMMARY": summary}
	code, stdout, errOut := miles(t, root, env, "policy", "--shard-matrix", "--explain")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, stdout, `skipped_stages=["stage-b-2-gpu-h200","stage-c-2-gpu-h200","stage-c-4-gpu-mi350","stage-c-8-gpu-h100","stage-c-8-gpu-h200"]`)
	const line = "GPU runners booked: 2 of 12 (9 shards of 5 skipped stages and 1 empty shard not started, 50 GPU slots)\n"
	assert.Contains(t, stdout, "  stage-c-8-gpu-h100   0 of 2 shards: the stage is skipped, on h100,8gpu\n")
	assert.Contains(t, stdout, "  stage-c-4-gpu-h200   2 of 3 shards (0, 1), longest 10.0 est. min, 2 tests, on h200,4gpu\n")
	assert.Contains(t, stdout, line)
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "| `stage-c-8-gpu-h100` | h100,8gpu | 0 / 2 (skipped) | - | - |\n")
	assert.Contains(t, string(md), "| `stage-c-4-gpu-h200` | h200,4gpu | 2 / 3 | 10.0 | 2 |\n")
	assert.Contains(t, string(md), line)
}

func TestRunExpectPlan_AJobThatSeesAnotherTreeStopsWithExitFour(t *testing.T) {
	root := matrixRepo(t)
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp"]`}
	plan := policyMatrix(t, root, env)["stage-c-4-gpu-h200"][0].Plan

	// A registered test added after the policy job planned the matrix.
	testutil.WriteFile(t, root, "tests/e2e/fsdp/test_new.py", cudaTest(700, "stage-c-4-gpu-h200", "fsdp"))
	code, stdout, errOut := miles(t, root, nil, "run", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--labels", "run-ci-fsdp",
		"--auto-partition-id", "2", "--auto-partition-size", "3", "--expect-plan", plan)
	assert.Equal(t, 4, code)
	assert.Contains(t, errOut, "error: the plan of stage-c-4-gpu-h200 is not the one the policy job planned (--expect-plan "+plan)
	assert.Contains(t, errOut, "tests/e2e/fsdp/test_new.py")
	assert.NotContains(t, stdout, "Enabled", "nothing was planned to run")

	// An empty digest checks nothing; a digest without a shard is a usage error.
	code, _, errOut = miles(t, root, nil, "run", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--labels", "run-ci-fsdp",
		"--auto-partition-id", "2", "--auto-partition-size", "3", "--expect-plan=", "--list-only")
	assert.Equal(t, 0, code, errOut)
	code, _, errOut = miles(t, root, nil, "run", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--expect-plan", plan, "--list-only")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--expect-plan checks the plan of a shard")
}

// TestPartition_ShowsTheCountAPullRequestBooksForATargetMinutesSuite: a
// suite with a target_minutes splits on a pull request into the fewest
// shards that fit, and partition, with neither --size nor --id, shows that
// split and says so; --id keeps the roster's count.
func TestPartition_ShowsTheCountAPullRequestBooksForATargetMinutesSuite(t *testing.T) {
	root := matrixRepo(t)
	testutil.WriteFile(t, root, ".miles-ci.yaml", `extends: default
suites:
  cuda:
    - name: stage-c-4-gpu-h200
      runs_on: [h200, 4gpu]
      shards: 3
      target_minutes: 15
      needs: [resolve-ci-policy, resolve-ci-image, stage-a-cpu]
`)
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-all"]`}
	booked := policyMatrix(t, root, env)["stage-c-4-gpu-h200"]
	require.NotEmpty(t, booked)
	require.Equal(t, 2, booked[0].Size, "600 s, 300 s and 90 s fit 15 minutes in two shards")

	code, out, errOut := miles(t, root, nil, "partition", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--match-all-labels")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "in 2 shard(s)\n")
	assert.Contains(t, out, "Sized for target_minutes 15.0: the fewest of at most 3 shard(s) whose longest fits")

	code, out, errOut = miles(t, root, nil, "partition", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--match-all-labels", "--json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"size":2,"target_minutes":15,`)

	code, out, errOut = miles(t, root, nil, "partition", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--match-all-labels", "--id", "2")
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, out, "Sized for")
}

// TestPartition_SaysTheSetupItCountedInEveryShard: the suite's 600 s, 300 s
// and 90 s fit two shards of a 15-minute target; five minutes of setup
// per shard leave 600 s of tests, which the longest meets exactly, and a
// setup of 5.5 leaves too little for any count: the roster's three.
func TestPartition_SaysTheSetupItCountedInEveryShard(t *testing.T) {
	root := matrixRepo(t)
	roster := func(setup string) {
		testutil.WriteFile(t, root, ".miles-ci.yaml", `extends: default
suite_defaults:
  setup_minutes: `+setup+`
suites:
  cuda:
    - name: stage-c-4-gpu-h200
      runs_on: [h200, 4gpu]
      shards: 3
      target_minutes: 15
      needs: [resolve-ci-policy, resolve-ci-image, stage-a-cpu]
`)
	}
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-all"]`}
	roster("5")
	assert.Equal(t, 2, policyMatrix(t, root, env)["stage-c-4-gpu-h200"][0].Size)
	code, out, errOut := miles(t, root, nil, "partition", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--match-all-labels")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "in 2 shard(s)\n")
	assert.Contains(t, out, "Sized for target_minutes 15.0 less setup_minutes 5.0 per shard (10.0 minutes of tests): the fewest of at most 3 shard(s) whose longest fits")
	code, out, errOut = miles(t, root, nil, "partition", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--match-all-labels", "--json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"size":2,"target_minutes":15,"setup_minutes":5,`)

	roster("5.5")
	assert.Equal(t, 3, policyMatrix(t, root, env)["stage-c-4-gpu-h200"][0].Size, "the 600 s test alone is over 9.5 minutes")
	code, out, errOut = miles(t, root, nil, "partition", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--match-all-labels")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "Sized for target_minutes 15.0 less setup_minutes 5.5 per shard (9.5 minutes of tests)")

	roster("15")
	code, _, errOut = miles(t, root, nil, "partition", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--match-all-labels")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `/.miles-ci.yaml:9: suite "stage-c-4-gpu-h200" has setup_minutes 15 (suite_defaults.setup_minutes, line 3), not less than its target_minutes 15: no time is left for tests; raise target_minutes or lower setup_minutes`+"\n")
}
