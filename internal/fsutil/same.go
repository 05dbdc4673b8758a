package fsutil

import (
	"os"
	"path/filepath"
)

// SameOutput reports whether writing to a and then to b would overwrite
// the first file with the second: the paths are the same once made
// absolute and cleaned, or both exist and are one file (a link and its
// target). Devices and FIFOs (/dev/null, /dev/stdout) are never the same
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
	absA, errA := filepath.Abs(a)
	absB, errB := filepath.Abs(b)
	return errA == nil && errB == nil && absA == absB
}
