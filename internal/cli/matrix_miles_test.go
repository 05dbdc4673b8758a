package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
)

// copyTests copies the tests directory of a Miles checkout, which holds
// every discovery root and labels.py, into a new repository root.
func copyTests(t *testing.T, miles string) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(root, "tests"), os.DirFS(filepath.Join(miles, "tests"))))
	return root
}

func hwOf(t *testing.T, root, stage string) string {
	t.Helper()
	cfg, err := config.Load(root, "")
	require.NoError(t, err)
	s, ok := cfg.Suite(stage)
	require.True(t, ok, stage)
	return string(s.Backend)
}

// TestShardMatrix_OnMiles checks the shard matrix on a Miles tree for every
// single-label pull request, run-ci-all, a pull request with no label, the
// schedules and a dispatch: no listed shard of a pull request is empty, and
// the listed shards' tests are every roster shard's; each listed shard's
// plan checks on the same tree and stops after a test is added to a pruned
// stage.
func TestShardMatrix_OnMiles(t *testing.T) {
	root := copyTests(t, testutil.MilesCheckout(t))
	cfg, err := config.Load(root, "")
	require.NoError(t, err)
	events := []map[string]string{
		{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `[]`},
		{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-all"]`},
		{"EVENT_NAME": "schedule", "SCHEDULE": "0 15 * * 0-5"},
		{"EVENT_NAME": "schedule", "SCHEDULE": "0 15 * * 6"},
		{"EVENT_NAME": "workflow_dispatch"},
	}
	for _, l := range cfg.KnownLabels() {
		events = append(events, map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": fmt.Sprintf(`["run-ci-%s"]`, l)})
	}
	pruned := 0
	for _, env := range events {
		name := env["EVENT_NAME"] + " " + env["PR_LABELS_JSON"] + env["SCHEDULE"]
		code, out, errOut := miles(t, root, env, "policy")
		require.Equal(t, 0, code, errOut)
		cadence, labels := outputValue(out, "cadence"), outputValue(out, "raw_labels")
		for stage, entries := range policyMatrix(t, root, env) {
			hw := hwOf(t, root, stage)
			sel := []string{"run", "--hw", hw, "--suite", stage, "--cadence", cadence, "--labels"}
			if labels != "" {
				sel = append(sel, labels)
			}
			whole, code := listed(t, root, sel...)
			require.Equal(t, 0, code, "%s %s", name, stage)
			var union []string
			for _, e := range entries {
				args := append(append([]string{}, sel...), "--auto-partition-id", fmt.Sprint(e.ID),
					"--auto-partition-size", fmt.Sprint(e.Size), "--expect-plan="+e.Plan)
				files, code := listed(t, root, args...)
				require.Equal(t, 0, code, "%s %s shard %d checks its own plan", name, stage, e.ID)
				if env["EVENT_NAME"] == "pull_request" && len(whole) > 0 {
					assert.NotEmpty(t, files, "%s: %s shard %d is listed but empty", name, stage, e.ID)
				}
				union = append(union, files...)
			}
			assert.ElementsMatch(t, whole, union, "%s %s", name, stage)
			s, _ := cfg.Suite(stage)
			if len(entries) < max(s.Shards, 1) {
				pruned++
			}
		}
	}
	assert.Positive(t, pruned, "some single-label pull request leaves a shard unbooked")

	// A test added to a pruned stage after the policy job ran.
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp"]`}
	entries := policyMatrix(t, root, env)["stage-c-4-gpu-h200"]
	require.Len(t, entries, 2, "run-ci-fsdp books two of the three shards of stage-c-4-gpu-h200")
	testutil.WriteFile(t, root, "tests/e2e/fsdp/test_added_after_the_policy.py", cudaTest(700, "stage-c-4-gpu-h200", "fsdp"))
	for _, e := range entries {
		code, _, errOut := miles(t, root, nil, "run", "--hw", "cuda", "--suite", "stage-c-4-gpu-h200", "--labels", "run-ci-fsdp",
			"--auto-partition-id", fmt.Sprint(e.ID), "--auto-partition-size", fmt.Sprint(e.Size), "--expect-plan="+e.Plan, "--list-only")
		assert.Equal(t, 4, code, "shard %d", e.ID)
		assert.Contains(t, errOut, "is not the one the policy job planned")
	}
}

// outputValue is the value of one NAME=value line of policy's stdout.
func outputValue(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, name+"="); ok {
			return v
		}
	}
	return ""
}
