package selection

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

func TestDecide_PrunesOnlyAPullRequestWithAUsableDiff(t *testing.T) {
	cfg := config.Default()
	wf, err := policy.ResolveWorkflow(cfg, policy.Trigger{Event: policy.EventPullRequest, PRLabelsJSON: "[]"})
	require.NoError(t, err)
	collected := 0
	collect := func() (*config.Config, *registry.Registry, error) {
		collected++
		return cfg, &registry.Registry{}, nil
	}
	d, err := Decide(cfg, wf, "schedule", Diff{Env: "CHANGED_FILES_PATH"}, collect)
	require.NoError(t, err)
	assert.Equal(t, "not applied: stage pruning applies to pull_request events only", d.Pruning)
	assert.False(t, d.Unusable)

	d, err = Decide(cfg, wf, policy.EventPullRequest, Diff{Env: "CHANGED_FILES_PATH"}, collect)
	require.NoError(t, err)
	assert.True(t, d.Unusable)
	assert.Equal(t, "disabled: CHANGED_FILES_PATH is not set", d.Pruning)
	assert.Empty(t, d.Result.Skipped, "nothing is skipped without a diff")
	assert.Zero(t, collected, "the registry is read only for a usable diff")

	path := filepath.Join(t.TempDir(), "diff")
	require.NoError(t, os.WriteFile(path, []byte("M\x00docs/a.md\x00"), 0o644))
	d, err = Decide(cfg, wf, policy.EventPullRequest, Diff{Path: path, Env: "CHANGED_FILES_PATH"}, collect)
	require.NoError(t, err)
	assert.Equal(t, "applied to 1 changed entry", d.Pruning)
	assert.Equal(t, cfg.PRGPUStages(), d.Result.Skipped, "a docs-only change skips every GPU stage")
	assert.Equal(t, 1, collected)

	boom := errors.New("broken registry")
	_, err = Decide(cfg, wf, policy.EventPullRequest, Diff{Path: path, Env: "CHANGED_FILES_PATH"},
		func() (*config.Config, *registry.Registry, error) { return nil, nil, boom })
	assert.ErrorIs(t, err, boom)
}
