package fsutil

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
)

// Original is a file as ReadForRewrite found it: its text and its state,
// which Rewrite compares with the file's before it replaces it.
type Original struct {
	Path string
	Data []byte
	Info fs.FileInfo
}

// ErrChanged is Rewrite's error for a file that changed after it was read.
var ErrChanged = errors.New("changed since it was read; not overwritten")

// ReadForRewrite reads a file that Rewrite may replace. It refuses, with an
// error that names the reason but not the path, a symbolic link (replacing
// the link would cut it; replacing its target would change a file elsewhere),
// anything but a regular file, a file without write permission for its
// owner, and one over limit bytes.
func ReadForRewrite(path string, limit int64) (*Original, error) {
	lst, err := os.Lstat(path)
	if err != nil {
		return nil, StripPath(err)
	}
	switch {
	case lst.Mode()&fs.ModeSymlink != 0:
		return nil, errors.New("is a symbolic link; refusing to rewrite through it (rewrite the file it points to)")
	case !lst.Mode().IsRegular():
		return nil, &NotRegularError{Kind: kind(lst.Mode())}
	case lst.Mode().Perm()&0o200 == 0:
		return nil, errors.New("is read-only; refusing to rewrite it")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, StripPath(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, StripPath(err)
	}
	if !os.SameFile(st, lst) {
		return nil, ErrChanged
	}
	data, err := readAtMost(f, nil, limit)
	if err != nil {
		return nil, StripPath(err)
	}
	return &Original{Path: path, Data: data, Info: st}, nil
}

// Rewrite replaces the file o was read from with data, atomically: the
// data goes to a temporary file beside it, is flushed to disk, and the
// temporary file is renamed over the original, so that a crash leaves the
// old file or the new one, never a part. The new file keeps the old one's
// permission bits (and owner, where it may). Just before the rename the
// file is checked again: when it is no longer the same file, or its size,
// modification time or text differ from what was read, nothing is
// replaced and the error is ErrChanged. Errors leave out the paths.
func Rewrite(o *Original, data []byte) (err error) {
	tmp, err := createTemp(o.Path)
	if err != nil {
		return StripPath(err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			err = StripPath(err)
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if err := tmp.Chmod(o.Info.Mode().Perm()); err != nil {
		return err
	}
	keepOwner(tmp, o.Info)
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := unchanged(o); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), o.Path); err != nil {
		return err
	}
	// Make the rename itself durable; a directory that cannot be synced
	// (some file systems) still holds the new file.
	if d, err := os.Open(ParentDir(o.Path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// unchanged returns ErrChanged unless the file at o.Path is still the one
// o was read from, with the same size, modification time and text.
func unchanged(o *Original) error {
	lst, err := os.Lstat(o.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrChanged
		}
		return err
	}
	if !os.SameFile(lst, o.Info) || lst.Size() != o.Info.Size() || !lst.ModTime().Equal(o.Info.ModTime()) {
		return ErrChanged
	}
	f, err := os.Open(o.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	now, err := io.ReadAll(io.LimitReader(f, int64(len(o.Data))+1))
	if err != nil {
		return err
	}
	if !bytes.Equal(now, o.Data) {
		return ErrChanged
	}
	return nil
}
