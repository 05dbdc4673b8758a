//go:build !unix

package fsutil

import (
	"errors"
	"io/fs"
	"os"
)

func openNonblocking(path string) (*os.File, error) { return os.Open(path) }

func openWriteNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
}

// writeDescriptor is never reached where names like /dev/stdout do not
// name descriptors; it refuses rather than close a borrowed one.
func writeDescriptor(fd int, path string, data []byte) error {
	return &fs.PathError{Op: "write", Path: path, Err: errors.ErrUnsupported}
}

func keepOwner(*os.File, fs.FileInfo) {}

// linkCount is 1 where the system does not say: no hard link is refused.
func linkCount(fs.FileInfo) uint64 { return 1 }

// flock is a no-op where flock(2) does not exist: concurrent writers of
// one file may then lose each other's entries.
func flock(*os.File, bool) error { return nil }
