//go:build unix

package ghactions

import (
	"os"
	"syscall"
)

// openAppend opens the file a workflow command appends to (GITHUB_OUTPUT,
// GITHUB_STEP_SUMMARY), creating it when missing. It does not wait for a
// reader: a FIFO that nobody reads is an error at once (ENXIO) instead of a
// step that hangs until the job times out.
func openAppend(path string, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, perm)
}
