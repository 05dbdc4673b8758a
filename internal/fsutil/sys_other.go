//go:build !unix

package fsutil

import (
	"io/fs"
	"os"
)

func openNonblocking(path string) (*os.File, error) { return os.Open(path) }

func openWriteNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
}

func keepOwner(*os.File, fs.FileInfo) {}

// flock is a no-op where flock(2) does not exist: concurrent writers of
// one file may then lose each other's entries.
func flock(*os.File, bool) error { return nil }
