//go:build !race

package report

// allocSlack widens an allocation bound under the race detector; without
// it the bound is as stated.
const allocSlack = 1.0
