package filerun

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// ResolveSourceRoot returns the absolute path of the source root with every
// symbolic link resolved, or the error file_run.py reports for it.
//
// The script resolves the root with Python's Path.resolve(strict=True), and
// its message quotes the OSError, which names the path at which resolving
// failed as Python's realpath built it (relative when the root was given
// relative). To say the same, the components are walked the way
// posixpath.realpath walks them. A root behind a symbolic link loop, where
// the script crashes with a RuntimeError, gets the same message as any
// other unresolvable root.
func ResolveSourceRoot(sourceRoot string) (string, error) {
	resolved, err := realpathStrict(pathlibNormalize(sourceRoot))
	if err != nil {
		return "", &Error{Msg: fmt.Sprintf("cannot resolve CI source root %s: %s", sourceRoot, err)}
	}
	root, err := abspath(resolved)
	if err != nil {
		return "", &Error{Msg: fmt.Sprintf("cannot resolve CI source root %s: %s", sourceRoot, err)}
	}
	if info, err := os.Stat(root); err != nil || !info.IsDir() {
		return "", &Error{Msg: "CI source root is not a directory: " + root}
	}
	return root, nil
}

// pyOSError is an OSError as Python prints it: [Errno N] strerror: 'path'.
type pyOSError struct {
	errno    syscall.Errno
	filename string
}

func (e *pyOSError) Error() string {
	return fmt.Sprintf("[Errno %d] %s: %s", int(e.errno), strerror(e.errno), pyfmt.Repr(e.filename))
}

// strerror is the C library's text of errno, which Python prints. Go's
// table holds the same texts in lower case for the errors a path lookup
// can give (ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG, EIO).
func strerror(errno syscall.Errno) string {
	s := errno.Error()
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

func asOSError(err error, filename string) error {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return &pyOSError{errno: errno, filename: filename}
	}
	return err
}

// pathlibNormalize is str(Path(p)) on POSIX: repeated separators and "."
// components dropped, a trailing separator removed, ".." kept, and exactly
// two leading slashes kept as two.
func pathlibNormalize(p string) string {
	if p == "" {
		return "."
	}
	lead := ""
	switch {
	case strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///"):
		lead = "//"
	case strings.HasPrefix(p, "/"):
		lead = "/"
	}
	var parts []string
	for _, part := range strings.Split(p, "/") {
		if part != "" && part != "." {
			parts = append(parts, part)
		}
	}
	if lead == "" && len(parts) == 0 {
		return "."
	}
	return lead + strings.Join(parts, "/")
}

// join is posixpath.join of two components.
func join(a, b string) string {
	switch {
	case strings.HasPrefix(b, "/"):
		return b
	case a == "" || strings.HasSuffix(a, "/"):
		return a + b
	}
	return a + "/" + b
}

// split is posixpath.split.
func split(p string) (head, tail string) {
	i := strings.LastIndexByte(p, '/') + 1
	head, tail = p[:i], p[i:]
	if head != "" && head != strings.Repeat("/", len(head)) {
		head = strings.TrimRight(head, "/")
	}
	return head, tail
}

// realpathStrict is posixpath.realpath(p, strict=True) without the final
// abspath: it resolves each component in turn, following symbolic links,
// and fails with the OSError of the first component that cannot be
// examined.
func realpathStrict(p string) (string, error) {
	return joinRealpath("", p, map[string]*string{})
}

// maxLinks bounds the symbolic links resolved for one root. The seen map
// already stops every loop; this only bounds a chain of distinct links,
// where Python would hit its recursion limit.
const maxLinks = 256

func joinRealpath(path, rest string, seen map[string]*string) (string, error) {
	if strings.HasPrefix(rest, "/") {
		rest = rest[1:]
		path = "/"
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		switch name {
		case "", ".":
			continue
		case "..":
			if path != "" {
				var last string
				path, last = split(path)
				if last == ".." {
					path = join(join(path, ".."), "..")
				}
			} else {
				path = ".."
			}
			continue
		}
		newpath := join(path, name)
		info, err := os.Lstat(newpath)
		if err != nil {
			return "", asOSError(err, newpath)
		}
		if info.Mode()&os.ModeSymlink == 0 {
			path = newpath
			continue
		}
		if done, ok := seen[newpath]; ok {
			if done != nil {
				path = *done
				continue
			}
			// A link met again while it is being resolved: a loop, where
			// Python's os.stat fails with ELOOP.
			return "", &pyOSError{errno: syscall.ELOOP, filename: newpath}
		}
		if len(seen) >= maxLinks {
			return "", &pyOSError{errno: syscall.ELOOP, filename: newpath}
		}
		seen[newpath] = nil
		target, err := os.Readlink(newpath)
		if err != nil {
			return "", asOSError(err, newpath)
		}
		path, err = joinRealpath(path, target, seen)
		if err != nil {
			return "", err
		}
		resolved := path
		seen[newpath] = &resolved
	}
	return path, nil
}

// abspath is posixpath.abspath: joined to the working directory (the
// kernel's, as os.getcwd gives it, not $PWD) when relative, then
// normalized.
func abspath(p string) (string, error) {
	if !strings.HasPrefix(p, "/") {
		wd, err := syscall.Getwd()
		if err != nil {
			return "", err
		}
		p = join(wd, p)
	}
	return normpath(p), nil
}

// normpath is posixpath.normpath for an absolute path: "." dropped, ".."
// applied (never above the root), repeated separators collapsed, exactly
// two leading slashes kept.
func normpath(p string) string {
	lead := "/"
	if strings.HasPrefix(p, "//") && !strings.HasPrefix(p, "///") {
		lead = "//"
	}
	var parts []string
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, part)
		}
	}
	return lead + strings.Join(parts, "/")
}
