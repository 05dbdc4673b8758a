package prune

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
)

func TestDecide_PrunesOnlyAPullRequestWithAUsableDiff(t *testing.T) {
	cfg := config.Default()
	wf, err := policy.ResolveWorkflow(cfg, policy.Trigger{Event: policy.EventPullRequest, PRLabelsJSON: "[]"})
	require.NoError(t, err)
	docs := DiffOf([]byte("M\x00docs/a.md\x00"))
	require.Empty(t, docs.Unusable)

	assert.False(t, NeedsRegistry("schedule", docs), "only a pull request prunes")
	d := Decide(cfg, wf, "schedule", docs, nil)
	assert.Equal(t, "not applied: stage pruning applies to pull_request events only", d.Pruning)
	assert.False(t, d.Unusable)
	assert.Empty(t, d.Result.Skipped)

	unset := Diff{Unusable: "CHANGED_FILES_PATH is not set"}
	assert.False(t, NeedsRegistry(policy.EventPullRequest, unset), "the registry is read only for a usable diff")
	d = Decide(cfg, wf, policy.EventPullRequest, unset, nil)
	assert.True(t, d.Unusable)
	assert.Equal(t, "disabled: CHANGED_FILES_PATH is not set", d.Pruning)
	assert.Empty(t, d.Result.Skipped, "nothing is skipped without a diff")

	assert.True(t, NeedsRegistry(policy.EventPullRequest, docs))
	d = Decide(cfg, wf, policy.EventPullRequest, docs, nil)
	assert.Equal(t, "applied to 1 changed entry", d.Pruning)
	assert.Equal(t, cfg.PRGPUStages(), d.Result.Skipped, "a docs-only change skips every GPU stage")
}

func TestDiffOf_SaysWhyADiffIsUnusable(t *testing.T) {
	assert.Equal(t, Diff{Unusable: "the file is empty"}, DiffOf(nil))
	assert.Equal(t, Diff{Unusable: "the last field does not end in NUL"}, DiffOf([]byte("M\x00a")))
	assert.Equal(t, Diff{Entries: []Entry{{Status: "M", Paths: []string{"a"}}}}, DiffOf([]byte("M\x00a\x00")))
}
