package shard

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/registry"
)

func TestPartitionTimed_PinsEveryShard(t *testing.T) {
	tests := []struct {
		name     string
		regs     []registry.Registration
		measured map[string]float64
		size     int
		want     [][]string
		est      []float64
		timed    []float64
	}{
		{
			name:     "measured time replaces est_time for the files it lists",
			regs:     []registry.Registration{reg("a", 10), reg("b", 30), reg("c", 20), reg("d", 5)},
			measured: map[string]float64{"b": 1, "d": 40},
			size:     2,
			// weights a=10 b=1 c=20 d=40: d | c, a, b
			want:  [][]string{{"d"}, {"c", "a", "b"}},
			est:   []float64{5, 60},
			timed: []float64{40, 31},
		},
		{
			name:     "equal weights break by file name, then the lowest shard",
			regs:     []registry.Registration{reg("z", 5), reg("m", 9), reg("a", 1)},
			measured: map[string]float64{"m": 5, "a": 5},
			size:     2,
			want:     [][]string{{"a", "z"}, {"m"}},
			est:      []float64{6, 9},
			timed:    []float64{10, 5},
		},
		{
			name:     "a measured zero is a weight like any other",
			regs:     []registry.Registration{reg("a", 100), reg("b", 1), reg("c", 1)},
			measured: map[string]float64{"a": 0},
			size:     2,
			want:     [][]string{{"b", "a"}, {"c"}},
			est:      []float64{101, 1},
			timed:    []float64{1, 1},
		},
		{
			name:     "every registration of a measured file takes its time",
			regs:     []registry.Registration{reg("a", 100), reg("b", 50), reg("a", 1)},
			measured: map[string]float64{"a": 30},
			size:     2,
			want:     [][]string{{"b"}, {"a", "a"}},
			est:      []float64{50, 101},
			timed:    []float64{50, 60},
		},
		{
			name:     "files of other suites change nothing",
			regs:     []registry.Registration{reg("a", 10), reg("b", 30), reg("c", 20), reg("d", 5)},
			measured: map[string]float64{"elsewhere.py": 1e6},
			size:     2,
			want:     [][]string{{"b", "d"}, {"c", "a"}},
			est:      []float64{35, 30},
			timed:    []float64{35, 30},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shards, err := PartitionTimed(tt.regs, tt.size, tt.measured)
			require.NoError(t, err)
			assert.Equal(t, tt.want, shardFiles(shards))
			for i, s := range shards {
				assert.Equal(t, i, s.ID)
				assert.Equal(t, tt.est[i], s.EstTotal, "est total of shard %d", i)
				assert.Equal(t, tt.timed[i], s.TimedTotal, "timed total of shard %d", i)
				for _, r := range s.Tests {
					declared := slices.ContainsFunc(tt.regs, func(o registry.Registration) bool {
						return o.File == r.File && o.EstTime == r.EstTime
					})
					assert.True(t, declared, "shard %d holds %q with est_time %v, not a declared registration", i, r.File, r.EstTime)
				}
			}
		})
	}
}

func TestPartitionTimed_RejectsNonPositiveSize(t *testing.T) {
	_, err := PartitionTimed(nil, 0, map[string]float64{})
	var se *SizeError
	require.ErrorAs(t, err, &se)
}

func TestMeasured_CountsRegistrationsWhoseFileIsListed(t *testing.T) {
	regs := []registry.Registration{reg("a", 1), reg("b", 1), reg("a", 2)}
	assert.Equal(t, 2, Measured(regs, map[string]float64{"a": 3, "x": 1}))
	assert.Equal(t, 0, Measured(regs, nil))
}

// TestPartitionTimed_WithNothingMeasuredIsPartition is the property that
// keeps --timings safe to pass always: a timings file that lists none of
// the suite's files (empty, nil, or only other suites' files) gives exactly
// the default shards, and so does one that measures every file at its
// est_time.
func TestPartitionTimed_WithNothingMeasuredIsPartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range 3000 {
		regs := randomRegs(rng, rng.IntN(40))
		size := 1 + rng.IntN(9)
		want, err := Partition(regs, size)
		require.NoError(t, err)

		atEst := map[string]float64{}
		for _, r := range regs {
			atEst[r.File] = r.EstTime
		}
		// A file registered twice with different est_times cannot be
		// measured at both; leave those out of the at-est case.
		for _, r := range regs {
			if atEst[r.File] != r.EstTime {
				delete(atEst, r.File)
			}
		}
		unrelated := map[string]float64{"not/a/suite/file.py": rng.Float64() * 1e4}
		for name, measured := range map[string]map[string]float64{
			"nil": nil, "empty": {}, "unrelated": unrelated, "at est_time": atEst,
		} {
			got, err := PartitionTimed(regs, size, measured)
			require.NoError(t, err)
			require.Len(t, got, size)
			for i := range got {
				require.Equal(t, want[i].Tests, got[i].Tests, "case %d (%s) shard %d", c, name, i)
				require.Equal(t, want[i].EstTotal, got[i].EstTotal, "case %d (%s) shard %d", c, name, i)
				if name != "at est_time" {
					require.Equal(t, want[i].EstTotal, got[i].TimedTotal, "case %d (%s) shard %d", c, name, i)
				}
			}
		}
	}
}

// TestPartitionTimed_IsTheRuleOnMeasuredWeights checks the timed split
// against the plain rule run on registrations whose est_time was replaced by
// the measured time.
func TestPartitionTimed_IsTheRuleOnMeasuredWeights(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for c := range 3000 {
		regs := randomRegs(rng, rng.IntN(40))
		size := 1 + rng.IntN(9)
		measured := map[string]float64{}
		for _, r := range regs {
			if rng.IntN(2) == 0 {
				measured[r.File] = float64(rng.IntN(5)) * 30
			}
		}
		weighed := make([]registry.Registration, len(regs))
		for i, r := range regs {
			if m, ok := measured[r.File]; ok {
				r.EstTime = m
			}
			weighed[i] = r
		}
		want := naivePartition(weighed, size)
		got, err := PartitionTimed(regs, size, measured)
		require.NoError(t, err)
		for i := range got {
			require.Len(t, got[i].Tests, len(want[i]), "case %d shard %d", c, i)
			var est, timed float64
			for j, r := range got[i].Tests {
				// Suite tells duplicates apart (see randomRegs).
				require.Equal(t, want[i][j].Suite, r.Suite, "case %d shard %d test %d", c, i, j)
				est += r.EstTime
				timed += want[i][j].EstTime
			}
			require.Equal(t, est, got[i].EstTotal, "declared est_time is kept")
			require.Equal(t, timed, got[i].TimedTotal)
		}
	}
}
