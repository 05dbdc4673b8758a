// Package report owns the JSON report of a GPU run, the document that
// `miles-ci run --json-report` writes: its format, reading and checking one,
// merging a suite's shard reports into one, choosing the files a rerun
// needs, and writing a report out as JUnit XML and as measured timings.
// Package runner fills a Report; package view renders it as the step
// summary; nothing here runs a process.
//
// The document (version 1):
//
//	{"version": 1, "suite": S, "backend": B,
//	 "partition": {"id": I, "size": N} | null, "plan": digest | "",
//	 "shards": {"size": N, "missing": [ids]} | null,
//	 "passed": bool, "interrupted": bool, "elapsed": seconds,
//	 "cadence": "regular|nightly|weekly|release" | "", "started": RFC 3339 UTC | "",
//	 "host": Host (a run) | "hosts": [Host] (a merge),
//	 "preflights": [Preflight] (a GPU run that checked its host),
//	 "host_not_ready": true (only when a preflight stopped the run),
//	 "first_test_started": RFC 3339 UTC | "", "job_started": RFC 3339 UTC | "",
//	 "files": [{"file", "status": "PASS|FAIL|TIMEOUT|NOT RUN|INTERRUPTED",
//	            "flaky": bool, "attempts": n, "elapsed": seconds (all attempts),
//	            "exit_code": int|null, "timed_out": bool, "timeout_after": seconds|null,
//	            "est_time", "reason": "" | "exit code 3" | "timeout after 60s" | ...,
//	            "cause": "" | "test" | "timeout" | "infra" (the last attempt's),
//	            "attempts_detail": [{"attempt", "status", "elapsed",
//	                                 "offset": seconds (omitted when unknown),
//	                                 "shard": id (a merge's, omitted when unknown),
//	                                 "exit_code", "timed_out", "timeout_after", "timeout", "reason",
//	                                 "cause", "cause_line", "fingerprint",
//	                                 "output_tail": string|null}...]}...]}
//
// "flaky" and "attempts_detail" were added without changing the meaning of
// any earlier key (a flaky file's status is still PASS, its "attempts" and
// "elapsed" still count every attempt), so a reader of the first shape reads
// the second correctly and the version stays 1. So were "partition",
// "plan" and "shards", which say what part of the suite a report covers
// (see Partition and Shards); a report without them (an unscoped one,
// written before them) is read as before, but cannot be checked against
// the job or the split it should belong to. "host", "preflights",
// "host_not_ready" and the causes came the same way: a reader of an older
// report finds them empty. So did "cadence", "started", the host's
// "workflow" and "event" and each attempt's "timeout", which the run
// history (package history) reads: a report without "started" cannot be
// placed in time, and the history skips it; and "first_test_started" and
// "job_started"; and each attempt's "offset" and "shard", which place it
// on the run's timeline (view's step summary), left out where unknown so
// that a report of an older run reads, merges and is written back as
// before.
package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// Version is the only version of the document.
const Version = 1

// Status is the outcome of a file or of one attempt.
type Status string

// Statuses. NotRun is a file after the first failure of a fast-failing run
// (or after an interrupt); Interrupted is the file a signal stopped.
const (
	Pass        Status = "PASS"
	Fail        Status = "FAIL"
	Timeout     Status = "TIMEOUT"
	NotRun      Status = "NOT RUN"
	Interrupted Status = "INTERRUPTED"
)

var statuses = []Status{Pass, Fail, Timeout, NotRun, Interrupted}

// Failed reports whether an attempt with status s was a test failure: an
// interrupt or a file never run says nothing about the test.
func (s Status) Failed() bool { return s == Fail || s == Timeout }

// Report is the outcome of one run of a suite (or of several, merged).
type Report struct {
	Version int    `json:"version"`
	Suite   string `json:"suite"`
	Backend string `json:"backend"`
	// Partition is the shard a run ran; nil for a run of the whole suite
	// and for a merge.
	Partition *Partition `json:"partition"`
	// Plan is the digest of the stage plan the run split the suite on (the
	// one policy --shard-matrix gives and run --expect-plan checks), ""
	// for a run of the whole suite; a merge keeps its reports' plan when
	// they agree.
	Plan string `json:"plan"`
	// Shards is set on a merge: which shards of the split it covers.
	Shards      *Shards `json:"shards"`
	Passed      bool    `json:"passed"`
	Interrupted bool    `json:"interrupted"`
	Elapsed     float64 `json:"elapsed"`
	// Cadence is the CI cadence the run selected its tests under
	// (regular, nightly, weekly, release), "" when the report does not
	// say; a merge keeps its reports' when they agree.
	Cadence string `json:"cadence"`
	// Started is when the run began, RFC 3339 in UTC to the millisecond
	// (StartedLayout), "" in a report written before reports said; a
	// merge keeps the earliest. With the host's run identity it tells one
	// run from another, and it places the run in time for the history's
	// "last N days".
	Started string `json:"started"`
	// Host is where the run happened (see Host); every run of `miles-ci
	// run` writes it, a report without it was written before reports said.
	Host *Host `json:"host,omitempty"`
	// Hosts is set on a merge: the host of each merged report that has
	// one, in the order merged (a merged merge contributes its list).
	Hosts []Host `json:"hosts,omitempty"`
	// Preflights are the GPU preflights of a run, in order: the one before
	// the first test, then one after each attempt that failed with cause
	// infra. nil when none ran (a CPU suite, --no-preflight, a merge, a
	// report written before preflights were).
	Preflights []Preflight `json:"preflights,omitempty"`
	// HostNotReady is set when a preflight found the host not ready and
	// the run stopped there: the files left are NOT RUN with the reason
	// "not run: host not ready".
	HostNotReady bool `json:"host_not_ready,omitempty"`

	// FirstTestStarted is when the run's first test started (Stamp); ""
	// when no test ran, and on a merge (its shards' jobs each have one).
	// JobStarted is when the job running it started, as far as the run
	// could tell (package jobstart), "" when it could not: together they
	// measure the setup of a shard's job (see SetupSeconds).
	FirstTestStarted string `json:"first_test_started"`
	JobStarted       string `json:"job_started"`

	Files []File `json:"files"`

	// path is the file the report was read from, for messages.
	path string
	// unscoped is set on a report without "partition" (written before
	// reports said what they cover), and on a merge of one: it is written
	// back without the three keys.
	unscoped bool
	// outputDropped is set on a report read without its output tails,
	// which cannot be written back whole.
	outputDropped bool
}

// Partition is the shard a run ran: shard ID (0-based) of Size.
type Partition struct {
	ID   int `json:"id"`
	Size int `json:"size"`
}

// Shards says which shards of a split a merged report covers: all of
// Size but Missing, the shards with no report that `report merge
// --allow-missing` merged without. Size is 0 when the merged reports were
// runs of the whole suite.
type Shards struct {
	Size    int   `json:"size"`
	Missing []int `json:"missing"`
}

// Unscoped reports whether r does not say what part of its suite it
// covers: it was written before reports did, or merges such a report.
func (r *Report) Unscoped() bool { return r.unscoped }

// File is the outcome of one planned file. The top-level fields describe
// the last attempt; AttemptsDetail lists every attempt in order.
type File struct {
	File string `json:"file"`
	// Status is PASS for a flaky file too: it passed.
	Status Status `json:"status"`
	// Flaky is set when an attempt failed (FAIL or TIMEOUT) and a later
	// one passed.
	Flaky        bool    `json:"flaky"`
	Attempts     int     `json:"attempts"`
	Elapsed      float64 `json:"elapsed"`
	ExitCode     *int    `json:"exit_code"`
	TimedOut     bool    `json:"timed_out"`
	TimeoutAfter *int    `json:"timeout_after"`
	EstTime      EstTime `json:"est_time"`
	Reason       string  `json:"reason"`
	// Cause is the last attempt's (see Attempt.Cause).
	Cause          Cause     `json:"cause"`
	AttemptsDetail []Attempt `json:"attempts_detail"`
	// Quarantined is set on a file that ran under an entry of the
	// configuration's quarantine: its status is kept, but a failure of it
	// (FAIL, TIMEOUT) does not fail the run (see Finish). The entry's
	// reason, last day (a date) and owner come with it. All four are left
	// out of the document of a file that ran under none.
	Quarantined      bool   `json:"quarantined,omitempty"`
	QuarantineReason string `json:"quarantine_reason,omitempty"`
	QuarantineUntil  string `json:"quarantine_until,omitempty"`
	QuarantineOwner  string `json:"quarantine_owner,omitempty"`
}

// Forgiven reports whether the file failed and its quarantine keeps the
// failure from failing the run.
func (f *File) Forgiven() bool { return f.Quarantined && f.Status.Failed() }

// Attempt is one run of a file.
type Attempt struct {
	Attempt int     `json:"attempt"` // 1-based
	Status  Status  `json:"status"`
	Elapsed float64 `json:"elapsed"`
	// Offset is when the attempt started, in seconds after the report's
	// Started, to the millisecond: a merge moves its reports' offsets onto
	// its own (earliest) start. Shard is the shard (0-based) of the run
	// that made the attempt, set by a merge on the attempts of a shard's
	// report that have an offset. Both are nil, and left out of the
	// document, in a report written before reports had them: such an
	// attempt cannot be placed on the run's timeline.
	Offset       *float64 `json:"offset,omitempty"`
	Shard        *int     `json:"shard,omitempty"`
	ExitCode     *int     `json:"exit_code"`
	TimedOut     bool     `json:"timed_out"`
	TimeoutAfter *int     `json:"timeout_after"`
	// Timeout is the attempt's effective time limit in seconds (the
	// per-file timeout, plus the retry increase when retrying, or
	// registry.TimeoutFactor times est_time when longer), whatever its
	// status; 0 in a report written before reports said.
	Timeout int    `json:"timeout"`
	Reason  string `json:"reason"` // "" for a PASS
	// Cause says why a failed attempt (FAIL or TIMEOUT) failed: CauseTest,
	// CauseTimeout or CauseInfra; "" for any other attempt and in a
	// report written before causes were.
	Cause Cause `json:"cause"`
	// CauseLine is, for CauseInfra, the output line that matched (at most
	// CauseLineMax bytes, valid UTF-8), and Fingerprint the name of the
	// configuration's fingerprint that matched it; "" otherwise.
	CauseLine   string `json:"cause_line"`
	Fingerprint string `json:"fingerprint"`
	// OutputTail is the end (at most 64 KiB) of the attempt's combined
	// output when it was captured (with --enable-retry), else nil.
	OutputTail *string `json:"output_tail"`
}

// Cause is why a failed attempt failed.
type Cause string

// Causes. An attempt whose output matched an infra fingerprint is
// CauseInfra whether it exited non-zero or timed out: the fingerprint
// names the root of the failure, a timeout only its symptom.
const (
	CauseTest    Cause = "test"    // the test failed: a non-zero exit, no fingerprint matched
	CauseTimeout Cause = "timeout" // the attempt ran past its limit, no fingerprint matched
	CauseInfra   Cause = "infra"   // an infra fingerprint matched the attempt's output
)

// CauseLineMax bounds Attempt.CauseLine.
const CauseLineMax = 500

// EstTime is a declared est_time. Python accepts 1e999 (infinity); it is
// written as that number and read back as infinity.
type EstTime float64

// MarshalJSON implements json.Marshaler.
func (e EstTime) MarshalJSON() ([]byte, error) {
	return pyfmt.AppendJSONFloat(nil, float64(e)), nil
}

// UnmarshalJSON implements json.Unmarshaler; encoding/json itself refuses
// a number out of float64's range.
func (e *EstTime) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		// What MarshalJSON writes for NaN, which no Python literal makes.
		*e = EstTime(math.NaN())
		return nil
	}
	v, err := strconv.ParseFloat(string(data), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("est_time is %s; expected a number", data)
	}
	*e = EstTime(v)
	return nil
}

// StartedLayout is the layout of Report.Started: RFC 3339, UTC, to the
// millisecond.
const StartedLayout = "2006-01-02T15:04:05.000Z07:00"

// Stamp writes a time as a report holds one: RFC 3339 in UTC, to the
// millisecond ("2026-12-02T08:23:59.123Z").
func Stamp(t time.Time) string { return t.UTC().Format(StartedLayout) }

// SetupSeconds is the setup of the run's job: the seconds from its start to
// the first test's (see JobStarted), to the millisecond, and whether the
// report knows both and they make a setup (PlausibleSetup).
func SetupSeconds(r *Report) (float64, bool) {
	job, err1 := time.Parse(time.RFC3339Nano, r.JobStarted)
	first, err2 := time.Parse(time.RFC3339Nano, r.FirstTestStarted)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	setup := Seconds(first.Sub(job).Seconds())
	if !PlausibleSetup(setup) {
		return 0, false
	}
	return setup, true
}

// MaxSetup is the longest setup a job is taken to have had. A job on a
// GitHub-hosted runner lasts at most 6 h, one on a self-hosted runner 5
// days, but no job spends a day before its first test (a runner picked,
// an image pulled, a tree checked out): a longer "setup" is a clock or a
// value gone wrong (a job started in year 1), or a job that ran other
// work first, and counting it would make history setup suggest it.
const MaxSetup = 24 * time.Hour

// PlausibleSetup reports whether seconds can be a job's setup: from 0 to
// MaxSetup (NaN cannot). A report or a database row from an older
// miles-ci may hold any number.
func PlausibleSetup(seconds float64) bool {
	return seconds >= 0 && seconds <= MaxSetup.Seconds()
}

// Seconds rounds a duration in seconds to milliseconds, the precision of
// every elapsed time in a report.
func Seconds(s float64) float64 { return math.Round(s*1000) / 1000 }

// LastAttempt returns the last attempt, if the report lists any.
func (f *File) LastAttempt() (Attempt, bool) {
	if len(f.AttemptsDetail) == 0 {
		return Attempt{}, false
	}
	return f.AttemptsDetail[len(f.AttemptsDetail)-1], true
}

// Finish sets the fields that follow from the files: Flaky of every file
// (from its attempts) and the report's Passed.
func (r *Report) Finish() {
	r.Version = Version
	// A merge that lacks shards cannot vouch for their tests.
	passed := !r.Interrupted && (r.Shards == nil || len(r.Shards.Missing) == 0)
	for i := range r.Files {
		f := &r.Files[i]
		if f.Status != Pass {
			passed = passed && f.Forgiven()
			f.Flaky = false
			continue
		}
		for _, a := range f.AttemptsDetail {
			if a.Status.Failed() {
				f.Flaky = true
			}
		}
	}
	r.Passed = passed
}

// Marshal returns the document of r, indented, ending in a newline.
func Marshal(r *Report) ([]byte, error) {
	var buf bytes.Buffer
	if err := encode(&buf, r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MarshalReadable returns the document of r, as Marshal, if Read would
// accept it: its counts and times within the bounds Parse checks (sums of
// merged reports can pass them) and its size at most MaxSize. The size is
// counted before the document is built, so a document too large is refused
// without the memory it would take.
func MarshalReadable(r *Report) ([]byte, error) {
	if err := r.check(); err != nil {
		return nil, err
	}
	var n countingWriter
	if err := encode(&n, r); err != nil {
		return nil, err
	}
	if n > MaxSize {
		return nil, fmt.Errorf("the document would be %d bytes, larger than the %s a report may have", n, fsutil.FormatSize(MaxSize))
	}
	return Marshal(r)
}

type countingWriter int64

func (c *countingWriter) Write(p []byte) (int, error) {
	*c += countingWriter(len(p))
	return len(p), nil
}

// encode writes the document of r to w, one file at a time, as
// encoding/json writes the whole document indented by two spaces: the
// memory it takes is that of the largest file's entry, not the document's.
func encode(w io.Writer, r *Report) error {
	if r.outputDropped {
		return errors.New("a report read without its output tails cannot be written")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Output tails are full of < and >; HTML escapes would only blur them.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	var head any = headOf(r)
	if r.unscoped {
		head = unscopedHead{Version: r.Version, Suite: r.Suite, Backend: r.Backend, Passed: r.Passed,
			Interrupted: r.Interrupted, Elapsed: r.Elapsed}
	}
	if err := enc.Encode(head); err != nil {
		return err
	}
	// The head ends with "files": null; "files" is the last key.
	const null = "null\n}\n"
	if !bytes.HasSuffix(buf.Bytes(), []byte(null)) {
		return errors.New(`"files" is not the last key of a report`)
	}
	buf.Truncate(buf.Len() - len(null))
	if len(r.Files) == 0 {
		buf.WriteString("[]\n}\n")
		_, err := w.Write(buf.Bytes())
		return err
	}
	buf.WriteString("[\n")
	enc.SetIndent("    ", "  ")
	for i, f := range r.Files {
		// Empty lists are written as [], never null, so readers need no
		// special case.
		if f.AttemptsDetail == nil {
			f.AttemptsDetail = []Attempt{}
		}
		buf.WriteString("    ")
		if err := enc.Encode(f); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // the newline Encode ends with
		if i < len(r.Files)-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		buf.Reset()
	}
	_, err := io.WriteString(w, "  ]\n}\n")
	return err
}

// headOf is r without its files, with the lists a reader walks written as
// [], never null.
func headOf(r *Report) Report {
	head := *r
	head.Files = nil
	if head.Shards != nil && head.Shards.Missing == nil {
		head.Shards = &Shards{Size: head.Shards.Size, Missing: []int{}}
	}
	return head
}

// unscopedHead is the head of a report written before reports said what
// they cover, which is written back as it was.
type unscopedHead struct {
	Version     int     `json:"version"`
	Suite       string  `json:"suite"`
	Backend     string  `json:"backend"`
	Passed      bool    `json:"passed"`
	Interrupted bool    `json:"interrupted"`
	Elapsed     float64 `json:"elapsed"`
	Files       []File  `json:"files"`
}

// Write writes the document of r to path, whole or not at all.
func Write(path string, r *Report) error { return writeWith(path, r, Marshal) }

// writeWith writes the rendering of r to path, whole or not at all.
func writeWith(path string, r *Report, render func(*Report) ([]byte, error)) error {
	data, err := render(r)
	if err != nil {
		return err
	}
	return fsutil.WriteFile(path, data)
}

// Error is a report that cannot be used, naming the file and the problem.
type Error struct {
	Path string
	Err  error
}

// Error names the file as fsutil.Shown does: a database URL given for a
// report is not echoed.
func (e *Error) Error() string { return fmt.Sprintf("read report %s: %v", fsutil.Shown(e.Path), e.Err) }
func (e *Error) Unwrap() error { return e.Err }

// MaxSize bounds a report file that Read reads: a suite of a thousand files
// whose every attempt kept its 64 KiB output tail is about 130 MiB. Anything
// larger, or anything that is not a regular file (a FIFO, /dev/zero), is
// refused at once instead of being read until memory runs out.
const MaxSize = 256 << 20

// MaxMergeInput bounds the reports one merge reads, together: a merge holds
// every entry it merges in memory to write the merged report (the attempts
// of a file listed twice add up), which may itself be at most MaxSize, so
// reports this much larger could only be refused after costing their size.
const MaxMergeInput = 4 * MaxSize

// Read reads and checks the report at path, a regular file of at most
// MaxSize bytes. Every error is an *Error.
//
// The file is read a piece at a time (see decoder): reading costs the
// memory of the report it returns, about the file's size, plus for a
// moment a few times its largest single value, never a multiple of the
// whole file.
func Read(path string) (*Report, error) { return read(path, false) }

// ReadWithoutOutput reads and checks the report at path as Read does, but
// keeps no attempt's output tail (each is checked, then dropped): for a
// reader that never prints one, whose memory is then that of the rest,
// a small part of a report whose attempts kept their output. A report
// read so cannot be written back (Marshal refuses it).
func ReadWithoutOutput(path string) (*Report, error) { return read(path, true) }

func read(path string, dropOutput bool) (*Report, error) {
	fail := func(err error) (*Report, error) {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			// The path is already in Error's message.
			err = fmt.Errorf("%s: %w", pe.Op, pe.Err)
		}
		return nil, &Error{Path: path, Err: err}
	}
	f, err := fsutil.OpenRegular(path, MaxSize)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	r, err := parse(f, dropOutput, func() ([]byte, error) { return fsutil.ReadRegular(path, MaxSize) })
	if err != nil {
		return fail(err)
	}
	r.path = path
	return r, nil
}

// Parse reads a report document and checks what the commands rely on: the
// version, the suite and backend, and a file name and a known status for
// every file and attempt.
func Parse(data []byte) (*Report, error) {
	return parse(bytes.NewReader(data), false, func() ([]byte, error) { return data, nil })
}

// parse reads the document in src and checks it, answering as reading the
// whole document with encoding/json would: a document that is not JSON
// first, then one that is no report (not an object, a timings file, no
// "version" or another), then a value of the wrong type, then the checks.
// whole gives the whole document again, for the message of a syntax
// error only (encoding/json's, which finds it before anything else).
func parse(src io.Reader, dropOutput bool, whole func() ([]byte, error)) (*Report, error) {
	r, h, d := decodeReport(sourceReader{src}, dropOutput, true)
	if d.syntax != nil {
		var re *readError
		if errors.As(d.syntax, &re) {
			return nil, re.err
		}
		data, err := whole()
		if err != nil {
			return nil, err
		}
		if err := syntaxMessage(data); err != nil {
			return nil, jsonError(err)
		}
		// The file changed while it was read.
		return nil, fmt.Errorf("invalid JSON: %w", d.syntax)
	}
	if d.opaque {
		// The refusal found may hide a document nested too deep, which
		// encoding/json refuses first.
		data, err := whole()
		if err != nil {
			return nil, err
		}
		if err := syntaxMessage(data); err != nil {
			return nil, jsonError(err)
		}
	}
	switch {
	case h.typeErr != nil:
		return nil, jsonError(h.typeErr)
	case h.hasTimings && !h.hasSuite:
		// The other JSON file a run writes, given where a report goes.
		return nil, errors.New(`a timings file (it has "timings"), not a report; expected a report written by miles-ci run --json-report (timings files go to timings merge, timings apply and --timings)`)
	case !h.hasVersion:
		return nil, fmt.Errorf(`no "version"; expected a report written by miles-ci run --json-report (version %d)`, Version)
	case h.version != Version:
		return nil, fmt.Errorf("unsupported version %d; expected %d", h.version, Version)
	case d.valueErr != nil:
		// encoding/json stops at a value's own error (est_time's), which
		// quotes the value: read again as the document holds it.
		data, err := whole()
		if err != nil {
			return nil, err
		}
		if _, _, d := decodeReport(bytes.NewReader(data), dropOutput, false); d.valueErr != nil {
			return nil, jsonError(d.valueErr)
		}
		return nil, jsonError(d.valueErr)
	case d.typeErr != nil:
		return nil, jsonError(d.typeErr)
	}
	r.unscoped = !h.hasPartition
	r.outputDropped = dropOutput
	if err := r.check(); err != nil {
		return nil, err
	}
	return r, nil
}

// check checks a decoded report as Parse does: the suite and backend, and
// a file name, a known status and counts and times within bounds for every
// file and attempt.
func (r *Report) check() error {
	switch {
	case r.Suite == "":
		return errors.New(`no "suite"`)
	case r.Backend == "":
		return errors.New(`no "backend"`)
	case r.Files == nil:
		return errors.New(`no "files"`)
	}
	if !validSeconds(r.Elapsed) {
		return fmt.Errorf(`"elapsed" is %g; expected seconds, from 0 to %g`, r.Elapsed, maxSeconds)
	}
	if err := r.checkScope(); err != nil {
		return err
	}
	for i := range r.Files {
		f := &r.Files[i]
		if f.File == "" {
			return fmt.Errorf(`files[%d] has no "file"`, i)
		}
		if err := checkStatus(f.Status); err != nil {
			return fmt.Errorf("files[%d] (%q) %w", i, f.File, err)
		}
		if err := checkCause(f.Cause); err != nil {
			return fmt.Errorf("files[%d] (%q) %w", i, f.File, err)
		}
		// Counts and times a run never writes would come out of a merge
		// or a timings file as nonsense (a negative total, a file that
		// shards as free).
		switch {
		case f.Attempts < 0 || f.Attempts > maxAttempts:
			return fmt.Errorf(`files[%d] (%q) has "attempts" %d; expected a count from 0 to %d`, i, f.File, f.Attempts, maxAttempts)
		case len(f.AttemptsDetail) > f.Attempts:
			return fmt.Errorf(`files[%d] (%q) lists %d attempts in "attempts_detail" but "attempts" is %d (or missing)`, i, f.File, len(f.AttemptsDetail), f.Attempts)
		case !validSeconds(f.Elapsed):
			return fmt.Errorf(`files[%d] (%q) has "elapsed" %g; expected seconds, from 0 to %g`, i, f.File, f.Elapsed, maxSeconds)
		}
		for j := range f.AttemptsDetail {
			if err := CheckAttempt(&f.AttemptsDetail[j]); err != nil {
				return fmt.Errorf("files[%d] (%q) attempt %d %w", i, f.File, j+1, err)
			}
		}
	}
	return nil
}

// checkScope checks "partition" and "shards": a shard within its count,
// a count within bounds, missing shards within the count, ascending, each
// once; a run's report is of one shard or of the whole suite, a merge's of
// no one shard.
func (r *Report) checkScope() error {
	if p := r.Partition; p != nil {
		if err := CheckPartition(*p); err != nil {
			return err
		}
		if r.Shards != nil {
			return errors.New(`"partition" names one shard, but "shards" says the report merges several`)
		}
	}
	if s := r.Shards; s != nil {
		if s.Size < 0 || s.Size > maxShards {
			return fmt.Errorf(`"shards" has "size" %d; expected a count from 0 to %d`, s.Size, maxShards)
		}
		for i, id := range s.Missing {
			if id < 0 || id >= s.Size || i > 0 && id <= s.Missing[i-1] {
				return fmt.Errorf(`"shards" lists missing shard %d; expected shards from 0 to %d, ascending, each once`, id, s.Size-1)
			}
		}
	}
	return nil
}

// The bounds of a report's counts and times: far beyond any run, and small
// enough that merging millions of reports neither overflows an int nor
// reaches infinity, which JSON cannot write.
const (
	maxAttempts = 1_000_000
	maxSeconds  = 1e12
	maxShards   = 1_000_000
)

func validSeconds(s float64) bool { return s >= 0 && s <= maxSeconds }

// ValidSeconds reports whether s is a time in seconds a report may hold:
// from 0 to 1e12 (not NaN).
func ValidSeconds(s float64) bool { return validSeconds(s) }

// CheckAttempt checks one attempt as Parse checks each of a report's: a
// known status and cause, a fingerprint's name, and elapsed seconds
// within bounds. The run history holds its rows to the same rules.
func CheckAttempt(a *Attempt) error {
	if err := checkStatus(a.Status); err != nil {
		return err
	}
	if err := checkCause(a.Cause); err != nil {
		return err
	}
	if !validFingerprint(a.Fingerprint) {
		return fmt.Errorf("has fingerprint %q; expected a name of letters, digits, '.', '-' and '_'", a.Fingerprint)
	}
	if !validSeconds(a.Elapsed) {
		return fmt.Errorf(`has "elapsed" %g; expected seconds, from 0 to %g`, a.Elapsed, maxSeconds)
	}
	if a.Offset != nil && !validSeconds(*a.Offset) {
		return fmt.Errorf(`has "offset" %g; expected seconds, from 0 to %g`, *a.Offset, maxSeconds)
	}
	if a.Shard != nil && (*a.Shard < 0 || *a.Shard >= maxShards) {
		return fmt.Errorf(`has "shard" %d; expected a shard from 0 to %d`, *a.Shard, maxShards-1)
	}
	return nil
}

// CheckPartition checks a shard as Parse checks "partition": a shard
// from 0 to the count less one, of a count from 1 to 1,000,000.
func CheckPartition(p Partition) error {
	if p.Size < 1 || p.Size > maxShards || p.ID < 0 || p.ID >= p.Size {
		return fmt.Errorf(`"partition" is shard %d of %d; expected a shard from 0 to the count less one, of a count from 1 to %d`, p.ID, p.Size, maxShards)
	}
	return nil
}

// validFingerprint reports whether s could be an infra fingerprint's
// name as the configuration allows one (or "", none): a report read back
// prints it in summaries and tables, where it must stay plain text.
func validFingerprint(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// checkCause checks an attempt's cause: one of the causes, or "" (an
// attempt that did not fail, or a report written before causes were).
func checkCause(c Cause) error {
	switch c {
	case "", CauseTest, CauseTimeout, CauseInfra:
		return nil
	}
	return fmt.Errorf("has cause %q; expected one of %q, %q, %q or none", c, CauseTest, CauseTimeout, CauseInfra)
}

func checkStatus(s Status) error {
	if s == "" {
		return errors.New(`has no "status"`)
	}
	for _, ok := range statuses {
		if s == ok {
			return nil
		}
	}
	names := make([]string, len(statuses))
	for i, s := range statuses {
		names[i] = string(s)
	}
	return fmt.Errorf("has status %q; expected one of %s", s, strings.Join(names, ", "))
}

// jsonError says what is wrong with a document encoding/json refused, in
// the document's terms rather than Go's.
func jsonError(err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field == "":
		return fmt.Errorf("the document is a JSON %s; expected an object", te.Value)
	case errors.As(err, &te):
		return fmt.Errorf("%q is a JSON %s, which is not its type", te.Field, te.Value)
	case errors.As(err, &se):
		return fmt.Errorf("invalid JSON: %w", err)
	}
	// An error of a field's own decoder (est_time) already says what is
	// wrong.
	return err
}

// SuiteError is a report of another suite or backend than expected.
type SuiteError struct {
	Path           string
	Suite, Backend string // the report's
	WantSuite      string
	WantBackend    string
	// Against names the report the expectation came from ("" for a run).
	Against string
}

func (e *SuiteError) Error() string {
	msg := fmt.Sprintf("report %q is of suite %q (%s), not %q (%s)", e.Path, e.Suite, e.Backend, e.WantSuite, e.WantBackend)
	if e.Against != "" {
		msg += fmt.Sprintf(" as %q is", e.Against)
	}
	return msg
}

// CheckSuite returns a *SuiteError unless r is a report of suite on
// backend.
func (r *Report) CheckSuite(suite, backend string) error {
	if r.Suite == suite && r.Backend == backend {
		return nil
	}
	return &SuiteError{Path: r.path, Suite: r.Suite, Backend: r.Backend, WantSuite: suite, WantBackend: backend}
}

// Path is the file r was read from ("" for a report built in memory).
func (r *Report) Path() string { return r.path }
