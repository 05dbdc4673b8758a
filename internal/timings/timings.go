// Package timings owns the timings file: the measured seconds of each test
// file that `miles-ci run --timings-out` writes and `--timings` reads back to
// shard by. The format is
//
//	{"version": 1, "timings": {"<file>": seconds, ...}}
//
// with files as the registry names them (relative to the repository root)
// and seconds finite and not negative. Files are mergeable: the shards of a
// suite measure disjoint files, so the union of their files is the suite's.
package timings

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"slices"
	"strings"
)

// Version is the only version of the format.
const Version = 1

// Timings maps a file to its measured seconds.
type Timings map[string]float64

// Error is a timings file that cannot be used, naming the file and the
// problem.
type Error struct {
	Path string
	Err  error
}

func (e *Error) Error() string { return fmt.Sprintf("read timings %q: %v", e.Path, e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// file is the document on disk. The timings are decoded one by one, so
// that a bad one can be named.
type file struct {
	Version *int                       `json:"version"`
	Timings map[string]json.RawMessage `json:"timings"`
}

// Parse reads a timings document. It rejects a version other than 1, a
// value that is not a number, and a negative, infinite or NaN number.
func Parse(data []byte) (Timings, error) {
	var doc file
	if err := json.Unmarshal(data, &doc); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// encoding/json's own message names Go types; say it in the
			// file's terms.
			return nil, fmt.Errorf("%s is a JSON %s; expected %s", fieldName(te.Field), te.Value, expected(te.Field))
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if doc.Version == nil {
		return nil, errors.New(`no "version"; expected {"version": 1, "timings": {...}}`)
	}
	if *doc.Version != Version {
		return nil, fmt.Errorf("unsupported version %d; expected %d", *doc.Version, Version)
	}
	out := make(Timings, len(doc.Timings))
	// Map order is random; check the files in sorted order so that the
	// error for a file with several bad timings is always the same.
	files := make([]string, 0, len(doc.Timings))
	for f := range doc.Timings {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		v, err := parseSeconds(doc.Timings[f])
		if err != nil {
			return nil, fmt.Errorf("timing of %q %w", f, err)
		}
		out[f] = v
	}
	return out, nil
}

// parseSeconds reads one timing; its errors read after "timing of FILE".
func parseSeconds(raw json.RawMessage) (float64, error) {
	if string(raw) == "null" {
		return 0, errors.New("is null; expected seconds")
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && !strings.HasPrefix(te.Value, "number") {
			return 0, fmt.Errorf("is a JSON %s; expected seconds", te.Value)
		}
		return 0, fmt.Errorf("is %s; expected finite seconds", raw)
	}
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("is %v; expected finite seconds", v)
	case v < 0:
		return 0, fmt.Errorf("is negative (%v); expected seconds >= 0", v)
	}
	return v, nil
}

// Read reads the timings file at path. Every error is an *Error.
func Read(path string) (Timings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{Path: path, Err: unwrapPath(err)}
	}
	t, err := Parse(data)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return t, nil
}

// ReadOptional is Read, except that a missing file is an empty Timings.
func ReadOptional(path string) (Timings, error) {
	t, err := Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Timings{}, nil
	}
	return t, err
}

// unwrapPath drops the *fs.PathError's own copy of the path, which Error
// already names.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// Merge copies every entry of src into t, replacing the same files.
func (t Timings) Merge(src Timings) {
	for f, v := range src {
		t[f] = v
	}
}

// Marshal returns the document of t, indented, ending in a newline. Keys
// are sorted (encoding/json sorts map keys), so it is deterministic.
func (t Timings) Marshal() ([]byte, error) {
	m := map[string]float64(t)
	if m == nil {
		m = map[string]float64{}
	}
	data, err := json.MarshalIndent(struct {
		Version int                `json:"version"`
		Timings map[string]float64 `json:"timings"`
	}{Version, m}, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// fieldName names the member an *json.UnmarshalTypeError is about.
func fieldName(field string) string {
	switch {
	case field == "":
		return "the document"
	}
	return fmt.Sprintf("%q", field)
}

func expected(field string) string {
	switch {
	case field == "":
		return `an object {"version": 1, "timings": {...}}`
	case field == "version":
		return "1"
	case field == "timings":
		return "an object of file: seconds"
	}
	return "a value of another type"
}
