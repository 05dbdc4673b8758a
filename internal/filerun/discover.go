package filerun

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// Discover lists the test files below the discovery roots of the source
// root at root (absolute) the way file_run.py does, which is not the way
// the suite collector does (registry.Discover):
//
//   - Before each root is walked, each of its leading components (tests,
//     then tests/fast) that is a symbolic link is an error.
//   - Each root is walked top down as os.walk walks it, in directory order.
//     In each directory, first every subdirectory that is a symbolic link
//     is an error (whatever its name, even an empty or dangling-free one),
//     then every file whose name matches the pattern and that is a symbolic
//     link (to anything, or to nothing) is an error; symbolic links to
//     other files are ignored. The first error found is returned, as the
//     script raises it.
//   - Hidden directories and files are walked and listed (the suite
//     collector skips them).
//   - A missing root, or one that is not a directory, lists nothing.
//   - A directory that cannot be read is an error naming it; os.walk
//     would skip it silently, and so silently drop its files.
//
// The paths are repository-relative with '/' separators, sorted. A listed
// entry that is neither a regular file nor a symbolic link (a FIFO, device
// or socket) is also in notRegular, to be read as an empty file.
func Discover(root string, cfg *config.Config) (files []string, notRegular map[string]bool, err error) {
	w := &walker{fsRoot: root, pattern: cfg.Pattern}
	for _, r := range cfg.Roots {
		r = pathlibNormalize(r)
		if err := w.checkComponents(r); err != nil {
			return nil, nil, err
		}
		if err := w.walk(r, ""); err != nil {
			return nil, nil, err
		}
	}
	sort.Strings(w.files)
	return w.files, w.notRegular, nil
}

type walker struct {
	fsRoot     string
	pattern    string
	files      []string
	notRegular map[string]bool
}

func (w *walker) abs(rel string) string {
	return filepath.Join(w.fsRoot, filepath.FromSlash(rel))
}

func (w *walker) isSymlink(rel string) bool {
	info, err := os.Lstat(w.abs(rel))
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}

// checkComponents refuses a discovery root any of whose leading components
// is a symbolic link.
func (w *walker) checkComponents(r string) error {
	if r == "." {
		return nil
	}
	component := ""
	for _, part := range strings.Split(strings.TrimPrefix(r, "/"), "/") {
		component = path.Join(component, part)
		if w.isSymlink(component) {
			return &Error{Msg: "CI discovery path must not be a symlink: " + component}
		}
	}
	return nil
}

// walk walks the directory rel (below is its path below the discovery
// root, matched against the pattern), then its subdirectories in order.
func (w *walker) walk(rel, below string) error {
	entries, err := registry.ReadDirUnsorted(w.abs(rel))
	if err != nil {
		if below == "" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
			return nil // no such root: nothing to list
		}
		return &Error{Msg: "cannot read CI test directory " + rel + ": " + registry.Reason(err)}
	}
	var dirs, others []fs.DirEntry
	for _, e := range entries {
		if isDir(w.abs(joinRel(rel, e.Name())), e) {
			dirs = append(dirs, e)
		} else {
			others = append(others, e)
		}
	}
	for _, d := range dirs {
		if d.Type()&fs.ModeSymlink != 0 {
			return &Error{Msg: "CI test directory must not be a symlink: " + joinRel(rel, d.Name())}
		}
	}
	for _, e := range others {
		childBelow := joinRel(below, e.Name())
		if ok, _ := doublestar.Match(w.pattern, childBelow); !ok {
			continue
		}
		childRel := joinRel(rel, e.Name())
		switch t := e.Type(); {
		case t&fs.ModeSymlink != 0:
			return &Error{Msg: "CI test file must not be a symlink: " + childRel}
		case !t.IsRegular():
			// A FIFO would block the reader; it is read as empty.
			if w.notRegular == nil {
				w.notRegular = map[string]bool{}
			}
			w.notRegular[childRel] = true
		}
		w.files = append(w.files, childRel)
	}
	for _, d := range dirs {
		if err := w.walk(joinRel(rel, d.Name()), joinRel(below, d.Name())); err != nil {
			return err
		}
	}
	return nil
}

// isDir is os.DirEntry.is_dir(): true for a directory or a symbolic link
// to one, false when that cannot be told.
func isDir(abs string, e fs.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&fs.ModeSymlink == 0 {
		return false
	}
	info, err := os.Stat(abs)
	return err == nil && info.IsDir()
}

func joinRel(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}
