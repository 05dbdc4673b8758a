// Package suiterun runs a planned suite and delivers what the run owes
// afterwards: one pytest process for a CPU suite, the file-by-file runner
// for a GPU suite, then the report files and the step summary. It turns the
// flags of `miles-ci run` (a Spec) into the runner's options; package
// runner itself only runs processes.
package suiterun

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/jobstart"
	"github.com/radixark/miles-ci/internal/quarantine"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// Environment variables a run reads.
const (
	envNeonDatabaseURL = "NEON_DATABASE_URL"
	envStepSummary     = "GITHUB_STEP_SUMMARY"
	// EnvImage names the container image a job runs in, which GitHub does
	// not expose: a workflow sets it (`MILES_CI_IMAGE: ${{ matrix.image }}`)
	// for the report's host to record.
	EnvImage = "MILES_CI_IMAGE"
)

// Spec is one run of a planned suite.
type Spec struct {
	Root string // the repository root; made absolute
	Plan *suite.Plan
	// OneFile is a `run --file`: a CPU file's pytest gets the file's time
	// limit, as a GPU file has one (a suite's pytest has none, as in
	// run_suite.py).
	OneFile bool

	runner.Limits
	// Gate is the run's one decision on the metric-history gate
	// (DecideGate).
	Gate    Gate
	Outputs report.Outputs
	// InfraFingerprints are the configuration's (every backend's); the
	// run reads a file's output for those of its backend.
	InfraFingerprints []config.InfraFingerprint

	Getenv func(string) string
	Env    []string // the children's environment; nil inherits ours
	Out    io.Writer
	ErrOut io.Writer
	Start  func(*exec.Cmd) error // nil is exec.Cmd.Start
	Now    func() time.Time      // nil is time.Now
	// Hostname names the machine for the report's host; nil is
	// os.Hostname.
	Hostname func() (string, error)
	// GPUQueryTimeout bounds the GPU tool's listing of the GPUs; 0 is
	// runner.GPUQueryTimeout.
	GPUQueryTimeout time.Duration
	// Preflight is the GPU preflight before the first test (GPU suites
	// only; see preflightFunc).
	Preflight PreflightSpec
	// Proc is the proc file system the job's start is looked for in
	// (jobstart.Source.Proc); "" looks only at MILES_CI_JOB_STARTED.
	Proc string
	// History, when set, receives the rows of each file as it finishes
	// (GPU suites; a CPU suite's one pytest process has no file attempts
	// of its own) and writes them behind the tests; the run's end, after
	// the reports are written, waits for the last of them within the
	// recorder's flush bound.
	History *history.Recorder
	// Triage, when set, opens the run history for the "Triage" section of
	// the step summary, written after a run in which a file failed (see
	// triageSection); nil writes none.
	Triage func(ctx context.Context) (history.Reader, error)
}

// Outcome is how a run ended. Code is pytest's status for a CPU suite, else
// 0 when every file passed and 1 otherwise; Interrupted says a signal
// stopped it.
type Outcome struct {
	Code        int
	Interrupted bool
	// HostNotReady says a GPU preflight found the host not ready and the
	// run stopped there (runner.Results.HostNotReady).
	HostNotReady bool
}

// Run runs s. Every output path is checked before the first test starts;
// the reports are written even for a failed or interrupted run, when they
// matter most, and one that cannot be written is the error.
func Run(ctx context.Context, s Spec) (Outcome, error) {
	root, err := filepath.Abs(s.Root)
	if err != nil {
		return Outcome{}, fmt.Errorf("repository root %q: %w", s.Root, err)
	}
	if s.Outputs.JUnitXML != "" {
		if s.Outputs.JUnitXML, err = filepath.Abs(s.Outputs.JUnitXML); err != nil {
			return Outcome{}, err
		}
	}
	if s.Getenv == nil {
		s.Getenv = func(string) string { return "" }
	}
	p := s.Plan
	outputs := []runner.Output{{Flag: "--junit-xml", Path: s.Outputs.JUnitXML}}
	if p.Backend != config.CPU {
		outputs = append(outputs, runner.Output{Flag: "--json-report", Path: s.Outputs.JSONReport},
			runner.Output{Flag: "--timings-out", Path: s.Outputs.TimingsOut, Timings: true})
	}
	if err := runner.CheckOutputs(outputs); err != nil {
		return Outcome{}, err
	}
	if p.Backend == config.CPU {
		return runPytest(ctx, s, root)
	}

	env := s.Env
	gateBase := s.Gate.RecordBase
	if s.Gate.FreshRecordBase {
		dir, err := runner.NewGateBase()
		if err != nil {
			return Outcome{}, err
		}
		defer runner.RemoveGateBase(dir, s.ErrOut)
		gateBase = dir
		env = append(env, runner.RecordDirEnv+"="+dir)
	}
	now := s.Now
	if now == nil {
		now = time.Now
	}
	host := Host(s.Getenv, s.Hostname)
	job, jobKnown, warning := jobstart.Source{Getenv: s.Getenv, Proc: s.Proc, Now: now}.Find()
	if warning != nil {
		fmt.Fprintf(s.ErrOut, "warning: %v\n", warning)
	}
	runner.GPUQuery{Backend: string(p.Backend), Path: s.Getenv("PATH"), Env: env, Timeout: s.GPUQueryTimeout}.Query(ctx, host)
	files := make([]runner.File, len(p.Tests))
	for i, r := range p.Tests {
		files[i] = runner.File{Name: r.File, EstTime: r.EstTime}
	}
	var fps []runner.Fingerprint
	for _, f := range config.InfraFingerprintsFor(s.InfraFingerprints, p.Backend) {
		fps = append(fps, runner.Fingerprint{Name: f.Name, Pattern: f.Regexp})
	}
	var preflights []report.Preflight
	// What the report says of the run beside its files; the history's rows
	// are made of it and of each file's entry, as they are when the report
	// is read back.
	head := &report.Report{Suite: p.Suite.Name, Backend: string(p.Backend), Partition: p.Partition(),
		Cadence: p.Policy.Cadence, Started: now().UTC().Format(report.StartedLayout), Host: host}
	if jobKnown {
		head.JobStarted = report.Stamp(job.Time)
	}
	var fileDone func(int, *runner.FileResult)
	if s.History != nil {
		fileDone = recordFile(ctx, s, head)
		defer s.History.Close()
	}
	var tolerated func(int) bool
	// The quarantine is read at one time, the run's start, so that an
	// entry expiring during the run means one thing throughout it (and a
	// run without one asks the clock no more than it did).
	var quarantineAt time.Time
	if len(p.Quarantine) > 0 {
		quarantineAt = now()
		// A quarantined file's failure will not fail the run, so it does
		// not stop a fast-failing one either.
		tolerated = func(i int) bool { return quarantine.Covers(p.Quarantine, files[i].Name, p.Suite.Name, quarantineAt) }
	}
	rep := runner.Run(ctx, files, runner.Options{
		Preflight:       preflightFunc(s, p, root, env, fps, host, &preflights),
		Root:            root,
		Limits:          s.Limits,
		ContinueOnError: p.ContinueOnError,
		GateBaseDir:     gateBase,
		GateHook:        s.Gate.Hook,
		Gate:            s.Gate.Adapter,
		WriteBaseline:   p.Policy.WriteBaseline,
		Env:             env,
		Out:             s.Out,
		ErrOut:          s.ErrOut,
		Log:             ghactions.NewLog(s.Out, s.Getenv),
		Start:           s.Start,
		Now:             now,
		Fingerprints:    fps,
		Host:            host.Name(),
		FileDone:        fileDone,
		Tolerated:       tolerated,
	})

	doc := rep.Document(p.Suite.Name, string(p.Backend))
	setTimeouts(doc.Files, s.Limits)
	setOffsets(doc.Files, rep.Files, head.Started)
	// What the report covers, so that no later reader (a rerun, a merge)
	// takes it for another shard's.
	doc.Partition, doc.Plan = p.Partition(), p.Digest
	doc.Host, doc.Preflights = host, preflights
	doc.Cadence, doc.Started = head.Cadence, head.Started
	if first, ok := rep.FirstStarted(); ok {
		doc.FirstTestStarted = report.Stamp(first)
	}
	if jobKnown {
		doc.JobStarted = report.Stamp(job.Time)
	}
	if s.History != nil {
		recordStop(ctx, s, doc)
	}
	if setup, ok := report.SetupSeconds(doc); ok {
		fmt.Fprintf(s.Out, "[CI Setup] %s of setup: the job started at %s (%s), its first test at %s\n",
			setupLength(setup), doc.JobStarted, job.From, doc.FirstTestStarted)
	}
	if len(p.Quarantine) > 0 {
		showQuarantine(s, quarantine.Apply(doc, p.Quarantine, quarantineAt))
	}
	reportErr := report.WriteOutputs(s.Outputs, doc)
	if path := s.Getenv(envStepSummary); path != "" {
		if err := ghactions.AppendStepSummary(path, view.StepSummary(doc, triageSection(ctx, s, doc, now))); err != nil {
			fmt.Fprintf(s.ErrOut, "warning: %v\n", err)
		}
	}
	if reportErr != nil {
		return Outcome{}, reportErr
	}
	out := Outcome{Interrupted: rep.Interrupted, HostNotReady: rep.HostNotReady}
	// The report's verdict: every file passed, or failed under its
	// quarantine (report.File.Forgiven), and nothing interrupted the run.
	if !doc.Passed {
		out.Code = 1
	}
	return out, nil
}

// showQuarantine says what the run's quarantine did: each forgiven failure
// and each quarantined file that passed on the log, each expired entry
// that protected nothing as a warning. The configuration's text is shown
// inert (textfmt.Term).
func showQuarantine(s Spec, notes []quarantine.Note) {
	for _, n := range notes {
		f, e := n.File, n.Entry
		switch n.Kind {
		case quarantine.Forgiven:
			fmt.Fprintf(s.Out, "[CI Quarantine] %s %s (%s) does not fail the run: %s\n",
				textfmt.Term(f.File), f.Status, textfmt.Term(f.Reason), textfmt.Term(report.QuarantineNote(f)))
		case quarantine.Candidate:
			fmt.Fprintf(s.Out, "[CI Quarantine] %s passed while %s: a candidate for release (delete its entry)\n",
				textfmt.Term(f.File), textfmt.Term(report.QuarantineNote(f)))
		case quarantine.Lapsed:
			fmt.Fprintf(s.ErrOut, "warning: the quarantine of %s expired after %s: it protected nothing, and its %s counts as usual\n",
				textfmt.Term(f.File), e.UntilText(), f.Status)
		}
	}
}

// setupLength writes a setup in minutes and seconds, as setup_minutes
// counts it: "4.2 min (252.3 s)".
func setupLength(seconds float64) string {
	return fmt.Sprintf("%.1f min (%.1f s)", seconds/60, seconds)
}

// recordFile starts the run's history and returns the runner's FileDone
// that writes each finished file's attempts to it: the rows of the file's
// entry in the report the run will write (head holds the rest of it).
func recordFile(ctx context.Context, s Spec, head *report.Report) func(int, *runner.FileResult) {
	run, err := history.RunOf(head)
	if err != nil { // a head made above always reads
		fmt.Fprintf(s.ErrOut, "warning: history: %v; nothing written\n", err)
		return nil
	}
	s.History.Start(ctx)
	return func(_ int, res *runner.FileResult) {
		if head.FirstTestStarted == "" && len(res.Attempts) > 0 {
			// The first file that ran started the first test: the run's
			// setup (report.SetupSeconds) is known from here on, as its
			// report will say.
			head.FirstTestStarted = report.Stamp(res.Attempts[0].Started)
			if known, err := history.RunOf(head); err == nil {
				run = known
			}
		}
		one := (&runner.Results{Files: []runner.FileResult{*res}}).Document(head.Suite, head.Backend)
		setTimeouts(one.Files, s.Limits)
		s.History.Record(ctx, run.Rows(&one.Files[0]))
	}
}

// recordStop hands the history the row that says a GPU preflight stopped
// the run (history.Run.StopRow), made from the run's report as a reader
// of the report makes it; a run no preflight stopped has none.
func recordStop(ctx context.Context, s Spec, doc *report.Report) {
	run, err := history.RunOf(doc)
	if err != nil { // the report of a run always reads
		return
	}
	if stop, ok := run.StopRow(doc); ok {
		s.History.Record(ctx, []history.Row{stop})
	}
}

// setTimeouts records in each attempt the time limit it ran under: every
// attempt of a file has the same (runner.Limits.EffectiveTimeout of its
// est_time).
func setTimeouts(files []report.File, limits runner.Limits) {
	for i := range files {
		f := &files[i]
		t := limits.EffectiveTimeout(float64(f.EstTime))
		for j := range f.AttemptsDetail {
			f.AttemptsDetail[j].Timeout = t
		}
	}
}

// setOffsets records in each attempt when it started, in seconds after
// the run's start as the report says it (started, to the millisecond):
// its place on the run's timeline. files are the report's entries of
// results, attempt for attempt. An attempt starts no earlier than the run;
// a wall clock stepped back in between gives 0.
func setOffsets(files []report.File, results []runner.FileResult, started string) {
	start, err := time.Parse(time.RFC3339Nano, started)
	if err != nil {
		return
	}
	for i := range files {
		for j := range files[i].AttemptsDetail {
			began := results[i].Attempts[j].Started
			if began.IsZero() {
				continue
			}
			offset := report.Seconds(max(began.Sub(start), 0).Seconds())
			files[i].AttemptsDetail[j].Offset = &offset
		}
	}
}

// Host is where a run happens, as its environment and the machine say
// (the GPUs are asked for by runner.GPUQuery): the runner's name, the
// hostname (hostname nil: os.Hostname), the workflow run, the pull request
// of a refs/pull/N/merge ref and the image EnvImage names.
func Host(getenv func(string) string, hostname func() (string, error)) *report.Host {
	if hostname == nil {
		hostname = os.Hostname
	}
	h := &report.Host{
		Runner: getenv("RUNNER_NAME"), Repository: getenv("GITHUB_REPOSITORY"),
		RunID: getenv("GITHUB_RUN_ID"), RunAttempt: getenv("GITHUB_RUN_ATTEMPT"),
		Workflow: getenv("GITHUB_WORKFLOW"), Event: getenv("GITHUB_EVENT_NAME"),
		Job: getenv("GITHUB_JOB"), SHA: getenv("GITHUB_SHA"),
		PR: report.PRNumber(getenv("GITHUB_REF")), Image: getenv(EnvImage),
	}
	if name, err := hostname(); err == nil {
		h.Hostname = name
	}
	return h
}

// GateMode is what calls the metric-history gate in a run.
type GateMode int

const (
	GateOff     GateMode = iota // no gate runs
	GateHook                    // --gate-hook runs after each passed file
	GateAdapter                 // the configuration's gate functions run
)

// Gate is the decision on the metric-history gate of one run: made once,
// by DecideGate, shown by `run` (also with --list-only) and carried in
// the Spec to the runner.
type Gate struct {
	Mode GateMode
	// Line says what calls the gate and why, for the log; "" when there
	// is nothing to say.
	Line string
	// RecordBase is the base directory of the metric records the
	// environment names (MILES_CI_GATE_RECORD_DIR); FreshRecordBase says
	// that, none being named, the run makes a temporary one of its own.
	RecordBase      string
	FreshRecordBase bool
	// Hook is the --gate-hook command (GateHook); Adapter drives the
	// configured gate (GateAdapter).
	Hook    string
	Adapter *runner.GateAdapter
}

// DecideGate decides the gate of a run of suite, of backend b. The gate
// is CUDA-only and needs the store's variable, as in run_suite.py, which
// then makes a record directory when the environment names none; the
// records are made, merged and handed to --gate-hook wherever the
// environment names a base, for any GPU suite. --no-gate turns every gate
// off, --gate-hook replaces the configured one. A CPU suite (one pytest
// process) has none.
func DecideGate(b config.Backend, suite string, getenv func(string) string, hook string, noGate bool, g config.Gate) Gate {
	if b == config.CPU {
		return Gate{}
	}
	d := Gate{RecordBase: getenv(runner.RecordDirEnv)}
	cuda := b == config.CUDA
	store := cuda && getenv(envNeonDatabaseURL) != ""
	switch {
	case noGate:
		if cuda {
			d.Line = "[CI Gate] off: --no-gate"
		}
		return d
	case store && d.RecordBase == "":
		d.FreshRecordBase = true
	}
	switch {
	case hook != "":
		// Without records the hook has nothing to read, and never runs.
		because := envNeonDatabaseURL
		if !store {
			because = runner.RecordDirEnv
		}
		if store || d.RecordBase != "" {
			d.Mode, d.Hook = GateHook, hook
			d.Line = "[CI Gate] on: " + because + " is set; --gate-hook runs after each passed file"
		}
	case !store:
	case !g.Configured:
		d.Line = "[CI Gate] off: " + envNeonDatabaseURL + " is set, but the configuration has no gate section (give --gate-hook COMMAND)"
	default:
		d.Mode = GateAdapter
		d.Line = fmt.Sprintf("[CI Gate] on: %s is set; %s calls %s after each passed file", envNeonDatabaseURL, g.Python, g.Hook)
		d.Adapter = &runner.GateAdapter{
			Python: g.Python, Hook: g.Hook, Store: g.Store, Provenance: g.Provenance, Registry: g.Registry,
			Timeout: time.Duration(g.Timeout) * time.Second, Backend: string(b), Suite: suite,
		}
	}
	return d
}

// runPytest runs a CPU suite as one pytest process, whose status is the
// run's. The files an active entry of the run's quarantine covers are
// left out of it and run after it, each in a pytest of its own
// (runQuarantinedPytest) whose failure does not fail the run; without
// such a file the pytest is the one it always was, argv and all.
func runPytest(ctx context.Context, s Spec, root string) (Outcome, error) {
	p := s.Plan
	for _, fl := range [][2]string{{"--json-report", s.Outputs.JSONReport}, {"--timings-out", s.Outputs.TimingsOut}} {
		if fl[1] != "" {
			fmt.Fprintf(s.ErrOut, "warning: %s applies to GPU suites only; pytest runs CPU suites\n", fl[0])
		}
	}
	// As for a GPU suite, the quarantine is read at the run's start (and
	// a run without one asks the clock nothing).
	var at time.Time
	if len(p.Quarantine) > 0 {
		at = time.Now()
		if s.Now != nil {
			at = s.Now()
		}
	}
	var files []string
	var held []heldFile
	for _, r := range p.Tests {
		if e, ok := quarantine.Find(p.Quarantine, r.File, p.Suite.Name, at); ok {
			held = append(held, heldFile{r.File, e})
			continue
		}
		files = append(files, r.File)
		if i := slices.IndexFunc(p.Quarantine, func(e config.QuarantineEntry) bool { return e.AppliesTo(r.File, p.Suite.Name) }); i >= 0 {
			fmt.Fprintf(s.ErrOut, "warning: the quarantine of %s expired after %s: it protects nothing, and the file runs in the suite's pytest as usual\n",
				textfmt.Term(r.File), p.Quarantine[i].UntilText())
		}
	}
	timeout := 0
	if s.OneFile {
		timeout = runner.FileTimeout(s.TimeoutPerFile, p.Tests[0].EstTime)
	}
	code := 0
	if len(files) > 0 {
		var err error
		code, err = runner.RunPytest(ctx, runner.PytestOptions{
			Root: root, Files: files, ContinueOnError: p.ContinueOnError, JUnitXML: s.Outputs.JUnitXML,
			Env: s.Env, Out: s.Out, ErrOut: s.ErrOut, Start: s.Start, Timeout: timeout,
		})
		if err != nil {
			return Outcome{}, err
		}
	}
	// A fast-failing run stops at its first failure, as it does before a
	// GPU suite's next file.
	if len(held) > 0 && ctx.Err() == nil && (code == 0 || p.ContinueOnError) {
		if err := runQuarantinedPytest(ctx, s, root, held, len(files) > 0); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Code: code, Interrupted: ctx.Err() != nil}, nil
}

// heldFile is a file of a CPU suite that an active quarantine entry
// covers.
type heldFile struct {
	file  string
	entry config.QuarantineEntry
}

// runQuarantinedPytest runs each held file in a pytest of its own, after
// the suite's, and says what each did as a GPU suite's run says it of a
// quarantined file (showQuarantine): a failure does not fail the run, a
// pass is a candidate for release. A file's own pytest runs all its tests
// (no -x). With --junit-xml each writes a JUnit XML of its own, added to
// the suite's (report.AddQuarantinedPytest) with its failures skipped;
// suiteRan says the suite's pytest wrote that file.
func runQuarantinedPytest(ctx context.Context, s Spec, root string, held []heldFile, suiteRan bool) error {
	var tmp string
	if s.Outputs.JUnitXML != "" {
		var err error
		if tmp, err = os.MkdirTemp("", "miles-ci-quarantine-"); err != nil {
			return fmt.Errorf("quarantined files' JUnit XML: %w", err)
		}
		defer os.RemoveAll(tmp)
	}
	var notes []quarantine.Note
	var parts []report.PytestPart
	for i, h := range held {
		if ctx.Err() != nil {
			break
		}
		f := &report.File{File: h.file, Status: report.Pass, Quarantined: true, QuarantineReason: h.entry.Reason,
			QuarantineUntil: h.entry.UntilText(), QuarantineOwner: h.entry.Owner}
		fmt.Fprintf(s.Out, "[CI Quarantine] %s runs in a pytest of its own, whose failure does not fail the run: %s\n",
			textfmt.Term(h.file), textfmt.Term(report.QuarantineNote(f)))
		junit := ""
		if tmp != "" {
			junit = filepath.Join(tmp, fmt.Sprintf("%d.xml", i))
		}
		code, err := runner.RunPytest(ctx, runner.PytestOptions{
			Root: root, Files: []string{h.file}, ContinueOnError: true, JUnitXML: junit,
			Env: s.Env, Out: s.Out, ErrOut: s.ErrOut, Start: s.Start,
		})
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			break // interrupted: it says nothing of the test
		}
		kind := quarantine.Candidate
		if code != 0 {
			f.Status, f.Reason, kind = report.Fail, fmt.Sprintf("exit code %d", code), quarantine.Forgiven
		}
		notes = append(notes, quarantine.Note{Kind: kind, File: f, Entry: h.entry})
		part := report.PytestPart{File: f}
		if junit != "" {
			if part.XML, err = os.ReadFile(junit); err != nil && !os.IsNotExist(err) {
				return fmt.Errorf("quarantined %q: %w", h.file, err)
			}
		}
		parts = append(parts, part)
	}
	showQuarantine(s, notes)
	if s.Outputs.JUnitXML == "" || len(parts) == 0 {
		return nil
	}
	if st, err := os.Stat(s.Outputs.JUnitXML); err == nil && !st.Mode().IsRegular() {
		// A device or a pipe (/dev/stdout) cannot be read back: pytest
		// wrote the suite's there, and the quarantined files' are left out.
		fmt.Fprintf(s.ErrOut, "warning: --junit-xml %s is not a regular file: the quarantined files' JUnit XML is not added to it\n", textfmt.Term(s.Outputs.JUnitXML))
		return nil
	}
	var main []byte
	if suiteRan {
		var err error
		if main, err = os.ReadFile(s.Outputs.JUnitXML); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("read pytest's JUnit XML: %w", err)
		}
	}
	data, err := report.AddQuarantinedPytest(main, parts)
	if err != nil {
		return err
	}
	return fsutil.WriteFile(s.Outputs.JUnitXML, data)
}
