package fsutil

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// maxLinks bounds the symbolic links followed to find the file to replace,
// as the kernel's own limit (40) bounds a path's.
const maxLinks = 40

// WriteFile writes data to the file at path so that a reader sees either
// the old contents or the new, never a part.
//
//   - A regular file (or a missing one) is written to a temporary file
//     beside it and renamed over it. A link is followed: the file it points
//     to is replaced and the link stays a link, also when it dangles.
//   - An existing file keeps its permission bits; a new one gets 0666 less
//     the umask, like a file a shell redirection creates.
//   - Anything else (/dev/stdout, /dev/null, /dev/full, a FIFO with a
//     reader) is opened and written in place: a rename would replace the
//     device node. A FIFO without a reader is an error at once, not a wait.
//
// On failure no temporary file is left behind. Errors leave out the paths
// (see StripPath): the caller names the file, and the temporary file's name
// would only confuse.
func WriteFile(path string, data []byte) error {
	return StripPath(writeFile(path, data))
}

func writeFile(path string, data []byte) error {
	if fd, ok := openDescriptor(path); ok {
		// /dev/stdout and its kin name a descriptor this process already
		// has; opening the name anew would reopen (and, as a file, replace
		// or truncate) whatever that descriptor is: a step log redirected
		// with >> would lose its contents. Write to the descriptor, as a
		// shell does for `> /dev/stdout`.
		return writeDescriptor(fd, path, data)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		target, err := resolveLinks(path)
		if err != nil {
			return err
		}
		return replace(target, data, nil)
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return writeInPlace(path, data)
	}
	target, err := resolveLinks(path)
	if err != nil {
		return err
	}
	// A link that the kernel resolves but no path names (/dev/stdout when
	// it is a deleted file, or /proc/self/fd/N of another mount namespace)
	// cannot be renamed over: write the open file in place.
	if tst, err := os.Stat(target); err != nil || !os.SameFile(st, tst) {
		return writeInPlace(path, data)
	}
	return replace(target, data, st)
}

// openDescriptor reports the descriptor that path names when it, or a link
// on its way, is /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N or
// /proc/self/fd/N.
func openDescriptor(path string) (int, bool) {
	for i := 0; i < maxLinks; i++ {
		clean := filepath.Clean(path)
		switch clean {
		case "/dev/stdin":
			return 0, true
		case "/dev/stdout":
			return 1, true
		case "/dev/stderr":
			return 2, true
		}
		for _, dir := range []string{"/dev/fd/", "/proc/self/fd/"} {
			if n, ok := strings.CutPrefix(clean, dir); ok {
				if fd, err := strconv.Atoi(n); err == nil && fd >= 0 && strconv.Itoa(fd) == n {
					return fd, true
				}
			}
		}
		link, err := os.Readlink(clean)
		if err != nil {
			return 0, false
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(clean), link)
		}
		path = link
	}
	return 0, false
}

// Target is the file WriteFile writes for path: path with the links of its
// last element followed (the file may not exist yet, as for a dangling
// link).
func Target(path string) (string, error) { return resolveLinks(path) }

// resolveLinks follows the links of path's last element to the name of the
// file itself, which may not exist yet. The directories on the way need no
// resolving: rename(2) follows them.
func resolveLinks(path string) (string, error) {
	for i := 0; i < maxLinks; i++ {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || err == nil && st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = ParentDir(path) + string(filepath.Separator) + link
		}
		path = link
	}
	return "", &fs.PathError{Op: "open", Path: path, Err: syscall.ELOOP}
}

// ParentDir is the directory that path names its last element in, as the
// system reads it: the text before the last separator, not cleaned
// ("." when there is none). filepath.Dir cleans, and cleaning reads
// "link/../x" as "x" where the system goes to link's target and then to its
// parent.
func ParentDir(path string) string {
	i := strings.LastIndexByte(path, filepath.Separator)
	switch {
	case i < 0:
		return "."
	case i == 0:
		return string(filepath.Separator)
	}
	return path[:i]
}

// replace writes data to a new file beside target and renames it over
// target. old is target's current state, nil when there is none.
func replace(target string, data []byte, old fs.FileInfo) (err error) {
	tmp, err := createTemp(target)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return err
	}
	if old != nil {
		if err := tmp.Chmod(old.Mode().Perm()); err != nil {
			return err
		}
		keepOwner(tmp, old)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	// The rename fails when target became a directory, for one; the
	// deferred clean-up then removes the temporary file.
	return os.Rename(tmp.Name(), target)
}

// createTemp creates a new file beside target with mode 0666, which the
// kernel reduces by the umask: os.CreateTemp would make it 0600 and the
// umask cannot be read without changing it.
func createTemp(target string) (*os.File, error) {
	dir, base := ParentDir(target), filepath.Base(target)
	for i := 0; ; i++ {
		var b [6]byte
		rand.Read(b[:])
		// Not filepath.Join, which would clean "link/.." away.
		name := dir + string(filepath.Separator) + "." + base + "." + hex.EncodeToString(b[:]) + ".tmp"
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		return f, err
	}
}

// writeInPlace truncates and writes the existing non-regular file at path.
func writeInPlace(path string, data []byte) error {
	f, err := openWriteNonblocking(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
