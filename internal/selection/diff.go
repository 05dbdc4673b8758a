// Package selection decides which PR GPU stages a pull request can skip: it
// reads the changed-file list of `git diff --name-status -z -M`, finds the
// stages the changes and the labels affect, and explains each decision. It
// is pure but for ReadDiffBytes, the one safe way to read the diff file;
// the caller collects the registry.
package selection

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"unicode/utf8"

	"github.com/radixark/miles-ci/internal/fsutil"
)

// Entry is one changed file of the diff: a status and its paths (two for a
// rename or copy, source first; one otherwise).
type Entry struct {
	Status string   `json:"status"`
	Paths  []string `json:"paths"`
}

// MaxDiffSize caps the diff file the caller reads. A path and its status
// take some tens of bytes, so 8 MiB holds well over 100,000 changed files;
// a larger diff is unusable (pruning fails open) rather than a step that
// runs out of memory parsing it.
const MaxDiffSize = 8 << 20

// UnusableError says why a diff cannot be trusted. Stage selection then
// fails open: nothing is skipped.
type UnusableError struct{ Reason string }

func (e *UnusableError) Error() string { return "changed-file diff is unusable: " + e.Reason }

func unusable(reason string) error { return &UnusableError{Reason: reason} }

// ReadDiff parses the NUL-separated output of
// `git diff --name-status -z -M`. Every field ends in NUL; each entry is a
// status matching ^(?:[ADMTUXB]|[RC][0-9]{1,3})$ followed by one path, or two
// for R and C. Empty input, a missing final NUL, invalid UTF-8, a bad status
// and a missing or empty path all make the diff unusable (*UnusableError).
// A usable diff has at least one entry.
func ReadDiff(data []byte) ([]Entry, error) {
	switch {
	case len(data) == 0:
		return nil, unusable("the file is empty")
	case data[len(data)-1] != 0:
		return nil, unusable("the last field does not end in NUL")
	case !utf8.Valid(data):
		return nil, unusable("the file is not valid UTF-8")
	}
	fields := bytes.Split(data[:len(data)-1], []byte{0})
	var entries []Entry
	for i := 0; i < len(fields); {
		status := string(fields[i])
		i++
		if !validStatus(status) {
			return nil, unusable("bad status " + quote(status))
		}
		n := 1
		if status[0] == 'R' || status[0] == 'C' {
			n = 2
		}
		if i+n > len(fields) {
			return nil, unusable("status " + quote(status) + " is missing a path")
		}
		paths := make([]string, n)
		for k := range paths {
			if len(fields[i+k]) == 0 {
				return nil, unusable("status " + quote(status) + " has an empty path")
			}
			paths[k] = string(fields[i+k])
		}
		i += n
		entries = append(entries, Entry{Status: status, Paths: paths})
	}
	return entries, nil
}

// WriteDiff serializes entries the way git writes them with -z; it is the
// inverse of ReadDiff on every usable diff.
func WriteDiff(entries []Entry) []byte {
	var b bytes.Buffer
	for _, e := range entries {
		b.WriteString(e.Status)
		b.WriteByte(0)
		for _, p := range e.Paths {
			b.WriteString(p)
			b.WriteByte(0)
		}
	}
	return b.Bytes()
}

// validStatus reports whether s is one of A D M T U X B, or R or C followed
// by one to three ASCII digits (a similarity score).
func validStatus(s string) bool {
	switch {
	case len(s) == 1:
		switch s[0] {
		case 'A', 'D', 'M', 'T', 'U', 'X', 'B':
			return true
		}
		return false
	case len(s) >= 2 && len(s) <= 4 && (s[0] == 'R' || s[0] == 'C'):
		for i := 1; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	return false
}

// quote writes a status for a message, shortened, control bytes escaped.
func quote(s string) string {
	const max = 20
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}

// ReadDiffBytes reads the diff only when it is a regular file of at most
// MaxDiffSize bytes: a FIFO would hang the step and /dev/zero exhaust its
// memory. Anything else makes the diff unusable, so pruning fails open.
func ReadDiffBytes(path string) ([]byte, error) {
	return fsutil.ReadRegular(path, MaxDiffSize)
}

// ReadDiffFile reads the diff at path with read (ReadDiffBytes, or a
// test's) and parses it; when it cannot be used, it returns why instead,
// with the operating system's reason for a file it cannot read.
func ReadDiffFile(read func(string) ([]byte, error), path string) ([]Entry, string) {
	data, err := read(path)
	if err != nil {
		var notRegular *fsutil.NotRegularError
		var tooLarge *fsutil.TooLargeError
		if errors.As(err, &notRegular) || errors.As(err, &tooLarge) {
			return nil, path + " " + err.Error()
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Sprintf("cannot read %s: %v", path, err)
	}
	diff, err := ReadDiff(data)
	if err != nil {
		var bad *UnusableError
		if errors.As(err, &bad) {
			return nil, bad.Reason
		}
		return nil, err.Error()
	}
	return diff, ""
}
