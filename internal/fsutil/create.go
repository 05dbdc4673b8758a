package fsutil

import (
	"errors"
	"io/fs"
	"os"
)

// CreateNew writes data to a new file at path, never replacing anything
// already there (a file, a directory, a link, a dangling one included):
// then the error is fs.ErrExist. A reader never sees a part of the file:
// data goes to a temporary file beside path, which is then linked into
// place, an operation that fails rather than replaces. Where the file
// system has no hard links, the file is created exclusively and written
// in place. The new file gets 0666 less the umask; on failure nothing is
// left behind. Errors leave out the paths (see StripPath).
func CreateNew(path string, data []byte) error {
	return StripPath(createNew(path, data))
}

func createNew(path string, data []byte) (err error) {
	tmp, err := createTemp(path)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	err = os.Link(tmp.Name(), path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	if _, lerr := os.Lstat(path); lerr == nil {
		return fs.ErrExist
	}
	// No hard links here (some network and FUSE file systems).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err != nil {
		os.Remove(path)
	}
	return err
}
