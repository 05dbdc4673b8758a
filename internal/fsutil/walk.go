package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Below is what FilesBelow found under a directory.
type Below struct {
	// Files are the files whose names end in the suffix, in lexical order.
	Files []string
	// Links are the links found on the way (to a file with the suffix, or
	// to a directory), in lexical order: never followed, for the caller
	// to warn about.
	Links []string
}

// FilesBelow lists the files below dir whose names end in suffix. A link
// the user named as dir is followed, as a shell's `ls DIR/` would: the
// files found are named under dir as given. A link found on the way is
// not, whether to a directory or to a file: a directory of reports is
// read as it is, never out of it and never in a loop. A directory that
// cannot be read is an *fs.PathError naming it under dir too.
func FilesBelow(dir, suffix string) (Below, error) {
	root, name := dir, func(p string) string { return p }
	if st, err := os.Lstat(dir); err == nil && st.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return Below{}, err
		}
		root = target
		name = func(p string) string {
			rel, err := filepath.Rel(target, p)
			if err != nil {
				return p
			}
			return filepath.Join(dir, rel)
		}
	}
	var b Below
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return &fs.PathError{Op: pe.Op, Path: name(pe.Path), Err: pe.Err}
			}
			return err
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			st, err := os.Stat(p)
			if strings.HasSuffix(e.Name(), suffix) || err == nil && st.IsDir() {
				b.Links = append(b.Links, name(p))
			}
		case !e.IsDir() && strings.HasSuffix(e.Name(), suffix):
			b.Files = append(b.Files, name(p))
		}
		return nil
	})
	return b, err
}
