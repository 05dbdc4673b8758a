package registry

import "math"

// TimeoutFactor is what a test file's est_time is multiplied by to give
// the time limit it earns: the Python runner lets a file run 1.25 times
// its estimate when that is longer than the run's per-file timeout.
const TimeoutFactor = 1.25

// TimeLimit is the time limit in seconds of a test file whose est_time is
// est, in a run whose per-file timeout is base: the larger of base and
// est × TimeoutFactor truncated toward zero, as the Python runner computes
// it (the product in floating point, then int()). The result is a whole
// number, exact at any size; it is +Inf when the product overflows (an
// est_time beyond 1.4e308, where Python's int() raises OverflowError) and
// NaN for a NaN est. It is the one home of the rule: the runner's limits,
// file-run's timeout_seconds, the roster's over-budget flag and the 80%
// warning of timings apply all call it.
func TimeLimit(base int, est float64) float64 {
	return max(float64(base), math.Trunc(est*TimeoutFactor))
}
