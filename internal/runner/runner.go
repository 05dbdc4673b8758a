// Package runner runs the planned test files of a suite as child processes:
// each in a process group of its own, with a timeout, smart retries, the
// metric-history record directories, and the summary and reports of the run.
// It prints the child's output and its own progress lines; everything that
// is a GitHub Actions command goes through the LogGroups it is given.
//
// Every rule of what follows one attempt of a file (its status and cause,
// a retry, the file's end, or the run's stop) is one pure function, decide
// in decide.go; attempt.go runs a file's attempts around it.
package runner

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// File is one planned test file.
type File struct {
	Name    string // repository-relative path
	EstTime float64
}

// LogGroups receives the structure of a run for a CI log. The ghactions
// package satisfies it; a nil LogGroups prints nothing.
type LogGroups interface {
	// Group opens a collapsible group titled title (unescaped).
	Group(title string)
	EndGroup()
	// AttemptSummary reports one finished attempt of file i of n (1-based):
	// status PASS, FAIL or TIMEOUT, the exit code of a FAIL, the timeout
	// in seconds of a TIMEOUT, and the attempt it retried (0 for none).
	AttemptSummary(i, n int, file, status string, elapsed time.Duration, exitCode, timeoutAfter *int, retryOf int)
	// Annotate shows message on file in the run's summary: level "error"
	// or "warning", title a short heading (all unescaped).
	Annotate(level, file, title, message string)
}

// Status is the outcome of an attempt or a file; the report a run fills
// owns the names.
type Status = report.Status

// The statuses of package report, under the names the runner has always
// used.
const (
	Pass        = report.Pass
	Fail        = report.Fail
	Timeout     = report.Timeout
	NotRun      = report.NotRun
	Interrupted = report.Interrupted
)

// Attempt is one run of a file.
type Attempt struct {
	Number int
	// Started is when the attempt's child was started, on Options.Now.
	Started      time.Time
	Status       Status
	Elapsed      time.Duration
	ExitCode     *int   // FAIL (and PASS: 0); nil when the child never ran or timed out
	TimeoutAfter int    // seconds, TIMEOUT only
	StartError   string // the child could not be started
	RetryReason  string // the classification of a FAIL's output, when retries are on
	// Cause says why a failed attempt failed (report.Cause); CauseLine and
	// Fingerprint name the output line and the infra fingerprint that
	// matched, for report.CauseInfra.
	Cause       report.Cause
	CauseLine   string
	Fingerprint string
	// Output is the last bytes (up to TailSize) of the attempt's output
	// when it was captured (with retries on), else nil.
	Output []byte
}

// FileResult is the outcome of one planned file.
type FileResult struct {
	File     string
	EstTime  float64
	Status   Status
	Attempts []Attempt
	// RecordPath is the merged metric record of the passing attempt, ""
	// when there is none.
	RecordPath string
	// NotRunReason, when set, is why a NOT RUN file was not run, in
	// place of the default "not run: an earlier file failed".
	NotRunReason string
}

// Last returns the last attempt, or the zero Attempt for a file never run.
func (r *FileResult) Last() Attempt {
	if len(r.Attempts) == 0 {
		return Attempt{}
	}
	return r.Attempts[len(r.Attempts)-1]
}

// Elapsed is the time spent on every attempt of the file.
func (r *FileResult) Elapsed() time.Duration {
	var d time.Duration
	for _, a := range r.Attempts {
		d += a.Elapsed
	}
	return d
}

// Reason says why a file did not pass, as the summary lists it.
func (r *FileResult) Reason() string {
	switch {
	case r.Status == Interrupted:
		return "interrupted"
	case r.Status == NotRun && r.NotRunReason != "":
		return r.NotRunReason
	case r.Status == NotRun:
		return "not run: an earlier file failed"
	case len(r.Attempts) == 0 && r.Status == Fail:
		return "no attempt allowed by --max-attempts"
	}
	return r.Last().Reason()
}

// Reason says why an attempt did not pass ("" for a PASS).
func (a Attempt) Reason() string {
	switch {
	case a.Status == Pass:
		return ""
	case a.Status == Timeout:
		return fmt.Sprintf("timeout after %ds", a.TimeoutAfter)
	case a.Status == Interrupted:
		return "interrupted"
	case a.StartError != "":
		return "could not start: " + a.StartError
	case a.ExitCode != nil:
		return fmt.Sprintf("exit code %d", *a.ExitCode)
	}
	return ""
}

// Retried is the outcome of a file that ran more than one attempt, as the
// summaries list it ("passed", "timeout" or "failed"); "" for a file that
// ran at most once.
func (r *FileResult) Retried() string {
	if len(r.Attempts) <= 1 {
		return ""
	}
	switch r.Status {
	case Pass:
		return "passed"
	case Timeout:
		return "timeout"
	}
	return "failed"
}

// Results are the outcome of a run: every planned file in plan order.
type Results struct {
	Files       []FileResult
	Elapsed     time.Duration
	Interrupted bool
	// HostNotReady is set when Options.Preflight found the host not ready
	// and the run stopped there.
	HostNotReady bool
}

// FirstStarted is when the run's first attempt started, and whether one
// did: the end of the job's setup, which the report records.
func (r *Results) FirstStarted() (time.Time, bool) {
	for i := range r.Files {
		if a := r.Files[i].Attempts; len(a) > 0 {
			return a[0].Started, true
		}
	}
	return time.Time{}, false
}

// Passed reports whether every file passed and nothing interrupted the run.
func (r *Results) Passed() bool {
	for i := range r.Files {
		if r.Files[i].Status != Pass {
			return false
		}
	}
	return !r.Interrupted
}

// TailSize bounds the captured output kept per file for reports.
const TailSize = 64 << 10

// Limits bound how long a file may run and how often it is tried. They are
// run_suite.py's time limit and retry flags, which `miles-ci run` binds
// straight into this struct and hands on unchanged (see suiterun.Spec).
type Limits struct {
	TimeoutPerFile int // seconds
	EnableRetry    bool
	// MaxAttempts bounds the attempts per file when EnableRetry is set.
	// As in run_suite.py, a value below 1 allows no attempt at all: every
	// file then fails without running.
	MaxAttempts          int
	RetryWaitSeconds     int
	RetryTimeoutIncrease int // seconds, added to TimeoutPerFile when retrying
}

// Options configure Run. Zero values of the hooks select the real world.
type Options struct {
	Root string // the repository root: children's working directory and the base of their paths

	Limits
	ContinueOnError bool

	// GateBaseDir, when set, gives every attempt its own metric record
	// directory below it (see RecordDir).
	GateBaseDir string
	// GateHook is a shell command run after a passing attempt's records
	// were merged (see runGateHook).
	GateHook      string
	WriteBaseline bool
	// Gate, when set and GateHook is empty, evaluates the repository's
	// own gate after a passing attempt's records were merged (see
	// runGateAdapter).
	Gate *GateAdapter

	// Preflight, when set, checks the host before the first file and
	// after every attempt that failed with cause infra; when says which
	// check it is (report.Preflight.When). A host found not ready stops
	// the run: no further attempt starts, and the files left are NOT RUN
	// with NotRunReason "not run: host not ready".
	Preflight func(ctx context.Context, when string) (ready bool)
	// FileDone, when set, is called after each file that ran (at least one
	// attempt), with the file's index and result, before the next file
	// starts: the run history hands the file's attempts to its writer
	// there (and returns at once), so a job cancelled later keeps them.
	FileDone func(i int, res *FileResult)
	// Tolerated, when set, says that a failure of file i does not stop a
	// run without ContinueOnError (its caller forgives it: a quarantined
	// file; see package quarantine).
	Tolerated func(i int) bool
	// Fingerprints recognise a failure of the host in a file's output
	// (see infra.go); nil reads no output that is not captured anyway.
	Fingerprints []Fingerprint
	// Host names the machine in the annotation of an infra failure
	// ("RUNNER (HOSTNAME)"); "" says "this host".
	Host string

	Env    []string // the children's environment; nil: this process's
	Out    io.Writer
	ErrOut io.Writer
	Log    LogGroups

	Python string // the interpreter; "" is python3
	// KillGrace is how long an interrupted child has between SIGTERM and
	// SIGKILL.
	KillGrace time.Duration
	// Start starts a prepared child; tests replace it.
	Start func(*exec.Cmd) error
	// Now is the clock elapsed times are measured with.
	Now func() time.Time
	// Sleep waits between attempts; it returns early with ctx's error.
	Sleep func(ctx context.Context, d time.Duration) error
}

func (o *Options) defaults() {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ErrOut == nil {
		o.ErrOut = io.Discard
	}
	if o.Log == nil {
		o.Log = noLog{}
	}
	if o.Python == "" {
		o.Python = "python3"
	}
	if o.KillGrace == 0 {
		o.KillGrace = 3 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type noLog struct{}

func (noLog) Group(string)                                                            {}
func (noLog) EndGroup()                                                               {}
func (noLog) AttemptSummary(int, int, string, string, time.Duration, *int, *int, int) {}
func (noLog) Annotate(string, string, string, string)                                 {}

// EffectiveTimeout is the time limit of one attempt of a file, in seconds:
// the per-file timeout (plus the retry increase when retrying), or
// registry.TimeoutFactor times the file's estimate (truncated, as Python's
// int() does) when that is longer. The arithmetic saturates instead of wrapping: a sum or an estimate
// beyond int's range is math.MaxInt, so a huge limit can never turn into a
// small or negative one.
func (o *Limits) EffectiveTimeout(est float64) int {
	base := o.TimeoutPerFile
	if o.EnableRetry {
		base = addSaturating(base, o.RetryTimeoutIncrease)
	}
	return FileTimeout(base, est)
}

// attempts is how many attempts a file may have: one without retries.
func (l *Limits) attempts() int {
	if l.EnableRetry {
		return l.MaxAttempts
	}
	return 1
}

// FileTimeout is a file's time limit in seconds, registry.TimeLimit
// saturated to int's range: base itself (exact, also past 2^53) when the
// estimate earns no more, which a NaN one does not.
func FileTimeout(base int, est float64) int {
	limit := registry.TimeLimit(base, est)
	if math.IsNaN(limit) || limit <= float64(base) {
		return base
	}
	return truncSaturating(limit)
}

// addSaturating is a+b clamped to int's range.
func addSaturating(a, b int) int {
	switch {
	case b > 0 && a > math.MaxInt-b:
		return math.MaxInt
	case b < 0 && a < math.MinInt-b:
		return math.MinInt
	}
	return a + b
}

// truncSaturating is x truncated toward zero, clamped to int's range (Go's
// own conversion of an out-of-range float is undefined). NaN has no limit
// to impose and counts as math.MinInt.
func truncSaturating(x float64) int {
	switch {
	case math.IsNaN(x) || x <= math.MinInt:
		return math.MinInt
	case x >= math.MaxInt: // float64(math.MaxInt) is 2^63, already out of range
		return math.MaxInt
	}
	return int(x)
}

// waitDuration converts a wait in seconds to a duration, saturating: a wait
// beyond what a time.Duration holds is the longest one, never a wrapped,
// shorter or negative one. A negative wait is none.
func waitDuration(seconds int) time.Duration {
	switch {
	case seconds <= 0:
		return 0
	case seconds > math.MaxInt64/int(time.Second):
		return math.MaxInt64
	}
	return time.Duration(seconds) * time.Second
}

// timeoutDuration converts a limit in seconds to the duration runProc
// waits: 0 (no limit) when seconds is not positive, as before, and also when
// it is beyond what a time.Duration holds (about 292 years), which is no
// practical limit; multiplying would wrap and kill a test at once.
func timeoutDuration(seconds int) time.Duration {
	if seconds <= 0 || seconds > math.MaxInt64/int(time.Second) {
		return 0
	}
	return time.Duration(seconds) * time.Second
}

// Run runs files in order as `python3 <root>/<file>` and reports how each
// went. It stops after the first file that does not pass unless
// ContinueOnError, and when ctx is cancelled (the running child is
// terminated); either way it prints the summary of what ran.
func Run(ctx context.Context, files []File, opts Options) *Results {
	opts.defaults()
	r := &runState{opts: opts, n: len(files)}
	start := opts.Now()
	rep := &Results{Files: make([]FileResult, len(files))}
	for i, f := range files {
		rep.Files[i] = FileResult{File: f.Name, EstTime: f.EstTime, Status: NotRun}
	}
	stopped := false
	if opts.Preflight != nil && len(files) > 0 && !opts.Preflight(ctx, "start") {
		stopped = true
		if ctx.Err() != nil {
			rep.Interrupted = true
		} else {
			rep.HostNotReady = true
			markNotReady(rep.Files)
		}
	}
	for i := range files {
		if stopped {
			break
		}
		res := &rep.Files[i]
		r.runFile(ctx, i, res)
		if opts.FileDone != nil && len(res.Attempts) > 0 {
			opts.FileDone(i, res)
		}
		if r.hostNotReady {
			rep.HostNotReady = true
			stopped = true
			left := rep.Files[i+1:]
			for j := range left {
				left[j].NotRunReason = NotRunHostNotReady
			}
			r.printf("[CI Infra] the host is not ready after %s attempt %d: the run stops here; %s not run\n\n",
				textfmt.OneLine(res.File), len(res.Attempts), textfmt.CountNoun(len(left), "file"))
			continue
		}
		switch {
		case res.Status == Interrupted:
			rep.Interrupted = true
			stopped = true
		case res.Status == Pass:
			switch {
			case res.RecordPath == "":
			case opts.GateHook != "":
				r.runGateHook(ctx, res)
			case opts.Gate != nil:
				r.runGateAdapter(ctx, res)
			}
		case !opts.ContinueOnError && (opts.Tolerated == nil || !opts.Tolerated(i)):
			stopped = true
		}
		if ctx.Err() != nil && !rep.Interrupted {
			rep.Interrupted = true
			stopped = true
		}
	}
	rep.Elapsed = opts.Now().Sub(start)
	// An interrupted run ends promptly: the adapter gets no time of its own.
	closeWait := gateCloseWait
	if ctx.Err() != nil {
		closeWait = 0
	}
	r.closeGate(closeWait)
	r.printSummary(rep)
	return rep
}

// markNotReady gives the files not run yet the reason that the host was
// not ready.
func markNotReady(files []FileResult) {
	for i := range files {
		if files[i].Status == NotRun {
			files[i].NotRunReason = "not run: host not ready"
		}
	}
}

type runState struct {
	opts Options
	n    int
	gate gateState
	// hostNotReady: a preflight after an infra failure found the host not
	// ready, and the run stops.
	hostNotReady bool
}

// NotRunHostNotReady is the NotRunReason of the files a run left when a
// preflight found the host not ready.
const NotRunHostNotReady = "not run: host not ready"

func (r *runState) printf(format string, args ...any) {
	fmt.Fprintf(r.opts.Out, format, args...)
}

// printSummary prints the closing summary in the shape of the Python
// runner's.
func (r *runState) printSummary(rep *Results) {
	var passed, failed []string
	type retry struct {
		file     string
		attempts int
		result   string
	}
	var retried []retry
	for i := range rep.Files {
		f := &rep.Files[i]
		switch f.Status {
		case Pass:
			passed = append(passed, textfmt.OneLine(f.File))
		case NotRun:
			continue
		default:
			reason := f.Reason()
			if last := f.Last(); f.Status != Interrupted && last.Cause == report.CauseInfra {
				// Only a run with an infra failure says more than
				// run_suite.py's "(exit code N)".
				reason += ", infra: " + last.Fingerprint
			}
			failed = append(failed, fmt.Sprintf("%s (%s)", textfmt.OneLine(f.File), reason))
		}
		if result := f.Retried(); result != "" {
			retried = append(retried, retry{textfmt.OneLine(f.File), len(f.Attempts), result})
		}
	}
	verdict := "Success"
	if !rep.Passed() {
		verdict = "Fail"
	}
	rule := strings.Repeat("=", 60)
	r.printf("%s. Time elapsed: %.2fs\n", verdict, rep.Elapsed.Seconds())
	r.printf("\n%s\n", rule)
	r.printf("Test Summary: %d/%d passed\n", len(passed), len(rep.Files))
	if r.opts.EnableRetry && len(retried) > 0 {
		r.printf("Retries: %d test(s) were retried\n", len(retried))
	}
	r.printf("%s\n", rule)
	if len(passed) > 0 {
		r.printf("PASSED:\n")
		for _, p := range passed {
			r.printf("  %s\n", p)
		}
	}
	if len(failed) > 0 {
		r.printf("\nFAILED:\n")
		for _, f := range failed {
			r.printf("  %s\n", f)
		}
	}
	if len(retried) > 0 {
		r.printf("\nRETRIED:\n")
		for _, t := range retried {
			r.printf("  %s (%d attempts, %s)\n", t.file, t.attempts, t.result)
		}
	}
	r.printf("%s\n\n", rule)
}

// tailBuffer keeps the last size bytes written to it.
type tailBuffer struct {
	buf  []byte
	size int
	full bool
	pos  int
}

func newTailBuffer(size int) *tailBuffer { return &tailBuffer{buf: make([]byte, size), size: size} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) >= t.size {
		copy(t.buf, p[len(p)-t.size:])
		t.pos, t.full = 0, true
		return n, nil
	}
	for len(p) > 0 {
		c := copy(t.buf[t.pos:], p)
		p = p[c:]
		t.pos += c
		if t.pos == t.size {
			t.pos, t.full = 0, true
		}
	}
	return n, nil
}

// Bytes returns a copy of the kept bytes, oldest first.
func (t *tailBuffer) Bytes() []byte {
	if !t.full {
		// Never nil: captured but empty output is still captured.
		return append([]byte{}, t.buf[:t.pos]...)
	}
	out := make([]byte, 0, t.size)
	out = append(out, t.buf[t.pos:]...)
	return append(out, t.buf[:t.pos]...)
}
