package stage

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/timings"
)

func regs() []registry.Registration {
	off := "flaky"
	return []registry.Registration{
		{File: "tests/e2e/test_a.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 300, Labels: []string{"megatron"}},
		{File: "tests/e2e/test_b.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 200, Labels: []string{"fsdp"}},
		{File: "tests/e2e/test_c.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 100, Labels: []string{"megatron"}},
		{File: "tests/e2e/test_d.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 50, Labels: []string{"megatron"}, Disabled: &off},
		{File: "tests/e2e/test_e.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h200", EstTime: 10, Labels: []string{"megatron"}},
	}
}

func TestSelect_LabelsPickTheSuitesTestsAndShardsSplitThem(t *testing.T) {
	sel, err := Select(config.Default(), regs(), Request{
		Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Cadence: policy.Regular,
		Labels: []string{"run-ci-megatron", "run-ci-megatron"}, Shards: 2, ID: AllShards,
	})
	require.NoError(t, err)
	files := func(rs []registry.Registration) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.File)
		}
		return out
	}
	assert.Equal(t, []string{"tests/e2e/test_a.py", "tests/e2e/test_c.py"}, files(sel.Enabled))
	assert.Equal(t, []string{"tests/e2e/test_d.py"}, files(sel.Skipped), "disabled tests are listed, not sharded")
	require.Len(t, sel.Shards, 2)
	assert.Equal(t, []string{"tests/e2e/test_a.py"}, files(sel.Shards[0].Tests))
	assert.Equal(t, []string{"tests/e2e/test_c.py"}, files(sel.Shards[1].Tests))
	assert.Empty(t, sel.Warnings, "a repeated label warns nothing and counts once")
}

func TestSelect_SuiteShardsAndOneID(t *testing.T) {
	// stage-c-8-gpu-h100 has two shards in the roster; --hw absent takes
	// the suite's backend.
	sel, err := Select(config.Default(), regs(), Request{Suite: "stage-c-8-gpu-h100", Cadence: policy.Regular,
		MatchAllLabels: true, Shards: SuiteShards, ID: 1})
	require.NoError(t, err)
	assert.Equal(t, config.CUDA, sel.Backend)
	assert.Equal(t, 2, sel.Size)
	require.Len(t, sel.Shards, 1)
	assert.Equal(t, 1, sel.Shards[0].ID)
	assert.Equal(t, sel.Shards[0].Tests, sel.Run())

	_, err = Select(config.Default(), regs(), Request{Suite: "stage-c-8-gpu-h100", Cadence: policy.Regular,
		Shards: SuiteShards, ID: 2})
	var idErr *IDError
	require.ErrorAs(t, err, &idErr)
	assert.EqualError(t, err, "--id must be in range [0, 2) (the suite's shard count), but got 2")
}

func TestSelect_ErrorsComeInThePythonRunnersOrder(t *testing.T) {
	cfg := config.Default()
	// A policy error wins over an unknown suite, and returns no policy.
	sel, err := Select(cfg, regs(), Request{Backend: config.CUDA, Suite: "nope", Cadence: "hourly"})
	assert.Nil(t, sel)
	var pe *policy.Error
	require.ErrorAs(t, err, &pe)

	// An unknown suite still returns the policy, which run prints first.
	sel, err = Select(cfg, regs(), Request{Backend: config.CPU, Suite: "stage-c-8-gpu-h100", Cadence: policy.Weekly})
	require.NotNil(t, sel)
	assert.Equal(t, policy.Weekly, sel.Policy.Cadence)
	assert.EqualError(t, err, "Unknown suite stage-c-8-gpu-h100 for backend CPU")

	// Without --hw, the message lists the roster.
	_, err = Select(cfg, regs(), Request{Suite: "stage-x", Cadence: policy.Regular})
	var ue *config.UnknownSuiteError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "Unknown suite stage-x; known suites: stage-a-cpu, stage-b-cpu,")
}

func TestSelect_TimingsBalanceTheShardsAndABrokenFileFailsEvenUnsharded(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "t.json")
	require.NoError(t, os.WriteFile(good, []byte(`{"version": 1, "timings": {"tests/e2e/test_c.py": 1000}}`), 0o644))
	sel, err := Select(config.Default(), regs(), Request{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Cadence: policy.Regular, MatchAllLabels: true, Shards: 2, ID: 0, TimingsPath: good})
	require.NoError(t, err)
	require.NotNil(t, sel.Basis)
	assert.Equal(t, 1, sel.Basis.Measured)
	assert.Equal(t, 3, sel.Basis.Total)
	assert.Equal(t, "tests/e2e/test_c.py", sel.Run()[0].File, "the measured 1000 s file goes first")

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{`), 0o644))
	_, err = Select(config.Default(), regs(), Request{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Cadence: policy.Regular, ID: AllShards, TimingsPath: bad})
	var te *timings.Error
	require.ErrorAs(t, err, &te)
}

func TestSelection_PlanAndViewCarryTheShardAndTheBypass(t *testing.T) {
	sel, err := Select(config.Default(), regs(), Request{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Cadence: policy.Nightly, MatchAllLabels: true, Shards: 2, ID: 1})
	require.NoError(t, err)
	p := sel.Plan(false)
	require.NotNil(t, p.Partition)
	assert.Equal(t, 1, p.Partition.ID)
	assert.Equal(t, 2, p.Partition.Size)
	assert.True(t, p.ContinueOnError, "a nightly run bypasses fast-fail")
	assert.Equal(t, "stage-c-8-gpu-h100", p.Suite)
	assert.Equal(t, sel.Shards[0].Tests, p.Enabled)

	whole, err := Select(config.Default(), regs(), Request{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Cadence: policy.Regular, MatchAllLabels: true, ID: AllShards})
	require.NoError(t, err)
	assert.Nil(t, whole.Plan(false).Partition, "a whole suite has no partition line")
	assert.False(t, whole.Plan(false).ContinueOnError)
	v := sel.View()
	assert.Equal(t, 2, v.Size)
	assert.Equal(t, sel.Skipped, v.Skipped)
}
