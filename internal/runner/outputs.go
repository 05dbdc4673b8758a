package runner

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/timings"
)

// Output is a file a run writes when it ends: a report or the timings, named
// by the flag that asked for it.
type Output struct {
	Flag string // "--json-report", for messages
	Path string // "" when the flag was not given
	// Timings marks a --timings-out file, which the run merges into: an
	// existing one must already be a valid timings file.
	Timings bool
}

// OutputError is an output that the run could not write at its end. It is
// found before the first test runs, so a typo in a path does not cost a
// whole suite.
type OutputError struct {
	Flag, Path, Problem string
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Flag, e.Path, e.Problem)
}

// CheckOutputs reports the first output that could not be written as
// fsutil.WriteFile writes it: a regular or new file is replaced through a
// new file beside it (links followed), so its directory must exist and be
// writable and the path must not be a directory; a device or FIFO is
// written in place, so it must be writable itself. An existing, non-empty
// timings file must also be valid (its *timings.Error is returned as it
// is). It writes nothing.
func CheckOutputs(outputs []Output) error {
	for _, o := range outputs {
		if o.Path == "" {
			continue
		}
		if err := checkOutput(o); err != nil {
			return err
		}
	}
	return nil
}

// accessWrite is access(2)'s W_OK, which package syscall does not name.
const accessWrite = 2

func checkOutput(o Output) error {
	fail := func(format string, args ...any) error {
		return &OutputError{Flag: o.Flag, Path: o.Path, Problem: fmt.Sprintf(format, args...)}
	}
	info, err := os.Stat(o.Path)
	exists := err == nil
	switch {
	case exists && info.IsDir():
		return fail("is a directory")
	case exists && !info.Mode().IsRegular():
		if syscall.Access(o.Path, accessWrite) != nil {
			return fail("is not writable")
		}
		return nil
	case !exists && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
		return fail("%v", errors.Unwrap(err))
	}
	// The directory that must take the new file is the one of the file the
	// links lead to, which a dangling link names too.
	target, err := fsutil.Target(o.Path)
	switch {
	case errors.Is(err, syscall.ENOTDIR):
		target = o.Path // a file on the way, named below
	case err != nil:
		return fail("%v", fsutil.StripPath(err))
	}
	dir := fsutil.ParentDir(target)
	dinfo, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail("directory %q does not exist", dir)
	case err != nil:
		return fail("%v", errors.Unwrap(err))
	case !dinfo.IsDir():
		return fail("%q is not a directory", dir)
	case syscall.Access(dir, accessWrite) != nil:
		return fail("directory %q is not writable", dir)
	}
	if o.Timings && exists && info.Size() > 0 {
		if _, err := timings.Read(o.Path); err != nil {
			return err
		}
	}
	return nil
}
