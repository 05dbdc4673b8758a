//go:build !linux

package main

import (
	"os"
	"testing"
	"time"

	"github.com/radixark/miles-ci/internal/testutil"
)

// pipeFull cannot look into the pipe here: it gives the writer half a
// second to fill it.
func pipeFull(t *testing.T, r *os.File) bool {
	time.Sleep(500 * time.Millisecond)
	return true
}

// pipeState cannot look into the pipe here; its tests need Linux.
func pipeState(t *testing.T, r *os.File) (queued, capacity int) {
	testutil.NeedLinux(t, "FIONREAD")
	return 0, 0
}
