//go:build !unix

package testutil

import "testing"

// RunAsNonRoot returns true: where there are no unix users, the test runs
// as whoever runs it.
func RunAsNonRoot(t *testing.T) bool { return true }
