package suite

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/shard"
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

func files(rs []registry.Registration) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.File)
	}
	return out
}

// resolve is the policy of cadence and raw labels, as the commands resolve it.
func resolve(t *testing.T, cadence string, matchAll bool, raw ...string) policy.Policy {
	t.Helper()
	pol, _, err := policy.ForRun(config.Default(), cadence, raw, matchAll)
	require.NoError(t, err)
	return pol
}

func TestSelect_LabelsPickTheSuitesTestsAndShardsSplitThem(t *testing.T) {
	p, err := Select(config.Default(), regs(), Inputs{
		Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false, "run-ci-megatron", "run-ci-megatron"), Shards: 2, ID: AllShards,
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_a.py", "tests/e2e/test_c.py"}, files(p.Enabled))
	assert.Equal(t, []string{"tests/e2e/test_d.py"}, files(p.Skipped), "disabled tests are listed, not sharded")
	require.Len(t, p.Shards, 2)
	assert.Equal(t, []string{"tests/e2e/test_a.py"}, files(p.Shards[0].Tests))
	assert.Equal(t, []string{"tests/e2e/test_c.py"}, files(p.Shards[1].Tests))
	assert.Nil(t, p.Partition(), "a plan of every shard is no one job's partition")
}

func TestSelect_SuiteShardsAndOneID(t *testing.T) {
	// stage-c-8-gpu-h100 has two shards in the roster; no backend takes
	// the suite's own.
	p, err := Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, true), Shards: SuiteShards, ID: 1})
	require.NoError(t, err)
	assert.Equal(t, config.CUDA, p.Backend)
	assert.Equal(t, 2, p.Size)
	require.Len(t, p.Shards, 1)
	assert.Equal(t, 1, p.Shards[0].ID)
	assert.Equal(t, p.Shards[0].Tests, p.Tests)
	assert.Equal(t, &Partition{ID: 1, Size: 2}, p.Partition())

	_, err = Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false), Shards: SuiteShards, ID: 2})
	var idErr *IDError
	require.ErrorAs(t, err, &idErr)
	assert.EqualError(t, err, "--id must be in range [0, 2) (the suite's shard count), but got 2")

	_, err = Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false), Shards: 3, ID: 3})
	require.ErrorAs(t, err, &idErr)
}

func TestSelect_UnknownSuiteNamesTheBackendOrTheRoster(t *testing.T) {
	cfg := config.Default()
	pol := resolve(t, policy.Weekly, false)
	_, err := Select(cfg, regs(), Inputs{Backend: config.CPU, Suite: "stage-c-8-gpu-h100", Policy: pol})
	assert.EqualError(t, err, "Unknown suite stage-c-8-gpu-h100 for backend CPU")

	// Without a backend, the message lists the roster.
	_, err = Select(cfg, regs(), Inputs{Suite: "stage-x", Policy: pol})
	var ue *config.UnknownSuiteError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "Unknown suite stage-x; known suites: stage-a-cpu, stage-b-cpu,")
}

func TestSelect_TimingsBalanceTheShards(t *testing.T) {
	p, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, true), Shards: 2, ID: 0,
		Timings: &Timings{Path: "t.json", Seconds: timings.Timings{"tests/e2e/test_c.py": 1000}}})
	require.NoError(t, err)
	require.NotNil(t, p.Basis)
	assert.Equal(t, "t.json", p.Basis.Path)
	assert.Equal(t, 1, p.Basis.Measured)
	assert.Equal(t, 3, p.Basis.Total)
	assert.Equal(t, "tests/e2e/test_c.py", p.Tests[0].File, "the measured 1000 s file goes first")

	whole, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, true), ID: AllShards,
		Timings: &Timings{Path: "t.json", Seconds: timings.Timings{}}})
	require.NoError(t, err)
	assert.Nil(t, whole.Basis, "a whole suite is not split, so it has no basis")
}

func TestSelect_TheBypassContinuesOnError(t *testing.T) {
	p, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Nightly, true), Shards: 2, ID: 1})
	require.NoError(t, err)
	assert.True(t, p.ContinueOnError, "a nightly run bypasses fast-fail")

	whole, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, true), ID: AllShards})
	require.NoError(t, err)
	assert.Nil(t, whole.Partition(), "a whole suite has no partition line")
	assert.False(t, whole.ContinueOnError)
	assert.Equal(t, whole.Enabled, whole.Tests)

	asked, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, true), ID: AllShards, ContinueOnError: true})
	require.NoError(t, err)
	assert.True(t, asked.ContinueOnError)
}

func TestSelect_DroppedSaysWhichFlagsSelectWhatThePolicyLeftOut(t *testing.T) {
	p, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false), ID: AllShards})
	require.NoError(t, err)
	assert.Empty(t, p.Tests)
	assert.Equal(t, "the selection leaves out all 3 enabled registrations of stage-c-8-gpu-h100: "+
		"3 by their labels (--match-all-labels selects them, or --labels run-ci-fsdp run-ci-megatron)", p.Dropped)
}

func TestSelect_APreviousReportKeepsWhatDidNotPass(t *testing.T) {
	prev := &report.Report{Suite: "stage-c-8-gpu-h100", Backend: "cuda", Files: []report.File{
		{File: "tests/e2e/test_a.py", Status: report.Pass},
		{File: "tests/e2e/test_c.py", Status: report.Fail},
	}}
	p, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false, "run-ci-megatron"), ID: AllShards, Previous: prev})
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_c.py"}, files(p.Tests))
	assert.Equal(t, []string{"tests/e2e/test_a.py", "tests/e2e/test_c.py"}, files(p.Enabled), "the suite's selection is unchanged")
	require.NotNil(t, p.Rerun)
	assert.Equal(t, 1, p.Rerun.Count)
	assert.Equal(t, 2, p.Rerun.Total)

	prev.Suite = "stage-c-8-gpu-h200"
	_, err = Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false, "run-ci-megatron"), ID: AllShards, Previous: prev})
	var me *report.RerunMismatchError
	require.ErrorAs(t, err, &me)
}

func TestSelect_ASizeOutOfRangeIsAShardError(t *testing.T) {
	_, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, true), Shards: config.MaxShards + 1, ID: AllShards})
	var se *shard.SizeError
	require.ErrorAs(t, err, &se)
}
func TestSelect_FiltersAndKeepsRegistryOrder(t *testing.T) {
	cfg := config.Default()
	disabled := func(reason string) *string { return &reason }
	regs := []registry.Registration{
		{File: "t/wrong_backend.py", Backend: config.ROCM, Suite: "stage-c-8-gpu-h100", Labels: []string{"fsdp"}},
		{File: "t/wrong_suite.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h200", Labels: []string{"fsdp"}},
		{File: "t/z_fsdp.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Labels: []string{"fsdp"}},
		{File: "t/off.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Labels: []string{"fsdp"}, Disabled: disabled("flaky")},
		{File: "t/other_label.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Labels: []string{"lora"}},
		{File: "t/nightly.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Labels: []string{"fsdp"}, Nightly: true},
		{File: "t/a_shared.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Labels: []string{"lora", "fsdp"}},
		{File: "t/unlabeled.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100"},
		{File: "t/off_empty.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Disabled: disabled("")},
		{File: "t/off_other_label.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Labels: []string{"lora"}, Disabled: disabled("x")},
	}
	tests := []struct {
		name        string
		cadence     string
		raw         []string
		wantEnabled []string
		wantSkipped []string
	}{
		{
			name:        "regular with one label",
			cadence:     "regular",
			raw:         []string{"run-ci-fsdp"},
			wantEnabled: []string{"t/z_fsdp.py", "t/a_shared.py", "t/unlabeled.py"},
			wantSkipped: []string{"t/off.py", "t/off_empty.py"},
		},
		{
			name:        "no labels keeps only unlabeled",
			cadence:     "regular",
			wantEnabled: []string{"t/unlabeled.py"},
			wantSkipped: []string{"t/off_empty.py"},
		},
		{
			name:        "weekly admits nightly-only and every label",
			cadence:     "weekly",
			wantEnabled: []string{"t/z_fsdp.py", "t/other_label.py", "t/nightly.py", "t/a_shared.py", "t/unlabeled.py"},
			wantSkipped: []string{"t/off.py", "t/off_empty.py", "t/off_other_label.py"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pol, _, err := policy.Resolve(cfg, tt.cadence, tt.raw)
			require.NoError(t, err)
			sel, err := Select(cfg, regs, Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Policy: pol, ID: AllShards})
			require.NoError(t, err)
			assert.Equal(t, tt.wantEnabled, nilIfEmpty(files(sel.Enabled)))
			assert.Equal(t, tt.wantSkipped, nilIfEmpty(files(sel.Skipped)))
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestSelect_UnknownSuiteOfABackend(t *testing.T) {
	cfg := config.Default()
	pol, _, err := policy.Resolve(cfg, "regular", nil)
	require.NoError(t, err)
	tests := []struct {
		backend config.Backend
		suite   string
		wantErr string
	}{
		{config.CUDA, "stage-a-cpu", "Unknown suite stage-a-cpu for backend CUDA"},
		{config.ROCM, "stage-b-2-gpu-h200", "Unknown suite stage-b-2-gpu-h200 for backend ROCM"},
		{config.CPU, "nope", "Unknown suite nope for backend CPU"},
		{config.ROCM, "nightly-stage-c-2-gpu-mi350", ""}, // known, and empty here
	}
	for _, tt := range tests {
		t.Run(tt.suite, func(t *testing.T) {
			sel, err := Select(cfg, nil, Inputs{Backend: tt.backend, Suite: tt.suite, Policy: pol, ID: AllShards})
			if tt.wantErr == "" {
				require.NoError(t, err)
				assert.Empty(t, sel.Enabled)
				return
			}
			var ue *config.UnknownSuiteError
			require.ErrorAs(t, err, &ue)
			assert.EqualError(t, err, tt.wantErr)
		})
	}
}
