package timings

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pysrc"
	"github.com/radixark/miles-ci/internal/registry"
)

// This file decides what `miles-ci timings apply` does: which measured
// files it reads, which register calls' est_time literals drift, the text
// they become, the warnings, and how the command ends. It reads and writes
// nothing and prints nothing; the CLI does, and tells it what failed.

// Key is one test file as measured by one kind of run: the suite and
// backend that measured it, the zero Source when the timings do not say.
type Key struct {
	File   string
	Source Source
}

// Measurements gathers the timings files of several runs: every measured
// second of each file, by the run that measured it, in the order the files
// were given.
type Measurements map[Key][]float64

// Add records one run's timings.
func (m Measurements) Add(d *Document) {
	for f, v := range d.Seconds {
		k := Key{File: f, Source: d.Sources[f]}
		m[k] = append(m[k], v)
	}
}

// Median is the figure apply uses by default for a file measured in
// several runs: the middle value, or the mean of the two middle ones for
// an even count. One slow or fast run does not move it, which a mean or
// the last run would.
func Median(values []float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	return median(s)
}

func median(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Quantile is the q-quantile (0 <= q <= 1) of values, interpolated
// linearly between the order statistics: with the n values sorted as
// x[0..n-1] and h = (n-1)q, it is x[floor h] + (h - floor h)(x[floor h + 1]
// - x[floor h]). This is numpy's default and Python's
// statistics.quantiles(method="inclusive"): the 0- and 1-quantiles are the
// least and the greatest value, and no figure lies outside what was
// measured. The 0.5-quantile is Median, exactly. No value is 0.
func Quantile(values []float64, q float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	return SortedQuantile(s, q)
}

// SortedQuantile is Quantile of values already sorted ascending.
func SortedQuantile(s []float64, q float64) float64 {
	n := len(s)
	switch {
	case n == 0:
		return 0
	case q == 0.5:
		return median(s)
	case q <= 0:
		return s[0]
	case q >= 1:
		return s[n-1]
	}
	h := float64(n-1) * q
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return s[n-1]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// ParseQuantile reads a --quantile value: a number above 0 and at most 1
// (0.9), or a percentile written pNN (p90, p99.5). The 0-quantile, the
// fastest run, is no figure to plan or time out by.
func ParseQuantile(s string) (float64, error) {
	num, pct := strings.CutPrefix(s, "p")
	v, err := strconv.ParseFloat(num, 64)
	if pct {
		v /= 100
	}
	if err != nil || math.IsNaN(v) || v <= 0 || v > 1 || num != strings.TrimSpace(num) || num == "" {
		return 0, fmt.Errorf("invalid quantile %q: expected a number above 0 and at most 1 (0.9) or a percentile (p90)", s)
	}
	return v, nil
}

// QuantileName names the q-quantile in messages and headings: "median"
// for 0.5, else the percentile, "p90", "p99.5".
func QuantileName(q float64) string {
	if q == 0.5 {
		return "median"
	}
	// q*100 in floating point is 56.99999999999999 for 0.57: a quantile
	// is named to a millionth of a percent, which a flag gives.
	return "p" + strconv.FormatFloat(math.Round(q*1e8)/1e6, 'f', -1, 64)
}

// Threshold says how far a measured time must be from the declared
// est_time for apply to change it: by more than Rel times the declared
// value and by more than Abs seconds, both.
type Threshold struct {
	Rel float64 // a fraction: 0.25 is 25%
	Abs float64 // seconds
}

// DefaultThreshold is 25% and 60 seconds: a shard plan shrugs at less, and
// CI times vary by about that much from run to run.
var DefaultThreshold = Threshold{Rel: 0.25, Abs: 60}

// ParseThreshold reads a --threshold value: "25%", "60s", or both joined by
// a comma ("25%,60s"). A part left out is 0, so "0" or "0%" alone makes
// every difference count.
func ParseThreshold(s string) (Threshold, error) {
	var th Threshold
	var sawRel, sawAbs bool
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		var num string
		var rel bool
		switch {
		case strings.HasSuffix(part, "%"):
			num, rel = strings.TrimSuffix(part, "%"), true
		case strings.HasSuffix(part, "s"):
			num = strings.TrimSuffix(part, "s")
		case part == "0":
			num, rel = "0", true
		default:
			return Threshold{}, fmt.Errorf("invalid threshold %q: expected PERCENT%%, SECONDSs or both, as 25%%,60s", s)
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || num != strings.TrimSpace(num) {
			return Threshold{}, fmt.Errorf("invalid threshold %q: %q is not a number >= 0", s, part)
		}
		if rel {
			if sawRel {
				return Threshold{}, fmt.Errorf("invalid threshold %q: two percentages", s)
			}
			th.Rel, sawRel = v/100, true
		} else {
			if sawAbs {
				return Threshold{}, fmt.Errorf("invalid threshold %q: two second counts", s)
			}
			th.Abs, sawAbs = v, true
		}
	}
	return th, nil
}

// Drifted reports whether measured is past the threshold from declared.
func (th Threshold) Drifted(declared, measured float64) bool {
	d := math.Abs(measured - declared)
	return d > th.Abs && d > th.Rel*declared
}

// Round is the est_time apply writes for a measured time: the seconds
// rounded up to two significant digits, and to a whole number of at least
// 1 (7.2 → 8, 187 → 190, 1234 → 1300, 12345 → 13000), the kind of value
// a person writes; for the seconds a timings file holds (at most
// MaxSeconds) it is at most 3,100,000. Up, so that the time limit the
// value earns (registry.TimeLimit) stays above the measured time.
func Round(seconds float64) int64 {
	if seconds <= 1 || math.IsNaN(seconds) {
		return 1
	}
	c := math.Ceil(seconds - 1e-9) // 60.0000000001 is 60, not 61
	if c < 100 {
		return int64(c)
	}
	step := math.Pow(10, math.Floor(math.Log10(c))-1)
	return int64(math.Ceil(c/step) * step)
}

// Mode is what apply does with the changes it decides.
type Mode int

// The modes: write the files, or only list the drifted calls and fail
// (--check), or print the diff (--diff).
const (
	Write Mode = iota
	Check
	Diff
)

// ApplyOptions are the choices of one `timings apply`.
type ApplyOptions struct {
	// Suite and Backend (--suite, --hw) narrow the register calls that
	// seconds of an unknown source may change, and drop the measurements
	// whose source is another suite or backend; "" narrows nothing.
	Suite     string
	Backend   config.Backend
	Threshold Threshold
	// MinRuns leaves alone a file measured in fewer runs.
	MinRuns int
	// TimeoutPerFile is the runs' per-file timeout, for the warning on a
	// file measured near its time limit.
	TimeoutPerFile int
	Mode           Mode
	// Quantile is the figure of a file measured in several runs: the
	// Quantile of its runs' seconds; 0 is the median (0.5).
	Quantile float64
}

// figure is the quantile of a file's runs that apply takes.
func (o *ApplyOptions) figure() float64 {
	if o.Quantile == 0 {
		return 0.5
	}
	return o.Quantile
}

// figureOf is the figure of a file's runs: the median as it always was,
// any other quantile to the millisecond (the precision of a report's
// seconds: an interpolation between runs adds none).
func (o *ApplyOptions) figureOf(runs []float64) float64 {
	q := o.figure()
	if q == 0.5 {
		return Median(runs)
	}
	return math.Round(Quantile(runs, q)*1000) / 1000
}

// FigureName names the figure apply takes of a file's runs: "median",
// "p90".
func (o *ApplyOptions) FigureName() string { return QuantileName(o.figure()) }

// timeoutWarnShare is the share of its time limit above which a measured
// file gets a warning: a runner that much slower kills it.
const timeoutWarnShare = 0.8

// Level is how much a finding weighs: an error fails the command.
type Level int

// The levels of a finding.
const (
	LevelNotice Level = iota
	LevelWarning
	LevelError
)

// Finding is what apply says about a file (at a line of it, or 0).
type Finding struct {
	File  string
	Line  int
	Level Level
	Msg   string
}

// Measured is the figure of a file for one source: the median (or the
// quantile ApplyOptions.Quantile names) of its runs.
type Measured struct {
	Source  Source
	Runs    int
	Seconds float64
}

// Target is a file apply reads, with its figures, one per source.
type Target struct {
	File     string
	Measured []Measured
}

// Apply is one run of `timings apply`: built from the measurements, it
// lists the files to read (Targets), plans each file from its text (Plan),
// is told what could not be read or written, and decides how the run ends
// (Outcome).
type Apply struct {
	cfg   *config.Config
	opts  ApplyOptions
	names map[string]bool
	// Targets are the files to read, sorted; Skipped says why the other
	// measured files are not, one finding each.
	Targets []Target
	Skipped []Finding

	fewRuns, otherRuns    int
	drifted, changedFiles int
	failures              int
	narrow                map[Source]bool
}

// NewApply decides which measured files apply reads. A measurement taken
// by another suite or backend than --suite/--hw narrows to, or in fewer
// than MinRuns runs, is left alone and counted; a file that is not one of
// the registered test files (registered, the registry's discovered files)
// is left alone with a warning: a timings file written by CI names the
// files of the commit it ran on, which may since be gone or moved. Only
// files of registered are ever read, and so ever written.
func NewApply(cfg *config.Config, opts ApplyOptions, m Measurements, registered map[string]bool) *Apply {
	a := &Apply{cfg: cfg, opts: opts, names: map[string]bool{}, narrow: map[Source]bool{}}
	for _, f := range cfg.RegisterFuncs {
		a.names[f.Name] = true
	}
	byFile := map[string][]Measured{}
	for k, runs := range m {
		src := k.Source
		switch {
		case src.Suite != "" && (opts.Suite != "" && src.Suite != opts.Suite || opts.Backend != "" && src.Backend != opts.Backend):
			a.otherRuns++
		case len(runs) < opts.MinRuns:
			a.fewRuns++
		default:
			byFile[k.File] = append(byFile[k.File], Measured{Source: src, Runs: len(runs), Seconds: opts.figureOf(runs)})
		}
	}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		if !registered[f] {
			a.Skipped = append(a.Skipped, Finding{File: f, Level: LevelWarning,
				Msg: "not a test file of the repository (none of that name below the discovery roots: deleted, renamed or never one); left alone"})
			continue
		}
		ms := byFile[f]
		slices.SortFunc(ms, func(x, y Measured) int {
			return strings.Compare(x.Source.Suite+"\x00"+string(x.Source.Backend), y.Source.Suite+"\x00"+string(y.Source.Backend))
		})
		a.Targets = append(a.Targets, Target{File: f, Measured: ms})
	}
	return a
}

// Edit is one est_time literal that apply replaces.
type Edit struct {
	Line     int // of the register call
	Suite    string
	Backend  config.Backend
	Start    int // byte offsets of the literal in the file
	End      int
	Declared float64
	Measured float64
	Runs     int
	Proposed int64
}

// Text is the literal's new text.
func (e Edit) Text() string { return strconv.FormatInt(e.Proposed, 10) }

// FilePlan is what apply does to one test file: the edits, the text they
// make (nil without edits), and the findings, in the order to show them.
type FilePlan struct {
	File     string
	Edits    []Edit
	Text     []byte
	Findings []Finding
}

func (p *FilePlan) add(line int, level Level, format string, args ...any) {
	p.Findings = append(p.Findings, Finding{File: p.File, Line: line, Level: level, Msg: fmt.Sprintf(format, args...)})
}

// Plan decides the edits of the target's file, whose text is src. The
// register calls a figure changes are those of the suite and backend that
// measured it; for a figure whose timings do not say, those --suite and
// --hw leave, which must be the calls of one suite and backend: a file
// registering a CUDA and a ROCm suite is otherwise an error, since the
// seconds of one backend's runners say nothing of the other's.
func (a *Apply) Plan(t Target, src []byte) FilePlan {
	p := FilePlan{File: t.File}
	regs, ferr := registry.FileRegistrations(t.File, src, a.cfg, a.names)
	if ferr != nil {
		p.add(ferr.Line, LevelWarning, "%s; left alone", strings.TrimPrefix(ferr.Msg, t.File+": "))
		return p
	}
	calls, err := pysrc.ReadCalls(src, a.names)
	switch {
	case err != nil: // the registry accepted the file: never reached
		p.add(0, LevelWarning, "%v; left alone", err)
		return p
	case len(regs) == 1 && regs[0].Implicit:
		p.add(0, LevelWarning, "registers nothing; its est_time is the implicit suite's, not written in the file; left alone")
		return p
	case len(regs) != len(calls):
		p.add(0, LevelWarning, "%d register calls read as %d registrations; left alone", len(calls), len(regs))
		return p
	}
	type choice struct {
		m     Measured
		calls []int
	}
	var chosen []choice
	claimed := map[int]Source{}
	for _, m := range t.Measured {
		idx := a.match(regs, m.Source)
		if len(idx) == 0 {
			p.add(0, LevelWarning, "%s; left alone", a.noCall(m.Source))
			continue
		}
		if first := regs[idx[0]]; m.Source.Suite == "" {
			var other *registry.Registration
			for _, i := range idx[1:] {
				if regs[i].Suite != first.Suite || regs[i].Backend != first.Backend {
					other = &regs[i]
					break
				}
			}
			if other != nil {
				a.failures++
				for _, i := range idx {
					a.narrow[Source{Suite: regs[i].Suite, Backend: regs[i].Backend}] = true
				}
				p.add(0, LevelError, "registers for %s (%s, line %d) and %s (%s, line %d), and the timings do not say which of them measured it; left alone",
					first.Suite, first.Backend, first.Line, other.Suite, other.Backend, other.Line)
				continue
			}
		}
		clash := false
		for _, i := range idx {
			if prev, ok := claimed[i]; ok && prev != m.Source {
				clash = true
			}
		}
		if clash {
			a.failures++
			p.add(regs[idx[0]].Line, LevelError, "measured both as %s and as %s, which name the same register call; left alone", describe(claimed[idx[0]]), describe(m.Source))
			continue
		}
		for _, i := range idx {
			claimed[i] = m.Source
		}
		chosen = append(chosen, choice{m, idx})
	}
	for _, c := range chosen {
		if !(c.m.Seconds >= 0 && c.m.Seconds <= MaxSeconds) {
			a.failures++
			p.add(0, LevelError, "measured %s seconds, which no run takes; left alone", secs(c.m.Seconds))
			continue
		}
		for _, i := range c.calls {
			r := regs[i]
			est := r.EstTime
			if e, kept := a.edit(src, r, calls[i], c.m); kept != "" {
				p.add(r.Line, LevelWarning, "%s", kept)
			} else if e != nil {
				p.Edits = append(p.Edits, *e)
				if a.opts.Mode == Write {
					est = float64(e.Proposed)
				}
			}
			if limit := registry.TimeLimit(a.opts.TimeoutPerFile, est); c.m.Seconds > timeoutWarnShare*limit {
				p.add(r.Line, LevelWarning, "measured %ss is %.0f%% of its %ss per-file time limit (est_time %s); a slower runner kills it",
					secs(c.m.Seconds), 100*c.m.Seconds/limit, secs(limit), secs(est))
			}
		}
	}
	if len(p.Edits) == 0 {
		return p
	}
	slices.SortFunc(p.Edits, func(x, y Edit) int { return x.Start - y.Start })
	text := Rewrite(src, p.Edits)
	if problem := readsBack(t.File, text, a.cfg, a.names, p.Edits); problem != "" {
		a.failures++
		p.add(0, LevelError, "the new text would read back %s; left alone", problem)
		p.Edits = nil
		return p
	}
	p.Text = text
	a.drifted += len(p.Edits)
	a.changedFiles++
	return p
}

// match returns the register calls (indexes into regs) that seconds of
// source src concern.
func (a *Apply) match(regs []registry.Registration, src Source) []int {
	roster, inRoster := a.cfg.Suite(a.opts.Suite)
	var out []int
	for i, r := range regs {
		switch {
		case src.Suite != "":
			if r.Suite != src.Suite || r.Backend != src.Backend {
				continue
			}
		case a.opts.Suite != "" && r.Suite != a.opts.Suite:
			continue
		// A suite of the roster runs one backend: a file registering the
		// suite's name for cuda and rocm was measured by the roster's one.
		case a.opts.Suite != "" && inRoster && r.Backend != roster.Backend:
			continue
		case a.opts.Backend != "" && r.Backend != a.opts.Backend:
			continue
		}
		out = append(out, i)
	}
	return out
}

// noCall says that no register call matches seconds of src.
func (a *Apply) noCall(src Source) string {
	switch {
	case src.Suite != "":
		return fmt.Sprintf("measured by suite %s (%s), but no register call of the file names it", src.Suite, src.Backend)
	case a.opts.Suite != "" && a.opts.Backend != "":
		return fmt.Sprintf("no register call of suite %s for %s", a.opts.Suite, a.opts.Backend)
	case a.opts.Suite != "":
		return fmt.Sprintf("no register call of suite %s", a.opts.Suite)
	}
	return fmt.Sprintf("no register call for %s", a.opts.Backend)
}

// describe names a source in a message.
func describe(src Source) string {
	if src.Suite == "" {
		return "an unnamed run"
	}
	return fmt.Sprintf("suite %s (%s)", src.Suite, src.Backend)
}

// edit decides the edit of one register call for the figure m: nil when
// the declared value is within the threshold or already the proposed one,
// or the reason it is kept although it drifted.
func (a *Apply) edit(src []byte, r registry.Registration, call pysrc.Call, m Measured) (*Edit, string) {
	if !a.opts.Threshold.Drifted(r.EstTime, m.Seconds) {
		return nil, ""
	}
	v, ok := estTimeValue(call)
	if !ok || !plainNumber(src[v.Start:v.End]) {
		text := "?"
		if ok {
			text = string(src[v.Start:v.End])
		}
		return nil, fmt.Sprintf("est_time %s is not a plain number literal; left alone", text)
	}
	proposed := Round(m.Seconds)
	if float64(proposed) == r.EstTime {
		return nil, ""
	}
	return &Edit{Line: r.Line, Suite: r.Suite, Backend: r.Backend, Start: v.Start, End: v.End,
		Declared: r.EstTime, Measured: m.Seconds, Runs: m.Runs, Proposed: proposed}, ""
}

// readsBack checks the rewritten text as every reader will: the registry
// must accept it and read each edited call's est_time as the value
// written, every other registration as it was. It returns what differs,
// "" when nothing does: apply never writes a file the registry refuses.
func readsBack(file string, text []byte, cfg *config.Config, names map[string]bool, edits []Edit) string {
	regs, ferr := registry.FileRegistrations(file, text, cfg, names)
	if ferr != nil {
		return "as an error: " + ferr.Msg
	}
	want := map[int]int64{}
	for _, e := range edits {
		want[e.Line] = e.Proposed
	}
	for _, r := range regs {
		if v, ok := want[r.Line]; ok && r.EstTime != float64(v) {
			return fmt.Sprintf("est_time %s at line %d instead of %d", secs(r.EstTime), r.Line, v)
		}
	}
	return ""
}

// Unreadable records that the CLI could not read a target's file (err
// names why, without the path). Writing, that fails the run: the file
// was to be changed. Checking or diffing, a file that cannot be read for
// rewriting is a warning, as is a file gone since the registry listed it.
func (a *Apply) Unreadable(file string, err error) Finding {
	if a.opts.Mode == Write && !errors.Is(err, fs.ErrNotExist) {
		a.failures++
		return Finding{File: file, Level: LevelError, Msg: err.Error()}
	}
	return Finding{File: file, Level: LevelWarning, Msg: fmt.Sprintf("cannot read it (%v); left alone", err)}
}

// WriteFailed records that the CLI could not write a file's new text.
func (a *Apply) WriteFailed(file string, err error) Finding {
	a.failures++
	return Finding{File: file, Level: LevelError, Msg: err.Error()}
}

// Outcome is how a run of apply ends.
type Outcome struct {
	// Exit is the exit status: 1 when a file failed (unreadable or
	// unwritable for writing, ambiguous, refused) or --check found drift.
	Exit int
	// Notes are the closing lines about what was left alone.
	Notes []string
	// Drifted and ChangedFiles count the changed (or, checking, drifted)
	// est_time values and their files.
	Drifted, ChangedFiles int
	// Update says that --check found drift: the same command without
	// --check writes the values.
	Update bool
	// Narrow lists, for the files whose timings did not say which of
	// their suites measured them, the choices --hw (when they differ in
	// backend) or --suite would make: one command to suggest for each.
	Narrow []Narrowing
}

// Narrowing is one flag and value that would settle which register calls
// the seconds of an unnamed run belong to.
type Narrowing struct {
	Flag, Value string
	// Why says when it is the right one, for the hint.
	Why string
}

// Outcome decides how the run ends, once every target was planned.
func (a *Apply) Outcome() Outcome {
	o := Outcome{Drifted: a.drifted, ChangedFiles: a.changedFiles}
	if a.fewRuns > 0 {
		o.Notes = append(o.Notes, fmt.Sprintf("%d file(s) measured in fewer than %d run(s) left alone", a.fewRuns, a.opts.MinRuns))
	}
	if a.otherRuns > 0 {
		o.Notes = append(o.Notes, fmt.Sprintf("%d file(s) measured by other suites than --suite/--hw name left alone", a.otherRuns))
	}
	o.Narrow = a.narrowings()
	switch {
	case a.failures > 0:
		o.Exit = 1
	case a.opts.Mode == Check && a.drifted > 0:
		o.Exit = 1
		o.Update = true
	}
	return o
}

// narrowings turns the ambiguous files' choices into flags: --hw per
// backend when they span several backends, else --suite per suite.
func (a *Apply) narrowings() []Narrowing {
	if len(a.narrow) == 0 {
		return nil
	}
	backends := map[config.Backend]bool{}
	suites := map[string]bool{}
	for s := range a.narrow {
		backends[s.Backend] = true
		suites[s.Suite] = true
	}
	var out []Narrowing
	if len(backends) > 1 && a.opts.Backend == "" {
		for b := range backends {
			out = append(out, Narrowing{Flag: "--hw", Value: string(b), Why: fmt.Sprintf("if they were measured on %s runners", b)})
		}
	} else {
		for s := range suites {
			out = append(out, Narrowing{Flag: "--suite", Value: s, Why: fmt.Sprintf("if they were measured by suite %s", s)})
		}
	}
	slices.SortFunc(out, func(x, y Narrowing) int { return strings.Compare(x.Value, y.Value) })
	return out
}

// secs prints seconds the shortest way: 600, 1234.5.
func secs(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// estTimeValue returns the est_time argument of a call the registry
// accepted: the first positional argument, or the est_time keyword.
func estTimeValue(c pysrc.Call) (pysrc.Value, bool) {
	if len(c.Args) > 0 {
		return c.Args[0].Value, c.Args[0].Value.Kind == pysrc.KindConstant
	}
	for _, k := range c.Keywords {
		if k.Name == "est_time" {
			return k.Value, k.Value.Kind == pysrc.KindConstant
		}
	}
	return pysrc.Value{}, false
}

// plainNumber reports whether text is a decimal int or float literal:
// digits, underscores, a point, an exponent. True, 0x3C and 1j are not.
func plainNumber(text []byte) bool {
	if len(text) == 0 || !(text[0] >= '0' && text[0] <= '9' || text[0] == '.') {
		return false
	}
	if len(text) > 1 && text[0] == '0' && strings.ContainsRune("xXoObB", rune(text[1])) {
		return false
	}
	for _, c := range text {
		if !(c >= '0' && c <= '9' || c == '_' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// Rewrite returns src with every edit's literal replaced by its new text
// and every other byte as it was. Edits must not overlap.
func Rewrite(src []byte, edits []Edit) []byte {
	s := slices.Clone(edits)
	slices.SortFunc(s, func(a, b Edit) int { return a.Start - b.Start })
	out := make([]byte, 0, len(src)+8*len(s))
	at := 0
	for _, e := range s {
		out = append(out, src[at:e.Start]...)
		out = append(out, e.Text()...)
		at = e.End
	}
	return append(out, src[at:]...)
}
