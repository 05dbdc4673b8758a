// Package prune decides which PR GPU stages a pull request can skip: it
// parses the changed-file list of `git diff --name-status -z -M`, finds the
// stages the changes and the labels affect, and says why for each. It is
// pure: the caller reads the diff file and collects the registry.
package prune

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"
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

// ParseDiff parses the NUL-separated output of
// `git diff --name-status -z -M`. Every field ends in NUL; each entry is a
// status matching ^(?:[ADMTUXB]|[RC][0-9]{1,3})$ followed by one path, or two
// for R and C. Empty input, no NUL at all (a diff made without -z), a
// missing final NUL, invalid UTF-8, a bad status
// and a missing or empty path all make the diff unusable (*UnusableError).
// A usable diff has at least one entry.
func ParseDiff(data []byte) ([]Entry, error) {
	switch {
	case len(data) == 0:
		return nil, unusable("the file is empty")
	case bytes.IndexByte(data, 0) < 0:
		return nil, unusable("the file has no NUL byte, so it was not made with git diff -z")
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

// DiffOf is the Diff whose file holds data: its entries, or why they
// cannot be used.
func DiffOf(data []byte) Diff {
	entries, err := ParseDiff(data)
	var bad *UnusableError
	if errors.As(err, &bad) {
		return Diff{Unusable: bad.Reason}
	}
	return Diff{Entries: entries}
}

// WriteDiff serializes entries the way git writes them with -z; it is the
// inverse of ParseDiff on every usable diff.
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
