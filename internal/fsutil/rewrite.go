package fsutil

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Original is a file as ReadForRewrite found it: its text and its state,
// which Rewrite compares with the file's before it replaces it.
type Original struct {
	Path string
	Data []byte
	Info fs.FileInfo
	// root and rel, when set, name the file as rel below root, each of
	// whose directories must stay a real one (see ReadForRewriteBelow).
	root, rel string
}

// ErrChanged is Rewrite's error for a file that changed after it was read.
var ErrChanged = errors.New("changed since it was read; not overwritten")

// ReadForRewrite reads a file that Rewrite may replace. It refuses, with an
// error that names the reason but not the path, a symbolic link (replacing
// the link would cut it; replacing its target would change a file elsewhere),
// anything but a regular file, a file without write permission for its
// owner, a file with more than one hard link, and one over limit bytes.
//
// Hard links are refused rather than written through: the new file that
// Rewrite renames into place would leave the file's other names with the
// old text, silently; writing the file in place instead would change every
// name at once (a snapshot made with cp -al, a second checkout sharing the
// file) and give up the atomic replacement. Neither is what a user asking
// to update one test file expects, so the user decides: copying the file
// over itself (cp f f.new && mv f.new f) makes it a file of its own.
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
	case linkCount(lst) > 1:
		return nil, fmt.Errorf("has %d hard links; refusing to rewrite it, which would split them or change the other names too (copy it over itself first to make it a file of its own)", linkCount(lst))
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

// ReadForRewriteBelow is ReadForRewrite of the file rel, a '/'-separated
// path below the directory root, that also refuses a path through a
// symbolic link: each directory of rel below root must be a real one, so
// that what is written is the file the name says, inside root (root itself
// may be a link). Rewrite checks the directories again just before it
// replaces the file.
func ReadForRewriteBelow(root, rel string, limit int64) (*Original, error) {
	if err := realDirs(root, rel); err != nil {
		return nil, err
	}
	o, err := ReadForRewrite(filepath.Join(root, filepath.FromSlash(rel)), limit)
	if err != nil {
		return nil, err
	}
	o.root, o.rel = root, rel
	return o, nil
}

// realDirs refuses a rel whose directories below root are not all real
// directories, naming the first that is a symbolic link.
func realDirs(root, rel string) error {
	if !fs.ValidPath(rel) || rel == "." {
		return fmt.Errorf("%q is not a path below the repository root", rel)
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/")
		st, err := os.Lstat(filepath.Join(root, filepath.FromSlash(dir)))
		switch {
		case err != nil:
			return StripPath(err)
		case st.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("its directory %s is a symbolic link; refusing to rewrite through it (rewrite the file where it lies)", dir)
		case !st.IsDir():
			return fmt.Errorf("%s is not a directory", dir)
		}
	}
	return nil
}

// Rewrite replaces the file o was read from with data, atomically: the
// data goes to a temporary file beside it, is flushed to disk, and the
// temporary file is renamed over the original, so that a crash leaves the
// old file or the new one, never a part. The new file keeps the old one's
// mode, set-user-ID, set-group-ID and sticky bits included, and its owner
// and group, where the system lets the process set them (any owner as
// root; a group the process is in otherwise; the system may clear the
// set-group-ID bit of a file whose group the process is not in). What the
// rename cannot keep are extended attributes and ACLs. Just before the rename the
// file is checked again: when it is no longer the same file, or its size,
// modification time or text differ from what was read, nothing is
// replaced and the error is ErrChanged. Errors leave out the paths.
func Rewrite(o *Original, data []byte) (err error) {
	if o.root != "" {
		// Not even the temporary file goes through a link.
		if err := realDirs(o.root, o.rel); err != nil {
			return err
		}
	}
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
	// The owner first: a change of owner clears the set-user-ID and
	// set-group-ID bits, which the mode then puts back.
	keepOwner(tmp, o.Info)
	if err := tmp.Chmod(o.Info.Mode() & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)); err != nil {
		return err
	}
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
	if o.root != "" {
		if err := realDirs(o.root, o.rel); err != nil {
			return err
		}
	}
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
