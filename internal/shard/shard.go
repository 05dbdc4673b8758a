// Package shard splits a suite's enabled registrations into shards with the
// longest-processing-time rule of the Python runner. It is pure and
// deterministic: the same registrations always give the same shards in the
// same order.
package shard

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// SizeError is a shard count that is not positive or above config.MaxShards.
type SizeError struct{ Size int }

func (e *SizeError) Error() string {
	if e.Size > config.MaxShards {
		return fmt.Sprintf("shard count must be at most %d, got %d", config.MaxShards, e.Size)
	}
	return fmt.Sprintf("shard count must be positive, got %d", e.Size)
}

// Shard is one part of a partitioned suite.
type Shard struct {
	ID int
	// Tests are in assignment order, which is also the order they run in.
	Tests []registry.Registration
	// EstTotal is the sum of the tests' est_time, added in assignment order
	// (the same float64 sum the Python runner keeps).
	EstTotal float64
	// TimedTotal is the sum, in assignment order, of the seconds the shard
	// was balanced on: measured where a timings file had the test's file,
	// est_time elsewhere. PartitionTimed sets it; Partition leaves it zero.
	TimedTotal float64
}

// Partition splits enabled into size shards, longest first: the tests are
// ordered by est_time descending, then file name ascending (byte order,
// which is Python's code-point order), registry order breaking any remaining
// tie; each in turn goes to the shard with the smallest running total, the
// lowest id on ties. It takes O(n log n + n log size).
func Partition(enabled []registry.Registration, size int) ([]Shard, error) {
	return partition(enabled, size, nil)
}

// PartitionTimed is Partition balanced on measured seconds: a test whose
// file measured has is weighed by that time instead of its est_time (every
// registration of that file, since each one is a run of the file); the
// others keep their est_time. The rule and its tie-breaks are Partition's,
// so every shard job given the same timings computes the same split, and
// with no measured file of enabled the shards are Partition's. EstTotal
// still sums the declared est_time; TimedTotal sums the weights.
func PartitionTimed(enabled []registry.Registration, size int, measured map[string]float64) ([]Shard, error) {
	if measured == nil {
		measured = map[string]float64{}
	}
	return partition(enabled, size, measured)
}

// Measured counts the registrations of enabled whose file measured has.
func Measured(enabled []registry.Registration, measured map[string]float64) int {
	n := 0
	for _, r := range enabled {
		if _, ok := measured[r.File]; ok {
			n++
		}
	}
	return n
}

// partition is Partition, weighing each test by its measured time when
// measured is not nil and has its file.
func partition(enabled []registry.Registration, size int, measured map[string]float64) ([]Shard, error) {
	if size <= 0 || size > config.MaxShards {
		return nil, &SizeError{Size: size}
	}
	order := lptOrder(enabled, measured)

	// First decide where every test goes, then copy each test once into a
	// shard allocated at its final length.
	assign := make([]int32, len(order))
	counts := make([]int, size)
	h := newMinHeap(size)
	for i := range order {
		s := h.min()
		assign[i] = int32(s)
		counts[s]++
		h.addToMin(order[i].est)
	}

	shards := make([]Shard, size)
	for s := range shards {
		shards[s] = Shard{ID: s, Tests: make([]registry.Registration, 0, counts[s])}
	}
	for i, k := range order {
		sh := &shards[assign[i]]
		r := enabled[k.idx]
		sh.Tests = append(sh.Tests, r)
		sh.EstTotal += r.EstTime
		if measured != nil {
			sh.TimedTotal += k.est
		}
	}
	return shards, nil
}

// Fewest returns the fewest shards, from 1 to most, into which PartitionTimed
// (Partition when measured is nil) splits enabled with no shard's total
// weight above limit, or most when no count fits.
//
// The heaviest shard of the rule never grows when a shard is added, so the
// counts that fit are those from some count on, and a binary search finds
// the first. Why: give the same tests, in the same order, to s and s+1
// shards, each test to the lightest shard. Sort each side's totals
// ascending, b_1..b_s and a_1..a_{s+1}; then a_{i+1} <= b_i for every i
// (all zero at first). A test of weight w goes to a_1 and to b_1: pair
// a_1+w with b_1+w and a_{i+1} with b_i; the new a-side is below the
// multiset {b_1, b_1+w, b_2, ..., b_s} term by term, whose least term is
// b_1, and without it that multiset is the new b-side. So the heaviest
// a_{s+1} <= b_s after every test. Float sums keep this: rounding is
// monotone, and a_1 <= b_1 gives fl(a_1+w) <= fl(b_1+w).
//
// No split has a shard lighter than its heaviest test or than the mean
// either, so the search starts at the first count those bounds allow; the
// tests are sorted once, and a tried count only places weights: no shard
// is built.
func Fewest(enabled []registry.Registration, most int, measured map[string]float64, limit float64) int {
	order := lptOrder(enabled, measured)
	heaviest, total := 0.0, 0.0
	for i, k := range order {
		if i == 0 {
			heaviest = k.est
		}
		total += k.est
	}
	if heaviest > limit {
		// A shard holds the heaviest test: no count fits.
		return most
	}
	// The float sums of a split may round below the float mean by a few
	// ulps per test; the margin keeps the bound a bound.
	lo := 1
	if mean := total / (limit * (1 + 1e-6)); mean > 1 {
		lo = int(min(math.Floor(mean), float64(most)))
	}
	for lo < most && total/float64(lo) > limit*(1+1e-6) {
		lo++
	}
	// The first count in [lo, most] that fits, most when none does.
	hi := most
	for lo < hi {
		mid := lo + (hi-lo)/2
		if longest(order, mid) <= limit {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// longest is the heaviest shard's total when order, sorted by lptOrder, is
// split into size shards: the same sums, added in the same order, as the
// shards of partition hold.
func longest(order []lptKey, size int) float64 {
	h := newMinHeap(size)
	for i := range order {
		h.addToMin(order[i].est)
	}
	l := 0.0
	for _, t := range h.total {
		l = max(l, t)
	}
	return l
}

// lptKey is what the longest-first order compares, kept together so the
// sort walks one compact slice instead of the registrations themselves.
type lptKey struct {
	est  float64
	file string
	idx  int32
}

// lptOrder returns the keys of regs sorted by weight (the measured time of
// the file when measured has it, else est_time) descending, then file
// ascending, then index (which makes the sort stable).
func lptOrder(regs []registry.Registration, measured map[string]float64) []lptKey {
	keys := make([]lptKey, len(regs))
	for i := range regs {
		est := regs[i].EstTime
		if t, ok := measured[regs[i].File]; ok {
			est = t
		}
		keys[i] = lptKey{est: est, file: regs[i].File, idx: int32(i)}
	}
	slices.SortFunc(keys, func(a, b lptKey) int {
		switch {
		case a.est > b.est:
			return -1
		case a.est < b.est:
			return 1
		}
		if c := strings.Compare(a.file, b.file); c != 0 {
			return c
		}
		return cmp.Compare(a.idx, b.idx)
	})
	return keys
}

// minHeap holds one entry per shard keyed by (running total, shard id), so
// its top is the shard the next test goes to.
type minHeap struct {
	total []float64 // running total of each heap slot's shard
	id    []int     // shard id of each heap slot
}

func newMinHeap(size int) *minHeap {
	h := &minHeap{total: make([]float64, size), id: make([]int, size)}
	// All totals start at zero, so ids in ascending order already form a heap.
	for i := range h.id {
		h.id[i] = i
	}
	return h
}

func (h *minHeap) min() int { return h.id[0] }

func (h *minHeap) less(i, j int) bool {
	if h.total[i] != h.total[j] {
		return h.total[i] < h.total[j]
	}
	return h.id[i] < h.id[j]
}

// addToMin adds est to the top shard's total and restores the heap; totals
// only grow, so the top entry can only move down.
func (h *minHeap) addToMin(est float64) {
	h.total[0] += est
	n := len(h.id)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.total[i], h.total[m] = h.total[m], h.total[i]
		h.id[i], h.id[m] = h.id[m], h.id[i]
		i = m
	}
}
