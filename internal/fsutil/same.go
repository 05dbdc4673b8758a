package fsutil

import (
	"os"
	"path/filepath"
)

// SameOutput reports whether writing to a and then to b would overwrite
// the first file with the second: the paths are the same once made
// absolute and cleaned, or both exist and are one file (a link and its
// target), or links lead them to one path where no file is yet. Devices and FIFOs (/dev/null, /dev/stdout) are never the same
// output: each write reaches the reader or the bin in turn.
func SameOutput(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && !sa.Mode().IsRegular() || errB == nil && !sb.Mode().IsRegular() {
		return false
	}
	if errA == nil && errB == nil && os.SameFile(sa, sb) {
		return true
	}
	if sameAbs(a, b) {
		return true
	}
	// A link to a file not written yet (a dangling link) leads where the
	// write creates the file: another output's path is the same output.
	ta, errA := Target(a)
	tb, errB := Target(b)
	return errA == nil && errB == nil && sameAbs(ta, tb)
}

// sameAbs reports whether a and b are one path once made absolute and
// cleaned.
func sameAbs(a, b string) bool {
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
