package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/radixark/miles-ci/internal/config"
)

// Discover returns the repository-relative, '/'-separated paths of the test
// files below the configured roots of the repository at root: every entry
// matching cfg.Pattern below each root, the union sorted by bytes and without
// duplicates (roots may overlap).
//
// The walk follows these rules, all of them deliberate:
//   - A missing root contributes nothing, and so does a root that is a
//     regular file (or anything else but a directory): Python's glob finds
//     nothing there and the collector carries on, so we do too. A root that
//     cannot be examined at all (permission denied, a symbolic link loop) is
//     an error naming it. A root that is itself a symbolic link to a
//     directory is walked.
//   - Names starting with '.' are skipped, directories and files alike, as
//     Python's glob skips them for '*' and '**'.
//   - Symbolic links to directories are never followed (Python's glob follows
//     them and can loop forever); a link loop below a root is therefore
//     harmless unless its own name matches the pattern.
//   - A symbolic link whose name matches the pattern is a test file when it
//     points at a regular file, as it is for Python. When it cannot be
//     resolved at all (dangling, a loop) it is still listed, so that reading
//     it fails with an error naming it — Python would crash on the same file.
//   - Python's glob matches every kind of entry, not only files, and the
//     collector then opens what it matched. So a directory whose name
//     matches the pattern, or a symbolic link to one, is listed, and
//     collecting it is an error naming it ("is a directory, not a test
//     file", where Python raises IsADirectoryError), at its place in the
//     sorted list; a real directory so named is still walked for the test
//     files below it (a linked one is not followed, as above).
//   - A matching entry that is neither a regular file nor a directory (a
//     device, a FIFO, a socket, or a symbolic link to one such as
//     /dev/null) is listed but never opened, since reading a FIFO would
//     block: it is collected as an empty file, which is what Python reads
//     from /dev/null ("No CI registry found", or the implicit registration
//     under the implicit CPU root).
//   - A directory that cannot be read is an error naming it (Python's glob
//     skips it silently, which would silently drop its tests).
func Discover(root string, cfg *config.Config) ([]string, error) {
	files, _, err := discover(root, cfg)
	return files, err
}

// entryKind is what a discovered entry is, when it is not a test file to
// read (see Discover).
type entryKind uint8

const (
	entryFile    entryKind = iota
	entryDir               // a directory, or a symbolic link to one
	entrySpecial           // a device, FIFO or socket, or a symbolic link to one
)

// discover is Discover, also returning the kind of each listed entry that
// is not a file to read (nil when there is none, as in any ordinary tree).
func discover(root string, cfg *config.Config) ([]string, map[string]entryKind, error) {
	w := &walker{
		fsRoot:  root,
		pattern: cfg.Pattern,
	}
	seen := map[string]bool{}
	for _, r := range cfg.Roots {
		r = path.Clean(filepath.ToSlash(r))
		if seen[r] {
			continue
		}
		seen[r] = true
		info, err := os.Stat(w.abs(r))
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
			continue
		case err != nil:
			w.fail(r, "cannot read discovery root: %s", Reason(err))
			continue
		case !info.IsDir():
			continue
		case !w.insideRepo(r):
			// The configuration keeps a root's own path inside the
			// repository; a committed link must not take the walk out
			// of it either (tests -> / would walk the file system).
			w.fail(r, "discovery root leads outside the repository through a link")
			continue
		}
		w.dir(r, "")
	}

	if len(w.errs) > 0 {
		sortErrors(w.errs)
		return nil, nil, w.errs
	}
	sort.Strings(w.files)
	return dedupSorted(w.files), w.kinds, nil
}

// walker reads the directories below the roots, one after the other: a
// directory is listed in a few microseconds. The goroutine per directory
// this walk once had cost Miles's 77 directories more in stacks and
// wake-ups than it gained, and made no difference beyond the noise on a
// generated tree of 2,000.
type walker struct {
	fsRoot  string
	pattern string

	files []string
	kinds map[string]entryKind // entries that are not files to read
	errs  Errors
}

// insideRepo reports whether the discovery root rel, with every link on
// its way resolved, is still inside the repository. When a path cannot be
// resolved the walk reports the problem itself.
func (w *walker) insideRepo(rel string) bool {
	realRoot, err := filepath.EvalSymlinks(w.fsRoot)
	if err != nil {
		return true
	}
	real, err := filepath.EvalSymlinks(w.abs(rel))
	if err != nil {
		return true
	}
	inside, err := filepath.Rel(realRoot, real)
	return err == nil && filepath.IsLocal(inside)
}

func (w *walker) abs(rel string) string {
	return filepath.Join(w.fsRoot, filepath.FromSlash(rel))
}

func (w *walker) fail(rel, format string, args ...any) {
	w.errs = append(w.errs, &FileError{File: rel, Msg: displayPath(rel) + ": " + fmt.Sprintf(format, args...)})
}

// dir reads one directory. rel is its repository-relative path and below
// its path below the discovery root ("" for the root itself), which is what
// the pattern is matched against.
//
// Listing with getdents64 into a reused buffer, instead of os.File.ReadDir,
// measured worth about 2% of run --list-only's CPU on Miles, under the 10%
// a fast path must buy here (2026-12-02).
func (w *walker) dir(rel, below string) {
	entries, err := ReadDirUnsorted(w.abs(rel))
	if err != nil {
		w.fail(rel, "cannot read directory: %s", Reason(err))
		return
	}
	var subdirs []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		childBelow := name
		if below != "" {
			childBelow = below + "/" + name
		}
		switch t := e.Type(); {
		case t.IsDir():
			if w.match(childBelow) {
				w.other(rel+"/"+name, entryDir)
			}
			subdirs = append(subdirs, name)
		case t.IsRegular():
			if w.match(childBelow) {
				w.files = append(w.files, rel+"/"+name)
			}
		case t&fs.ModeSymlink != 0:
			if w.match(childBelow) {
				childRel := rel + "/" + name
				if k := w.symlinkKind(childRel); k == entryFile {
					w.files = append(w.files, childRel)
				} else {
					w.other(childRel, k)
				}
			}
		default: // a device, FIFO or socket
			if w.match(childBelow) {
				w.other(rel+"/"+name, entrySpecial)
			}
		}
	}
	for _, name := range subdirs {
		childBelow := name
		if below != "" {
			childBelow = below + "/" + name
		}
		w.dir(rel+"/"+name, childBelow)
	}
}

// other lists an entry that is not a file to read, with its kind.
func (w *walker) other(rel string, k entryKind) {
	if w.kinds == nil {
		w.kinds = map[string]entryKind{}
	}
	w.kinds[rel] = k
	w.files = append(w.files, rel)
}

func (w *walker) match(below string) bool {
	ok, _ := doublestar.Match(w.pattern, below)
	return ok
}

// symlinkKind says what a matching symbolic link points at: a file to read
// when its target is a regular file or cannot be resolved (reading it will
// then report why), else a directory or another kind of entry.
func (w *walker) symlinkKind(rel string) entryKind {
	info, err := os.Stat(w.abs(rel))
	switch {
	case err != nil, info.Mode().IsRegular():
		return entryFile
	case info.IsDir():
		return entryDir
	}
	return entrySpecial
}

// ReadDirUnsorted lists a directory in the order the system returns its
// entries (the order Python's os.scandir sees), without sorting them; a
// caller that needs an order sorts the whole result once.
func ReadDirUnsorted(dir string) ([]fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

// Reason is an OS error without the path the message already names.
func Reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func dedupSorted(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

func sortErrors(errs Errors) {
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].File < errs[j].File })
}
