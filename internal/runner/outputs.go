package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

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

// CheckOutputs reports the first output that could not be written: its
// directory missing or not a directory, the path itself a directory,
// neither the directory nor an existing file writable, or, for the timings,
// an existing regular file that is not a valid timings file (whose error is
// returned as it is). It writes nothing.
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
	dir := filepath.Dir(o.Path)
	dinfo, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fail("directory %q does not exist", dir)
	case err != nil:
		return fail("%v", errors.Unwrap(err))
	case !dinfo.IsDir():
		return fail("%q is not a directory", dir)
	}
	info, err := os.Stat(o.Path)
	exists := err == nil
	switch {
	case exists && info.IsDir():
		return fail("is a directory")
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fail("%v", errors.Unwrap(err))
	}
	// A report replaces its file through a new one beside it, which needs
	// the directory; an existing file may also be written in place.
	if syscall.Access(dir, accessWrite) != nil && (!exists || syscall.Access(o.Path, accessWrite) != nil) {
		return fail("not writable")
	}
	if o.Timings && exists && info.Mode().IsRegular() {
		if _, err := timings.ReadOptional(o.Path); err != nil {
			return err
		}
	}
	return nil
}
