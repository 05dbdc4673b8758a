// Package timings owns the timings file: the measured seconds of each test
// file that `miles-ci run --timings-out` writes and `--timings` reads back to
// shard by. The format is
//
//	{"version": 1, "timings": {"<file>": seconds, ...},
//	 "measured_in": {"<file>": {"suite": "...", "backend": "cuda"}, ...}}
//
// with files as the registry names them (relative to the repository root,
// '/'-separated, no '.' or '..' part), seconds finite, not negative and at
// most MaxSeconds, and measured_in, which older writers leave out, naming
// the suite run that measured each file. Files are mergeable: the shards of
// a suite measure disjoint files, so the union of their files is the
// suite's.
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

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// Version is the only version of the format.
const Version = 1

// Timings maps a file to its measured seconds.
type Timings map[string]float64

// MaxSeconds bounds a measured time: 35 days, the longest a GitHub
// Actions workflow run may last, so no run measures more. A larger value
// is a broken or forged file, and an est_time made of it would be refused
// by the registry or overflow the arithmetic of every reader.
const MaxSeconds = 35 * 24 * 3600

// Source is the run that measured a file: its suite and backend (`run
// --hw BACKEND --suite SUITE --timings-out`).
type Source struct {
	Suite   string         `json:"suite"`
	Backend config.Backend `json:"backend"`
}

// Document is a whole timings file: the seconds, and the run that
// measured each file where the file says (a file written before
// measured_in existed says nothing).
type Document struct {
	Seconds Timings
	Sources map[string]Source
}

// Merge copies every entry of src into d, replacing the same files: a
// file's seconds and its source go together, so a file src measures
// without saying where loses the source d had for it.
func (d *Document) Merge(src *Document) {
	if d.Seconds == nil {
		d.Seconds = Timings{}
	}
	for f, v := range src.Seconds {
		d.Seconds[f] = v
		if s, ok := src.Sources[f]; ok {
			if d.Sources == nil {
				d.Sources = map[string]Source{}
			}
			d.Sources[f] = s
		} else {
			delete(d.Sources, f)
		}
	}
}

// Error is a timings file that cannot be used, naming the file and the
// problem.
type Error struct {
	Path string
	Err  error
}

// Error names the file as fsutil.Shown does: a database URL given for a
// timings file is not echoed.
func (e *Error) Error() string {
	return fmt.Sprintf("read timings %s: %v", fsutil.Shown(e.Path), e.Err)
}
func (e *Error) Unwrap() error { return e.Err }

// file is the document on disk. The timings are decoded one by one, so
// that a bad one can be named.
type file struct {
	Version    *int                       `json:"version"`
	Timings    map[string]json.RawMessage `json:"timings"`
	MeasuredIn map[string]json.RawMessage `json:"measured_in"`
}

// Parse reads a timings document's seconds (see ParseDocument).
func Parse(data []byte) (Timings, error) {
	d, err := ParseDocument(data)
	if err != nil {
		return nil, err
	}
	return d.Seconds, nil
}

// ParseDocument reads a timings document. It rejects a version other than
// 1, a file name that is not a path below the repository root, a value
// that is not a number, a negative, infinite or NaN number or one over
// MaxSeconds, and a measured_in entry that is not a suite and a backend of
// a file with a timing.
func ParseDocument(data []byte) (*Document, error) {
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
		if !fs.ValidPath(f) || f == "." {
			return nil, fmt.Errorf("timing of %q: the file is not a path relative to the repository root ('/'-separated, no '.', '..' or empty part), as the registry names test files", f)
		}
		v, err := parseSeconds(doc.Timings[f])
		if err != nil {
			return nil, fmt.Errorf("timing of %q %w", f, err)
		}
		out[f] = v
	}
	d := &Document{Seconds: out}
	files = files[:0]
	for f := range doc.MeasuredIn {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		if _, ok := out[f]; !ok {
			return nil, fmt.Errorf(`"measured_in" names %q, which has no timing`, f)
		}
		var src Source
		if err := pyfmt.UnmarshalExact(doc.MeasuredIn[f], &src); err != nil || src.Suite == "" {
			return nil, fmt.Errorf(`"measured_in" of %q is %s; expected {"suite": "SUITE", "backend": "cpu|cuda|rocm"}`, f, shortJSON(doc.MeasuredIn[f]))
		}
		if _, ok := config.ParseBackend(string(src.Backend)); !ok {
			return nil, fmt.Errorf(`"measured_in" of %q has backend %q; expected cpu, cuda or rocm`, f, src.Backend)
		}
		if d.Sources == nil {
			d.Sources = map[string]Source{}
		}
		d.Sources[f] = src
	}
	return d, nil
}

// shortJSON quotes a JSON value for a message, cut to a line's worth.
func shortJSON(raw json.RawMessage) string {
	s := strings.Join(strings.Fields(string(raw)), " ")
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return s
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
	case v > MaxSeconds:
		return 0, fmt.Errorf("is %v seconds, more than the %d (35 days) a workflow run may last; expected measured seconds", v, MaxSeconds)
	}
	return v, nil
}

// MaxFileSize caps the size of a timings file: a file per test takes some
// tens of bytes, so a million test files fit.
const MaxFileSize = 64 << 20

// Read reads the seconds of the timings file at path (see ReadDocument).
func Read(path string) (Timings, error) {
	d, err := ReadDocument(path)
	if err != nil {
		return nil, err
	}
	return d.Seconds, nil
}

// ReadDocument reads the timings file at path, a regular file of at most
// MaxFileSize bytes (a FIFO is refused at once, not waited on). Every error
// is an *Error.
func ReadDocument(path string) (*Document, error) {
	data, err := fsutil.ReadRegular(path, MaxFileSize)
	if err != nil {
		return nil, &Error{Path: path, Err: fsutil.StripPath(err)}
	}
	d, err := ParseDocument(data)
	if err != nil {
		return nil, &Error{Path: path, Err: err}
	}
	return d, nil
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
	return (&Document{Seconds: t}).Marshal()
}

// Marshal returns the document, indented, ending in a newline, keys
// sorted; measured_in only when some file has a source.
func (d *Document) Marshal() ([]byte, error) {
	m := map[string]float64(d.Seconds)
	if m == nil {
		m = map[string]float64{}
	}
	var src map[string]Source
	if len(d.Sources) > 0 {
		src = d.Sources
	}
	data, err := json.MarshalIndent(struct {
		Version    int                `json:"version"`
		Timings    map[string]float64 `json:"timings"`
		MeasuredIn map[string]Source  `json:"measured_in,omitempty"`
	}{Version, m, src}, "", "  ")
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

// Update merges add (its seconds and sources) into the timings file at
// path, creating it when it is missing, so that the shards of a suite can
// share one file. The read,
// the merge and the write happen under an exclusive lock on the file, so
// shards finishing at the same moment keep every entry. An empty file
// counts as no timings yet: it is what the lock leaves for a moment when
// it creates a missing file, and what `touch` makes. A path that is not a
// regular file (/dev/stdout) has nothing to merge with and gets add alone.
func Update(path string, add *Document) (err error) {
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
	d := &Document{Seconds: Timings{}}
	if data, err := fsutil.ReadRegular(path, MaxFileSize); err != nil {
		return &Error{Path: path, Err: fsutil.StripPath(err)}
	} else if len(data) > 0 {
		if d, err = ParseDocument(data); err != nil {
			return &Error{Path: path, Err: err}
		}
	}
	d.Merge(add)
	return write(path, d)
}

// write replaces the file at path with the document d.
func write(path string, d *Document) error {
	data, err := d.Marshal()
	if err != nil {
		return err
	}
	return fsutil.WriteFile(path, data)
}
