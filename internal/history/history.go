// Package history is the run history: one row per attempt of a test file
// (Row), the stores that keep the rows, and the answers computed from
// them. Two stores hold the same rows: a directory of JSON run reports,
// read with no server (Dir), and a PostgreSQL database that every run of
// a fleet writes to as its files finish (Postgres). Both are read through
// one streaming Reader, so that a question asked of either gets its
// answer from the same rows by the same pure function (see Timings): the
// stores only filter and stream, and identical answers hold by
// construction.
//
// A row is derived from a report's file entry (RowsOf), both when a run
// writes it to the database at the end of each file and when `history
// import` or a directory reader reads the report later, so the two paths
// cannot disagree.
//
// Each question is an Answer in a file of its own (timings.go, flaky.go,
// hosts.go, setup.go, cost.go). `report hosts`, which needs more of a
// report than its rows (the files never run, a preflight's verdict),
// reads the reports through the same walker (ReportFiles) into the hosts
// answer's rows (ReportHosts, HostRowsOf).
//
// `report triage --from`, and run's step summary, ask one more: what the
// history says of the failed files of some runs, those runs' own rows
// left out (TriageAnswer, triage.go: the flaky and hosts answers over the
// same rows, for package triage to decide on).
package history

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/radixark/miles-ci/internal/report"
)

// Row is one attempt of one test file in one run.
type Row struct {
	Run
	File    string
	Attempt int // 1-based
	Status  report.Status
	// Cause is why a failed attempt failed ("" otherwise; see
	// report.Cause).
	Cause report.Cause
	// Fingerprint names the infra fingerprint a failed attempt matched
	// ("" otherwise; see report.Attempt), for history hosts.
	Fingerprint string
	Elapsed     float64 // seconds, to the millisecond
	// EstTime is the file's declared est_time; Timeout the attempt's
	// effective time limit in seconds (0: not recorded).
	EstTime float64
	Timeout int64
	// Stopped marks the one row of a job that a GPU preflight stopped
	// (its report's host_not_ready: the host was found not ready before
	// the first file or after an infra failure, and the files left were
	// not run). It is no attempt: File is "", Attempt 0, Status NOT RUN,
	// Elapsed 0, and Setup is the job's setup, or, for a job that ran no
	// test, the seconds from its start to the stop (see StopRow). Every
	// other row has Stopped false; a Filter yields these rows only when
	// asked (Filter.Stops).
	Stopped bool
}

// Run is what a row says of the run it belongs to: the workflow run
// (GitHub's identity of it, "" outside Actions), the cadence, when it
// started, the suite and the shard it ran, and the machine.
type Run struct {
	Repository string
	Workflow   string
	RunID      string
	RunAttempt string
	Job        string
	Event      string
	PR         *int
	SHA        string
	Cadence    string
	Started    time.Time // UTC, to the millisecond
	Suite      string
	Backend    string
	// ShardID and ShardSize are the run's partition; 0 and 0 for a run
	// of the whole suite.
	ShardID   int
	ShardSize int
	Runner    string
	Hostname  string
	// Setup is the run's job setup in seconds: from the job's start to
	// its first test (report.SetupSeconds); nil when the run did not know
	// when its job started.
	Setup *float64
}

// RunOf reads the run a report describes. A report without "started"
// (written before reports said) cannot be placed in time or told from
// another run of the same job, and is an error, as is a merged report
// (report merge's), whose attempts its shards' reports already hold.
func RunOf(r *report.Report) (Run, error) {
	if r.Shards != nil || r.Hosts != nil {
		return Run{}, errMerged
	}
	if r.Started == "" {
		return Run{}, errNoStart
	}
	started, err := time.Parse(report.StartedLayout, r.Started)
	if err != nil {
		return Run{}, fmt.Errorf(`"started" is %q; expected RFC 3339 in UTC to the millisecond, as 2026-12-02T08:03:01.123Z`, r.Started)
	}
	run := Run{Cadence: r.Cadence, Started: started.UTC(), Suite: r.Suite, Backend: r.Backend}
	if p := r.Partition; p != nil {
		run.ShardID, run.ShardSize = p.ID, p.Size
	}
	if h := r.Host; h != nil {
		run.Repository, run.Workflow, run.RunID, run.RunAttempt = h.Repository, h.Workflow, h.RunID, h.RunAttempt
		run.Job, run.Event, run.PR, run.SHA = h.Job, h.Event, h.PR, h.SHA
		run.Runner, run.Hostname = h.Runner, h.Hostname
	}
	if setup, ok := report.SetupSeconds(r); ok {
		run.Setup = &setup
	}
	run.clean()
	return run, nil
}

// The reasons RunOf refuses a report, which the directory reader counts.
var (
	errMerged  = errors.New("a merged report (report merge's): its shards' reports hold the same attempts")
	errNoStart = errors.New(`no "started": written before reports said when their run began`)
)

// Rows returns the rows of one file entry of the run's report: one per
// attempt in attempts_detail. A file that never ran has none.
func (run Run) Rows(f *report.File) []Row {
	rows := make([]Row, 0, len(f.AttemptsDetail))
	for _, a := range f.AttemptsDetail {
		rows = append(rows, Row{Run: run, File: clean(f.File), Attempt: a.Attempt, Status: a.Status,
			Cause: report.Cause(clean(string(a.Cause))), Fingerprint: clean(a.Fingerprint), Elapsed: a.Elapsed, EstTime: float64(f.EstTime),
			Timeout: int64(a.Timeout)})
	}
	return rows
}

// StopRow returns the row that says a GPU preflight stopped the run
// that r reports (Row.Stopped), and false when none did. A run writing
// its rows as its files finish writes it once its report is made, and a
// reader of the report derives it here too, so that both stores keep the
// same row. A job that ran a test has its setup there as on every row;
// one stopped before its first test has none (no first test started), and
// its row takes instead the seconds from the job's start to the stop (the
// report's start plus its elapsed seconds), the time it held its host
// for nothing, when the report knows when its job started and that makes
// a setup a job can have (report.PlausibleSetup).
func (run Run) StopRow(r *report.Report) (Row, bool) {
	if !r.HostNotReady {
		return Row{}, false
	}
	if run.Setup == nil && r.FirstTestStarted == "" {
		if held, ok := heldUntilStop(r); ok {
			run.Setup = &held
		}
	}
	return Row{Run: run, Status: report.NotRun, Stopped: true}, true
}

// heldUntilStop is the seconds from the job's start to the end of a run
// that ran no test, to the millisecond, and whether the report knows them.
func heldUntilStop(r *report.Report) (float64, bool) {
	job, err1 := time.Parse(time.RFC3339Nano, r.JobStarted)
	started, err2 := time.Parse(time.RFC3339Nano, r.Started)
	if err1 != nil || err2 != nil || !report.ValidSeconds(r.Elapsed) {
		return 0, false
	}
	held := report.Seconds(started.Sub(job).Seconds() + r.Elapsed)
	return held, report.PlausibleSetup(held)
}

// RowsOf returns every row of a run report, its stop row (StopRow) last,
// or RunOf's error.
func RowsOf(r *report.Report) ([]Row, error) {
	run, err := RunOf(r)
	if err != nil {
		return nil, err
	}
	var rows []Row
	for i := range r.Files {
		rows = append(rows, run.Rows(&r.Files[i])...)
	}
	if stop, ok := run.StopRow(r); ok {
		rows = append(rows, stop)
	}
	return rows, nil
}

// Key is the run a row belongs to, as "last N runs" counts runs: a
// workflow run attempt (the repository, the run id and its attempt: the
// shards of one run are one run), or, outside GitHub Actions, one
// invocation of `miles-ci run` (its start, machine, suite and shard).
func (run *Run) Key() string {
	if run.RunID != "" {
		return strings.Join([]string{"gh", run.Repository, run.RunID, run.RunAttempt}, "\x1f")
	}
	return strings.Join([]string{"local", run.Started.Format(report.StartedLayout), run.Hostname, run.Suite, run.Backend,
		strconv.Itoa(run.ShardID), strconv.Itoa(run.ShardSize)}, "\x1f")
}

// report is the identity of the report a row came from: the columns of
// the unique key of the database's table but the file and the attempt.
// Two reports with the same identity hold the same rows (one is a copy of
// the other); a reader takes the first.
func (run *Run) report() string {
	return strings.Join([]string{run.Repository, run.RunID, run.RunAttempt, run.Job,
		run.Started.Format(report.StartedLayout), run.Suite, run.Backend,
		strconv.Itoa(run.ShardID), strconv.Itoa(run.ShardSize)}, "\x1f")
}

// clean makes every text of the run storable: see clean.
func (run *Run) clean() {
	for _, s := range []*string{&run.Repository, &run.Workflow, &run.RunID, &run.RunAttempt, &run.Job,
		&run.Event, &run.SHA, &run.Cadence, &run.Suite, &run.Backend, &run.Runner, &run.Hostname} {
		*s = clean(*s)
	}
}

// clean returns s as both stores keep it: each byte that is not part of
// valid UTF-8 replaced by U+FFFD, as encoding/json writes a report, and
// NUL, which PostgreSQL's text refuses, too. A row built in a run and the
// row read back from its report then hold the same text.
func clean(s string) string {
	ok := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == utf8.RuneError && n == 1 {
			ok = false
			break
		}
		i += n
	}
	if ok {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == 0 || r == utf8.RuneError && n == 1 {
			r = utf8.RuneError
		}
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

// Filter narrows the rows a Reader yields. The zero Filter yields every
// row.
type Filter struct {
	// Suite and Cadence, when set, keep the rows of runs of that suite,
	// under that cadence.
	Suite   string
	Cadence string
	// Since, when set, keeps the rows of runs that started at or after it.
	Since time.Time
	// LastRuns, when positive, keeps the rows of the LastRuns latest runs
	// (see Run.Key) among those Suite, Cadence and Since keep, latest by
	// their first start, ties broken by the greater key.
	LastRuns int
	// Statuses, when set, keeps the attempts of these statuses; it does
	// not change which runs LastRuns counts.
	Statuses []report.Status
	// Grouped asks for the rows of one report (one job's run of a suite
	// or shard) one after another, and within it each file's attempts
	// together in attempt order, as the answers that follow runs across
	// rows (history flaky, history hosts) read them. The order of the
	// reports stays unpromised.
	Grouped bool
	// Stops asks for the rows that say a preflight stopped a job
	// (Row.Stopped) besides the attempts: the questions of what a job
	// cost or where it ran read them, and those of a file's attempts
	// never see them. They do not change which runs LastRuns counts: a
	// run counts by its attempts.
	Stops bool
	// TimingOnly says that the answer reads nothing of a row but its
	// file, suite, backend, status and elapsed seconds: a store may leave
	// the rest empty (the database then sends five columns of the
	// twenty-six, and a million rows take a fraction of the time). With
	// Stops it is ignored: a stop row is told apart by another column.
	TimingOnly bool
}

// keepsRun reports whether f keeps the runs of run, LastRuns aside.
func (f *Filter) keepsRun(run *Run) bool {
	return (f.Suite == "" || run.Suite == f.Suite) && (f.Cadence == "" || run.Cadence == f.Cadence) &&
		(f.Since.IsZero() || !run.Started.Before(f.Since))
}

// keepsStatus reports whether f keeps attempts of status s.
func (f *Filter) keepsStatus(s report.Status) bool {
	if len(f.Statuses) == 0 {
		return true
	}
	for _, ok := range f.Statuses {
		if s == ok {
			return true
		}
	}
	return false
}

// Reader streams the rows of a store that a filter keeps, one at a time,
// in no promised order: the answers sort what they print. It holds no
// more than one report (a directory) or one row (a database) at a time;
// fn returning an error stops the scan with it.
type Reader interface {
	Scan(ctx context.Context, f Filter, fn func(*Row) error) error
	Close() error
}

// Answer is a question asked of the history, answered from its rows
// alone, whichever store they come from: Filter narrows the filter the
// asker gives to the rows the answer reads (statuses, grouping, columns),
// and Add takes them one at a time, in the order the Reader gives them.
// Each question is one file of this package (timings.go, flaky.go,
// hosts.go, setup.go, cost.go): its answer, its filter and what it
// computes.
type Answer interface {
	Filter(f Filter) Filter
	Add(r *Row) error
}

// Writer adds rows to a store. A row already there (the same run, suite,
// shard, file and attempt) is left as it is, so a retried write or a
// second import adds nothing; added counts the rows that were new.
type Writer interface {
	Write(ctx context.Context, rows []Row) (added int, err error)
	Close() error
}

// latest picks the keys of the n latest runs from the first start of
// each, as Filter.LastRuns orders them.
func latest(first map[string]time.Time, n int) map[string]bool {
	keys := make([]string, 0, len(first))
	for k := range first {
		keys = append(keys, k)
	}
	sortRuns(keys, first)
	if len(keys) > n {
		keys = keys[:n]
	}
	out := make(map[string]bool, len(keys))
	for _, k := range keys {
		out[k] = true
	}
	return out
}
