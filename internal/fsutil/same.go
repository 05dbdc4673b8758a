package fsutil

import (
	"os"
	"path/filepath"
)

// SameOutput reports whether writing to a and then to b would overwrite
// the first file with the second. Two existing files are the same output
// when they are one file (a path and a link to it); otherwise a and b are
// compared as the file a write would create: the links of the last element
// followed (a dangling link leads to where the file will be), the
// directories on the way resolved with their links and "..", the result
// absolute. Devices and FIFOs (/dev/null, /dev/stdout) are never the same
// output: each write reaches the reader or the bin in turn.
func SameOutput(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && !sa.Mode().IsRegular() || errB == nil && !sb.Mode().IsRegular() {
		return false
	}
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	pa, okA := createdPath(a)
	pb, okB := createdPath(b)
	return okA && okB && pa == pb
}

// createdPath is the absolute path of the file a write to p creates, its
// directory resolved as the system resolves it (links, then ".."): a
// directory reached through a link is the same directory.
func createdPath(p string) (string, bool) {
	t, err := Target(p)
	if err != nil {
		t = p
	}
	dir, base := ParentDir(t), filepath.Base(t)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	abs, err := filepath.Abs(filepath.Join(dir, base))
	return abs, err == nil
}
