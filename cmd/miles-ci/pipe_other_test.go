//go:build !linux

package main

import (
	"os"
	"testing"
	"time"
)

// pipeFull cannot look into the pipe here: it gives the writer half a
// second to fill it.
func pipeFull(t *testing.T, r *os.File) bool {
	time.Sleep(500 * time.Millisecond)
	return true
}
