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
	"math"
	"os"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
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
	// Keys match exactly, as Python's: "Timings" is not "timings".
	if err := pyfmt.UnmarshalExact(data, &doc); err != nil {
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
	if doc.Timings == nil {
		// A file without timings says nothing; taking it for "no file
		// measured" would let a broken artifact pass unnoticed.
		var top map[string]json.RawMessage
		if json.Unmarshal(data, &top) == nil && top["timings"] != nil {
			return nil, errors.New(`"timings" is null; expected an object of file: seconds`)
		}
		return nil, errors.New(`no "timings"; expected {"version": 1, "timings": {...}}`)
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

// MaxFileSize caps the size of a timings file: a file per test takes some
// tens of bytes, so a million test files fit.
const MaxFileSize = 64 << 20

// Read reads the timings file at path, a regular file of at most
// MaxFileSize bytes (a FIFO is refused at once, not waited on). Every error
// is an *Error.
func Read(path string) (Timings, error) {
	data, err := fsutil.ReadRegular(path, MaxFileSize)
	if err != nil {
		return nil, &Error{Path: path, Err: fsutil.StripPath(err)}
	}
	t, err := Parse(data)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return t, nil
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

// Update merges add into the timings file at path, creating it when it is
// missing, so that the shards of a suite can share one file. The read,
// the merge and the write happen under an exclusive lock on the file, so
// shards finishing at the same moment keep every entry. An empty file
// counts as no timings yet: it is what the lock leaves for a moment when
// it creates a missing file, and what `touch` makes. A path that is not a
// regular file (/dev/stdout) has nothing to merge with and gets add alone.
func Update(path string, add Timings) (err error) {
	if st, statErr := os.Stat(path); statErr == nil && !st.Mode().IsRegular() {
		return write(path, add)
	}
	lock, err := fsutil.Acquire(path)
	if err != nil {
		return fsutil.StripPath(err)
	}
	defer func() {
		if rerr := lock.Release(); err == nil && rerr != nil {
			err = fmt.Errorf("unlock %q: %w", path, rerr)
		}
	}()
	t := Timings{}
	if data, err := fsutil.ReadRegular(path, MaxFileSize); err != nil {
		return &Error{Path: path, Err: fsutil.StripPath(err)}
	} else if len(data) > 0 {
		if t, err = Parse(data); err != nil {
			return &Error{Path: path, Err: err}
		}
	}
	t.Merge(add)
	return write(path, t)
}

// write replaces the file at path with the document of t.
func write(path string, t Timings) error {
	data, err := t.Marshal()
	if err != nil {
		return err
	}
	return fsutil.WriteFile(path, data)
}
