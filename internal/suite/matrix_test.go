package suite

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/timings"
)

func TestFull_EveryRosterShardWithoutAPlan(t *testing.T) {
	assert.Equal(t, Matrix{Include: []Entry{{0, 3, ""}, {1, 3, ""}, {2, 3, ""}}}, Full(3))
	assert.Equal(t, Matrix{Include: []Entry{{0, 1, ""}}}, Full(0), "a suite without shards is one job")
}

func TestPruned_ListsOnlyTheShardsThatHoldATest(t *testing.T) {
	// megatron selects a (300 s) and c (100 s) of the two-shard stage;
	// at 3 shards one shard is empty.
	p, err := Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false, "run-ci-megatron"), Shards: 3, ID: AllShards})
	require.NoError(t, err)
	m := Pruned(p)
	require.Len(t, m.Include, 2)
	for _, e := range m.Include {
		assert.Equal(t, 3, e.PartitionSize)
		assert.Equal(t, p.Digest, e.Plan)
		assert.NotEmpty(t, p.Shards[e.PartitionID].Tests, "shard %d is listed", e.PartitionID)
	}
	assert.Equal(t, []int{0, 1}, []int{m.Include[0].PartitionID, m.Include[1].PartitionID})
}

func TestPruned_AStageWithNothingToRunKeepsShardZero(t *testing.T) {
	p, err := Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false), Shards: SuiteShards, ID: AllShards})
	require.NoError(t, err)
	assert.Equal(t, Matrix{Include: []Entry{{0, 2, p.Digest}}}, Pruned(p), "GitHub refuses an empty matrix")
}

func TestMatrices_KeyEveryInRepositoryGPUStage(t *testing.T) {
	cfg := config.Default()
	pol := resolve(t, policy.Regular, false, "run-ci-megatron")
	full, err := Matrices(cfg, regs(), pol, nil, false)
	require.NoError(t, err)
	pruned, err := Matrices(cfg, regs(), pol, nil, true)
	require.NoError(t, err)
	require.Len(t, full, len(cfg.PRGPUStages()))
	require.Len(t, pruned, len(cfg.PRGPUStages()))
	for i, name := range cfg.PRGPUStages() {
		s, _ := cfg.Suite(name)
		assert.Equal(t, StageMatrix{Suite: s, Matrix: Full(s.Shards)}, full[i], name)
		assert.Equal(t, name, pruned[i].Suite.Name)
		assert.NotEmpty(t, pruned[i].Matrix.Include, name)
		assert.NotNil(t, pruned[i].Plan, name)
		assert.NotEqual(t, config.CPU, s.Backend, "CPU stages have no GPU runner to save")
	}
}

// TestPruned_TheListedShardsHoldEveryTest: for every label and cadence,
// the tests of the listed shards are the tests of all the roster's shards.
func TestPruned_TheListedShardsHoldEveryTest(t *testing.T) {
	cfg := config.Default()
	rs := regs()
	for _, cadence := range []string{policy.Regular, policy.Nightly, policy.Weekly} {
		for _, labels := range [][]string{nil, {"run-ci-megatron"}, {"run-ci-fsdp"}, {"run-ci-all"}} {
			pol := resolve(t, cadence, false, labels...)
			m, err := Matrices(cfg, rs, pol, nil, true)
			require.NoError(t, err)
			for _, sm := range m {
				stage := sm.Suite.Name
				p, err := Select(cfg, rs, Inputs{Suite: stage, Policy: pol, Shards: SuiteShards, ID: AllShards})
				require.NoError(t, err)
				var listed []string
				for _, e := range sm.Matrix.Include {
					q, err := Select(cfg, rs, Inputs{Suite: stage, Policy: pol, Shards: e.PartitionSize, ID: e.PartitionID})
					require.NoError(t, err)
					require.NoError(t, q.CheckDigest(e.Plan), "the job's own plan checks")
					listed = append(listed, files(q.Tests)...)
				}
				assert.ElementsMatch(t, files(p.Enabled), listed, "%s %s %v", stage, cadence, labels)
			}
		}
	}
}

func TestCheckDigest_NamesTheShardsThatMoved(t *testing.T) {
	pol := resolve(t, policy.Regular, false, "run-ci-megatron")
	before, err := Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 2, ID: 1})
	require.NoError(t, err)
	assert.NoError(t, before.CheckDigest(before.Digest))
	assert.NoError(t, before.CheckDigest(""), "an empty digest checks nothing")

	// A test added to the stage moves c to the other shard.
	added := append(regs(), registry.Registration{File: "tests/e2e/test_new.py", Backend: config.CUDA,
		Suite: "stage-c-8-gpu-h100", EstTime: 250, Labels: []string{"megatron"}})
	after, err := Select(config.Default(), added, Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 2, ID: 1})
	require.NoError(t, err)
	err = after.CheckDigest(before.Digest)
	var mm *PlanMismatchError
	require.ErrorAs(t, err, &mm)
	assert.Contains(t, err.Error(), "shard 1 now holds tests/e2e/test_new.py")
	assert.NotContains(t, err.Error(), "shard 0 now holds", "shard 0 still holds what it held")

	// Timings that keep every file on its shard keep the plan; timings
	// that move one make another plan.
	timed, err := Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 2, ID: 0,
		Timings: &Timings{Path: "t.json", Seconds: timings.Timings{"tests/e2e/test_a.py": 400}}})
	require.NoError(t, err)
	assert.NoError(t, timed.CheckDigest(before.Digest), "the same files on the same shards are the same plan")
	timed, err = Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 2, ID: 0,
		Timings: &Timings{Path: "t.json", Seconds: timings.Timings{"tests/e2e/test_a.py": 1}}})
	require.NoError(t, err)
	err = timed.CheckDigest(before.Digest)
	require.ErrorAs(t, err, &mm)
	assert.Contains(t, err.Error(), "shard 0 now holds tests/e2e/test_c.py; shard 1 now holds tests/e2e/test_a.py")

	three, err := Select(config.Default(), regs(), Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 3, ID: 0})
	require.NoError(t, err)
	err = three.CheckDigest(before.Digest)
	require.ErrorAs(t, err, &mm)
	assert.Contains(t, err.Error(), "it planned 2 shards")

	err = before.CheckDigest("garbage")
	require.ErrorAs(t, err, &mm)
	assert.True(t, strings.HasPrefix(err.Error(), "the plan of stage-c-8-gpu-h100 is not the one the policy job planned"))
}

func TestMatrices_TargetMinutesBooksTheFewestShardsThatFit(t *testing.T) {
	cfg := config.Default()
	for i := range cfg.Suites {
		if cfg.Suites[i].Name == "stage-c-8-gpu-h100" {
			cfg.Suites[i].Shards = 4
			cfg.Suites[i].TargetMinutes = 6 // 360 s
		}
	}
	// megatron: a 300 s and c 100 s; both fit one 400 s shard, not 360 s.
	pol := resolve(t, policy.Regular, false, "run-ci-megatron")
	stages, err := Matrices(cfg, regs(), pol, nil, true)
	require.NoError(t, err)
	var got StageMatrix
	for _, s := range stages {
		if s.Suite.Name == "stage-c-8-gpu-h100" {
			got = s
		}
	}
	require.NotNil(t, got.Plan)
	assert.Equal(t, 2, got.Plan.Size, "one shard of 400 s is over 6 minutes; two fit")
	assert.Equal(t, []Entry{{0, 2, got.Plan.Digest}, {1, 2, got.Plan.Digest}}, got.Matrix.Include)
	assert.Equal(t, 300.0, Longest(got.Plan))

	// Nothing fits: the roster's count.
	for i := range cfg.Suites {
		if cfg.Suites[i].Name == "stage-c-8-gpu-h100" {
			cfg.Suites[i].TargetMinutes = 1
		}
	}
	stages, err = Matrices(cfg, regs(), pol, nil, true)
	require.NoError(t, err)
	for _, s := range stages {
		if s.Suite.Name == "stage-c-8-gpu-h100" {
			assert.Equal(t, 4, s.Plan.Size)
			assert.Len(t, s.Matrix.Include, 2, "two tests need two of the four shards")
		}
	}
	// The schedule form is unchanged by target_minutes.
	full, err := Matrices(cfg, regs(), pol, nil, false)
	require.NoError(t, err)
	for _, s := range full {
		if s.Suite.Name == "stage-c-8-gpu-h100" {
			assert.Equal(t, Full(4), s.Matrix)
		}
	}
}

// TestMatrices_SetupMinutesComeOutOfEveryShardsTarget: three 300 s tests
// fit two shards of a 10-minute target; a minute of setup per shard leaves
// 9 minutes of tests, and they need three. The bounds are exact: a budget
// the longest shard meets to the second fits.
func TestMatrices_SetupMinutesComeOutOfEveryShardsTarget(t *testing.T) {
	var rs []registry.Registration
	for _, f := range []string{"a", "b", "c"} {
		rs = append(rs, registry.Registration{File: "tests/e2e/test_" + f + ".py", Backend: config.CUDA,
			Suite: "stage-c-8-gpu-h100", EstTime: 300, Labels: []string{"megatron"}})
	}
	pol := resolve(t, policy.Regular, false, "run-ci-megatron")
	for _, tc := range []struct {
		name          string
		target, setup float64
		want          int
	}{
		{"no setup: 600 s of tests fit 10 minutes", 10, 0, 2},
		{"a minute of setup leaves 540 s", 10, 1, 3},
		{"setup and tests meet the target exactly", 10.5, 0.5, 2},
		{"a quarter minute more does not fit", 10.5, 0.75, 3},
		{"one shard of 900 s and its setup", 15.5, 0.5, 1},
		{"nothing fits: the roster's count", 5.5, 0.75, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			for i := range cfg.Suites {
				if cfg.Suites[i].Name == "stage-c-8-gpu-h100" {
					cfg.Suites[i].Shards, cfg.Suites[i].TargetMinutes, cfg.Suites[i].SetupMinutes = 4, tc.target, tc.setup
				}
			}
			stages, err := Matrices(cfg, rs, pol, nil, true)
			require.NoError(t, err)
			for _, s := range stages {
				if s.Suite.Name == "stage-c-8-gpu-h100" {
					assert.Equal(t, tc.want, s.Plan.Size)
					assert.True(t, s.Plan.Sized)
				}
			}
		})
	}
}

// sizedByEveryCount is how sized chose a count before it passed over the
// counts the bounds rule out: a whole plan, digest included, for every
// count from 1 until one fits.
func sizedByEveryCount(cfg *config.Config, regs []registry.Registration, s config.Suite, pol policy.Policy, t *Timings) (*Plan, error) {
	in := Inputs{Suite: s.Name, Policy: pol, Shards: SuiteShards, ID: AllShards, Timings: t}
	var p *Plan
	for n := 1; n <= max(s.Shards, 1); n++ {
		in.Shards = n
		var err error
		if p, err = Select(cfg, regs, in); err != nil {
			return nil, err
		}
		if Longest(p) <= s.ShardBudget() {
			break
		}
	}
	return p, nil
}

// TestSized_ChoosesTheCountEveryCountWouldChoose: on random stages,
// timings and targets, sized books the count the count-by-count search
// booked, and the same plan.
func TestSized_ChoosesTheCountEveryCountWouldChoose(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	// Setups come from a stream of their own: the cases without one stay
	// those the test drew before setups were.
	setups := rand.New(rand.NewPCG(9, 10))
	pol := resolve(t, policy.Regular, true)
	for c := range 3000 {
		tests := rng.IntN(40)
		cfg, rs, s := sizingInput(0, 1+rng.IntN(48), 0)
		for range tests {
			est := float64(rng.IntN(600))
			switch rng.IntN(4) {
			case 0:
				est = float64(rng.IntN(4)) * 60 // ties and zeros
			case 1:
				est += float64(rng.IntN(10)) / 10
			}
			rs = append(rs, registry.Registration{File: fmt.Sprintf("tests/e2e/test_%02d.py", rng.IntN(30)), Backend: config.CUDA,
				Suite: s.Name, EstTime: est, Labels: []string{"megatron"}})
		}
		s.TargetMinutes = float64(1+rng.IntN(40)) / float64(1+rng.IntN(4))
		if rng.IntN(3) == 0 {
			// A target a whole shard meets exactly.
			sum := 0.0
			for _, r := range rs[:rng.IntN(len(rs)+1)] {
				sum += r.EstTime
			}
			s.TargetMinutes = max(sum, 1) / 60
		}
		if setups.IntN(3) == 0 {
			s.SetupMinutes = s.TargetMinutes * float64(setups.IntN(10)) / 10
		}
		for i := range cfg.Suites {
			if cfg.Suites[i].Name == s.Name {
				cfg.Suites[i].TargetMinutes, cfg.Suites[i].SetupMinutes = s.TargetMinutes, s.SetupMinutes
			}
		}
		var tm *Timings
		if rng.IntN(2) == 0 {
			tm = &Timings{Path: "t.json", Seconds: timings.Timings{}}
			for _, r := range rs {
				if rng.IntN(2) == 0 {
					tm.Seconds[r.File] = float64(rng.IntN(900)) + 0.1*float64(rng.IntN(10))
				}
			}
		}
		want, err := sizedByEveryCount(cfg, rs, s, pol, tm)
		require.NoError(t, err)
		got, err := sized(cfg, rs, s, pol, tm)
		require.NoError(t, err)
		require.Equal(t, want.Size, got.Size, "case %d: %d tests, %d shards, %g minutes, %g of setup", c, tests, s.Shards, s.TargetMinutes, s.SetupMinutes)
		require.Equal(t, want.Digest, got.Digest, "case %d", c)
	}
}

// bigStage is stage-c-8-gpu-h100 with shards shards in the roster and
// tests tests of distinct est_times, selected by megatron.
func bigStage(shards, tests int) (*config.Config, []registry.Registration, policy.Policy) {
	cfg, _, _ := sizingInput(0, shards, 0)
	var rs []registry.Registration
	for i := range tests {
		rs = append(rs, registry.Registration{File: fmt.Sprintf("tests/e2e/test_%03d.py", i), Backend: config.CUDA,
			Suite: "stage-c-8-gpu-h100", EstTime: float64(1000 - i), Labels: []string{"megatron"}})
	}
	return cfg, rs, policy.Policy{IncludeLabels: []string{"megatron"}}
}

func stageMatrix(t *testing.T, stages []StageMatrix, name string) StageMatrix {
	t.Helper()
	for _, s := range stages {
		if s.Suite.Name == name {
			return s
		}
	}
	t.Fatalf("no matrix of %s", name)
	return StageMatrix{}
}

// A stage of more than 16 shards: each entry carries a digest of constant
// length that its own job's plan checks, so the matrix grows with the
// shard count, not its square.
func TestPruned_ALargeStagesEntriesCarryTheirOwnShardsPlan(t *testing.T) {
	cfg, rs, pol := bigStage(256, 300)
	stages, err := Matrices(cfg, rs, pol, nil, true)
	require.NoError(t, err)
	m := stageMatrix(t, stages, "stage-c-8-gpu-h100").Matrix
	require.Len(t, m.Include, 256)
	data, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Less(t, len(data), 30_000, "the whole stage digest in every entry took 600 KB")
	for _, e := range m.Include {
		assert.Regexp(t, `^p2\.256\.[0-9a-f]{16}\.`+strconv.Itoa(e.PartitionID)+`\.[0-9a-f]{8}$`, e.Plan)
		q, err := Select(cfg, rs, Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: e.PartitionSize, ID: e.PartitionID})
		require.NoError(t, err)
		require.NoError(t, q.CheckDigest(e.Plan), "shard %d", e.PartitionID)
	}
}

func TestCheckDigest_AnEntryDigestNamesThisJobsShardOrSaysAnotherDiffers(t *testing.T) {
	cfg, rs, pol := bigStage(20, 19)
	plan := func(rs []registry.Registration, id int) *Plan {
		p, err := Select(cfg, rs, Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 20, ID: id})
		require.NoError(t, err)
		return p
	}
	stages, err := Matrices(cfg, rs, pol, nil, true)
	require.NoError(t, err)
	m := stageMatrix(t, stages, "stage-c-8-gpu-h100").Matrix
	require.Len(t, m.Include, 19, "shard 19 holds no test")
	entry := m.Include[3].Plan
	require.NoError(t, plan(rs, 3).CheckDigest(entry))

	// A test too short to move any other lands on shard 19, which the
	// policy job booked no runner for: every booked job stops.
	added := append(append([]registry.Registration(nil), rs...), registry.Registration{File: "tests/e2e/test_new.py",
		Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 1, Labels: []string{"megatron"}})
	var mm *PlanMismatchError
	err = plan(added, 3).CheckDigest(entry)
	require.ErrorAs(t, err, &mm)
	assert.Contains(t, err.Error(), ": this job's shard holds what it held, another shard's tests differ; the policy job")

	// A test that takes this job's shard's place names what it holds now.
	moved := append([]registry.Registration(nil), rs...)
	moved[3].File = "tests/e2e/test_renamed.py"
	err = plan(moved, 3).CheckDigest(entry)
	require.ErrorAs(t, err, &mm)
	assert.Contains(t, err.Error(), ": shard 3 now holds tests/e2e/test_renamed.py; the policy job")

	err = plan(rs, 4).CheckDigest(entry)
	require.ErrorAs(t, err, &mm)
	assert.Contains(t, err.Error(), ": the digest is shard 3's entry, not this job's;")

	p, err := Select(cfg, rs, Inputs{Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 21, ID: 3})
	require.NoError(t, err)
	err = p.CheckDigest(entry)
	require.ErrorAs(t, err, &mm)
	assert.Contains(t, err.Error(), ": it planned 20 shards;")

	for _, bad := range []string{"p2", "p2.20", "p2.20.x.99.y", "p2.20.x.-1.y", "p2.20.x.3.y.z"} {
		require.ErrorAs(t, plan(rs, 3).CheckDigest(bad), &mm, bad)
	}
}

// A roster built without the configuration's check still gets no matrix
// GitHub would refuse.
func TestMatrices_RefuseAStageOfMoreJobsThanAMatrixRuns(t *testing.T) {
	cfg, rs, pol := bigStage(config.MaxMatrixJobs+1, 3)
	for _, pruned := range []bool{false, true} {
		_, err := Matrices(cfg, rs, pol, nil, pruned)
		var je *MatrixJobsError
		require.ErrorAs(t, err, &je)
		assert.Equal(t, "the matrix of stage-c-8-gpu-h100 would hold 257 jobs, but GitHub Actions runs at most 256 jobs of one matrix: give the suite at most 256 shards in the roster", err.Error())
	}
}
