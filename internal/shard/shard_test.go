package shard

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

func reg(file string, est float64) registry.Registration {
	return registry.Registration{File: file, Backend: config.CUDA, Suite: "s", EstTime: est, Labels: []string{"fsdp"}}
}

func files(regs []registry.Registration) []string {
	out := make([]string, len(regs))
	for i, r := range regs {
		out[i] = r.File
	}
	return out
}

func shardFiles(shards []Shard) [][]string {
	out := make([][]string, len(shards))
	for i, s := range shards {
		out[i] = files(s.Tests)
	}
	return out
}

func TestPartition_PinsEveryShard(t *testing.T) {
	tests := []struct {
		name   string
		regs   []registry.Registration
		size   int
		want   [][]string
		totals []float64
	}{
		{
			name:   "longest first to the emptiest shard",
			regs:   []registry.Registration{reg("a", 10), reg("b", 30), reg("c", 20), reg("d", 5)},
			size:   2,
			want:   [][]string{{"b", "d"}, {"c", "a"}},
			totals: []float64{35, 30},
		},
		{
			name:   "equal est_time breaks by file name",
			regs:   []registry.Registration{reg("z", 5), reg("m", 5), reg("a", 5)},
			size:   2,
			want:   [][]string{{"a", "z"}, {"m"}},
			totals: []float64{10, 5},
		},
		{
			name:   "equal totals go to the lowest shard id",
			regs:   []registry.Registration{reg("a", 1), reg("b", 1), reg("c", 1), reg("d", 1)},
			size:   3,
			want:   [][]string{{"a", "d"}, {"b"}, {"c"}},
			totals: []float64{2, 1, 1},
		},
		{
			name:   "file names compare by code point, not by locale",
			regs:   []registry.Registration{reg("tests/é.py", 1), reg("tests/Z.py", 1), reg("tests/z.py", 1), reg("tests/ｚ.py", 1)},
			size:   1,
			want:   [][]string{{"tests/Z.py", "tests/z.py", "tests/é.py", "tests/ｚ.py"}},
			totals: []float64{4},
		},
		{
			name:   "same file twice keeps registry order",
			regs:   []registry.Registration{{File: "a", EstTime: 2, Suite: "first"}, {File: "a", EstTime: 2, Suite: "second"}},
			size:   1,
			want:   [][]string{{"a", "a"}},
			totals: []float64{4},
		},
		{
			name:   "more shards than tests leaves empty shards",
			regs:   []registry.Registration{reg("a", 3)},
			size:   3,
			want:   [][]string{{"a"}, {}, {}},
			totals: []float64{3, 0, 0},
		},
		{
			name:   "no tests",
			size:   2,
			want:   [][]string{{}, {}},
			totals: []float64{0, 0},
		},
		{
			name: "float sums follow assignment order",
			// 0.1 then 0.2 sums to 0.30000000000000004, which is more than
			// 0.3: the next test goes to the other shard.
			regs:   []registry.Registration{reg("a", 0.3), reg("b", 0.2), reg("c", 0.1), reg("d", 0.1)},
			size:   2,
			want:   [][]string{{"a", "d"}, {"b", "c"}},
			totals: []float64{0.4, 0.30000000000000004},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			shards, err := Partition(tt.regs, tt.size)
			require.NoError(t, err)
			assert.Equal(t, tt.want, shardFiles(shards))
			for i, s := range shards {
				assert.Equal(t, i, s.ID)
				assert.Equal(t, tt.totals[i], s.EstTotal, "shard %d total", i)
			}
		})
	}
}

func TestPartition_RejectsNonPositiveOrHugeSize(t *testing.T) {
	for _, size := range []int{0, -1, config.MaxShards + 1, math.MaxInt} {
		_, err := Partition([]registry.Registration{reg("a", 1)}, size)
		var se *SizeError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, size, se.Size)
	}
}

// naivePartition is the rule written the plain way: a stable sort and a
// linear scan for the smallest total, O(n·k).
func naivePartition(regs []registry.Registration, size int) [][]registry.Registration {
	sorted := slices.Clone(regs)
	slices.SortStableFunc(sorted, func(a, b registry.Registration) int {
		switch {
		case a.EstTime > b.EstTime:
			return -1
		case a.EstTime < b.EstTime:
			return 1
		}
		return strings.Compare(a.File, b.File)
	})
	out := make([][]registry.Registration, size)
	sums := make([]float64, size)
	for _, r := range sorted {
		best := 0
		for i := 1; i < size; i++ {
			if sums[i] < sums[best] {
				best = i
			}
		}
		out[best] = append(out[best], r)
		sums[best] += r.EstTime
	}
	return out
}

// randomRegs builds a registry with many ties: est_times from a small set
// (some of them sums that round), file names from a small alphabet.
func randomRegs(rng *rand.Rand, n int) []registry.Registration {
	ests := []float64{0, 0.1, 0.2, 0.3, 0.5, 1, 1, 2, 7.5, 60, 60, 120, 1e-9, 1800}
	names := []string{"a", "b", "é", "Z", "a/b", "a.b", "ｚ"}
	regs := make([]registry.Registration, n)
	for i := range regs {
		var sb strings.Builder
		for range 1 + rng.IntN(3) {
			sb.WriteString(names[rng.IntN(len(names))])
		}
		regs[i] = registry.Registration{
			File:    sb.String(),
			EstTime: ests[rng.IntN(len(ests))] * float64(1+rng.IntN(3)),
			Suite:   fmt.Sprint(i), // tells duplicates apart
		}
	}
	return regs
}

func TestPartition_Properties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for c := range 5000 {
		regs := randomRegs(rng, rng.IntN(40))
		size := 1 + rng.IntN(9)
		shards, err := Partition(regs, size)
		require.NoError(t, err)
		require.Len(t, shards, size)

		// The heap gives exactly what the plain O(n·k) rule gives.
		want := naivePartition(regs, size)
		for i := range shards {
			require.Equal(t, len(want[i]), len(shards[i].Tests), "case %d shard %d", c, i)
			for j := range want[i] {
				require.Equal(t, want[i][j], shards[i].Tests[j], "case %d shard %d test %d", c, i, j)
			}
		}

		// The shards partition the input exactly.
		seen := map[string]int{}
		for _, s := range shards {
			for _, r := range s.Tests {
				seen[r.Suite]++
			}
		}
		require.Len(t, seen, len(regs), "case %d", c)
		for k, n := range seen {
			require.Equal(t, 1, n, "case %d: %s placed %d times", c, k, n)
		}

		// Every shard is in assignment (longest-first) order, and its total
		// is the sum of its tests in that order.
		for _, s := range shards {
			var sum float64
			for j, r := range s.Tests {
				sum += r.EstTime
				if j == 0 {
					continue
				}
				p := s.Tests[j-1]
				require.True(t, p.EstTime > r.EstTime || (p.EstTime == r.EstTime && p.File <= r.File),
					"case %d shard %d out of order at %d", c, s.ID, j)
			}
			require.Equal(t, sum, s.EstTotal)
		}
	}
}

func BenchmarkPartition(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	regs := make([]registry.Registration, 1_000_000)
	for i := range regs {
		regs[i] = registry.Registration{
			File:    fmt.Sprintf("tests/e2e/dir%03d/test_%07d.py", rng.IntN(1000), rng.IntN(10_000_000)),
			EstTime: float64(rng.IntN(3600)) + 0.5*float64(rng.IntN(2)),
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Partition(regs, 64); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFewest_TheLongestShardNeverGrowsWithTheCount checks on random
// weights the property Fewest's binary search rests on (its comment has
// the proof): one more shard never makes the heaviest shard heavier.
func TestFewest_TheLongestShardNeverGrowsWithTheCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for c := range 2000 {
		regs := make([]registry.Registration, rng.IntN(30))
		for i := range regs {
			regs[i] = registry.Registration{File: fmt.Sprintf("t%02d.py", rng.IntN(20)),
				EstTime: float64(rng.IntN(12)) + 0.1*float64(rng.IntN(10))}
		}
		order := lptOrder(regs, nil)
		for n := 1; n < 40; n++ {
			require.LessOrEqual(t, longest(order, n+1), longest(order, n), "case %d: %d shards", c, n)
		}
	}
}

func TestFewest_TheFirstCountWhoseLongestShardFits(t *testing.T) {
	regs := []registry.Registration{{File: "a.py", EstTime: 300}, {File: "b.py", EstTime: 200}, {File: "c.py", EstTime: 100}, {File: "d.py", EstTime: 100}}
	for _, tc := range []struct {
		limit float64
		want  int
	}{
		{700, 1}, {699, 2}, {400, 2}, {399, 3}, {300, 3}, {299, 8}, {1e9, 1},
	} {
		assert.Equal(t, tc.want, Fewest(regs, 8, nil, tc.limit), "limit %g", tc.limit)
	}
	assert.Equal(t, 1, Fewest(nil, 8, nil, 1), "no test fits one shard")
	assert.Equal(t, 2, Fewest(regs, 8, map[string]float64{"a.py": 50}, 250), "measured seconds weigh the files they list")
}
