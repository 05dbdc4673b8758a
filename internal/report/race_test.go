//go:build race

package report

// allocSlack widens an allocation bound under the race detector, whose
// instrumented runtime allocates more for the same reading (2.8× the
// report becomes 3.0× of an 8 MB report).
const allocSlack = 1.25
