package cli

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/timings"
)

// TimingsApplyOptions are the flags of `miles-ci timings apply`.
type TimingsApplyOptions struct {
	Inputs         []string
	Suite          string
	HW             string
	Threshold      string
	MinRuns        int
	Check          bool
	Diff           bool
	TimeoutPerFile int
	// From is --from: a history (a directory of run reports or a
	// PostgreSQL URL) whose passed attempts are measurements too, narrowed
	// by the filter flags; Quantile the figure of a file's runs ("" the
	// median).
	From string
	historyFilterFlags
	Quantile string
}

// The defaults of timings apply's flags, which a suggested command leaves
// out.
const (
	applyDefaultThreshold = "25%,60s"
	applyDefaultMinRuns   = 1
	applyDefaultTimeout   = 1800
)

// newCmdTimingsApply builds `miles-ci timings apply`.
func newCmdTimingsApply(f *Factory) *cobra.Command {
	opts := &TimingsApplyOptions{}
	cmd := &cobra.Command{
		Use:   "apply {FILE... | --from DIR|URL} [--suite S | --hw HW] [--quantile Q] [--check | --diff]",
		Short: "Rewrite the est_time of register calls from measured timings",
		Long: `Rewrite the est_time literal of each measured test file's register call
from the timings files of one or more runs (see "miles-ci help reports"), or
from the run history with --from (see "miles-ci help history"). The figure of
a file is the median of its runs, or their --quantile (0.9 keeps a file's
p90 within the time limit its est_time earns); a file measured in fewer than
--min-runs runs is left alone. A value changes when the measured time is off
by more than both parts of --threshold, and becomes the measured time rounded
up to two significant digits. Only the literal changes; every other byte of the
file stays. The calls that change are those of the suite that measured the
file, which timings written by run --timings-out name; for older timings,
--hw or --suite says which calls the seconds belong to. Only registered test
files below the root are written. --check changes nothing and exits 1
listing each drifted call; --diff prints a unified diff and changes nothing.`,
		Example: `  miles-ci timings apply timings.json
  miles-ci timings apply --hw cuda --min-runs 3 run1.json run2.json run3.json
  miles-ci timings apply --check nightly/*.json
  miles-ci timings apply --from reports/ --quantile 0.9 --last 20`,
		Args: func(cmd *cobra.Command, args []string) error {
			if opts.From != "" {
				return nil
			}
			return needInputs("one or more timings files, as run --timings-out or timings merge writes them, or --from a history")(cmd, args)
		},
		Annotations: finishOnSignal("rewrites the est_time of test files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			return timingsApplyRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	flagkind.String(fl, &opts.Suite, "suite", "", "timings that do not name their suite measured this `SUITE`: only its register calls change", flagkind.Choice)
	flagkind.Set(fl.VarPF(&argparse.Choice{Flag: "--hw", Target: &opts.HW, Choices: []string{"cpu", "cuda", "rocm"}}, "hw", "",
		"timings that do not name their suite were measured on `HW` runners (cpu, cuda or rocm): only that backend's register calls change"), flagkind.Choice)
	flagkind.String(fl, &opts.Threshold, "threshold", "", "change a value only when the measured time is off by more than `PCT%,SECONDSs` (both)", flagkind.Text)
	opts.Threshold = applyDefaultThreshold
	fl.Lookup("threshold").DefValue = opts.Threshold
	flagkind.Set(fl.VarPF(intValue{&opts.MinRuns}, "min-runs", "", "leave alone a file measured in fewer than `N` runs"), flagkind.Number)
	opts.MinRuns = applyDefaultMinRuns
	fl.Lookup("min-runs").DefValue = strconv.Itoa(applyDefaultMinRuns)
	flagkind.Set(fl.VarPF(intValue{&opts.TimeoutPerFile}, "timeout-per-file", "", "the runs' per-file time limit in `SECONDS`, for the 80% warning"), flagkind.Number)
	opts.TimeoutPerFile = applyDefaultTimeout
	fl.Lookup("timeout-per-file").DefValue = strconv.Itoa(applyDefaultTimeout)
	flagkind.String(fl, &opts.From, "from", "", "also measure the passed attempts of the run history at `DIR|URL` (a directory of run reports or a PostgreSQL URL)", flagkind.Text)
	opts.historyFilterFlags.bind(fl, false)
	flagkind.String(fl, &opts.Quantile, "quantile", "", "the figure of a file's runs: a quantile `Q` above 0 and at most 1, or pNN (default 0.5, the median)", flagkind.Text)
	fl.BoolVar(&opts.Check, "check", false, "change nothing; exit 1 listing each drifted est_time")
	fl.BoolVar(&opts.Diff, "diff", false, "print a unified diff of the changes instead of writing them")
	return cmd
}

// intValue is a non-negative int flag with a plain error message.
type intValue struct{ p *int }

func (v intValue) String() string { return strconv.Itoa(*v.p) }
func (v intValue) Type() string   { return "int" }
func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a whole number >= 0", s)
	}
	*v.p = n
	return nil
}

// timingsApplyRun is the edges of timings apply: it reads the timings
// files, the registry's file list and each measured file, prints what
// package timings decides (as applyLines says), and writes the files it
// changes.
func timingsApplyRun(ctx context.Context, f *Factory, opts *TimingsApplyOptions) error {
	aopts, filter, err := opts.applyOptions(f.now())
	if err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if opts.Suite != "" {
		if _, ok := cfg.Suite(opts.Suite); !ok {
			return usageErrorf("--suite: unknown suite %q", opts.Suite)
		}
	}
	m, err := applyMeasurements(ctx, f, opts, filter)
	if err != nil {
		return err
	}
	discovered, err := registry.Discover(f.Root, cfg)
	if err != nil {
		return err
	}
	registered := make(map[string]bool, len(discovered))
	for _, file := range discovered {
		registered[file] = true
	}
	apply := timings.NewApply(cfg, aopts, m, registered)
	say := applySay{f: f, gha: f.Getenv != nil && f.Getenv("GITHUB_ACTIONS") == "true"}
	for _, fd := range apply.Skipped {
		say.lines(findingLines(fd, say.gha))
	}
	for _, t := range apply.Targets {
		applyFile(f, apply, &aopts, t, say)
	}
	o := apply.Outcome()
	say.lines(outcomeLines(o, aopts.Mode, func(mode timings.Mode, narrow ...string) string { return opts.command(f, mode, narrow...) }))
	if o.Exit != 0 {
		return &ExitError{Code: o.Exit}
	}
	return nil
}

// applyFile reads one file apply targets, prints its plan, and prints
// its diff or writes it as the mode says.
func applyFile(f *Factory, apply *timings.Apply, aopts *timings.ApplyOptions, t timings.Target, say applySay) {
	orig, err := fsutil.ReadForRewriteBelow(f.Root, t.File, registry.MaxFileSize)
	if err != nil {
		say.lines(findingLines(apply.Unreadable(t.File, err), say.gha))
		return
	}
	plan := apply.Plan(t, orig.Data)
	say.lines(planLines(aopts, plan, say.gha))
	if plan.Text == nil {
		return
	}
	switch aopts.Mode {
	case timings.Diff:
		fmt.Fprint(f.Out, unifiedDiff(t.File, orig.Data, plan.Text))
	case timings.Write:
		if err := fsutil.Rewrite(orig, plan.Text); err != nil {
			say.lines(findingLines(apply.WriteFailed(t.File, err), say.gha))
		}
	}
}

// applyOptions decides from the flags what timings apply does, and which
// runs of the history --from it reads; a usage error names the flag.
func (opts *TimingsApplyOptions) applyOptions(now time.Time) (timings.ApplyOptions, history.Filter, error) {
	th, err := timings.ParseThreshold(opts.Threshold)
	if err != nil {
		return timings.ApplyOptions{}, history.Filter{}, usageErrorf("--threshold: %v", err)
	}
	var q float64
	if opts.Quantile != "" {
		if q, err = timings.ParseQuantile(opts.Quantile); err != nil {
			return timings.ApplyOptions{}, history.Filter{}, usageErrorf("--quantile: %v", err)
		}
	}
	filter, err := opts.filter(now)
	if err != nil {
		return timings.ApplyOptions{}, history.Filter{}, err
	}
	if opts.From == "" && (opts.Cadence != "" || opts.Last > 0 || opts.Days > 0) {
		return timings.ApplyOptions{}, history.Filter{}, usageErrorf("--cadence, --last and --days narrow the history --from reads; give --from DIR|URL")
	}
	if opts.MinRuns < 1 {
		return timings.ApplyOptions{}, history.Filter{}, usageErrorf("--min-runs must be at least 1")
	}
	aopts := timings.ApplyOptions{Suite: opts.Suite, Backend: config.Backend(opts.HW), Threshold: th,
		MinRuns: opts.MinRuns, TimeoutPerFile: opts.TimeoutPerFile, Mode: timings.Write, Quantile: q}
	switch {
	case opts.Check:
		aopts.Mode = timings.Check
	case opts.Diff:
		aopts.Mode = timings.Diff
	}
	// --suite narrows the history too: --last N then counts that suite's
	// runs, not every suite's.
	filter.Suite = opts.Suite
	return aopts, filter, nil
}

// applyMeasurements reads the measurements timings apply is given: the
// timings files, then the passed attempts of the history --from names
// (if any) that filter keeps.
func applyMeasurements(ctx context.Context, f *Factory, opts *TimingsApplyOptions, filter history.Filter) (timings.Measurements, error) {
	m := timings.Measurements{}
	for _, path := range opts.Inputs {
		d, err := timings.ReadDocument(path)
		if err != nil {
			return nil, err
		}
		m.Add(d)
	}
	if opts.From != "" {
		answer, err := askTimings(ctx, f, opts.From, filter)
		if err != nil {
			return nil, err
		}
		for k, runs := range answer.Measurements() {
			m[k] = append(m[k], runs...)
		}
	}
	return m, nil
}

// applyLine is a line timings apply prints, without its newline: on
// stderr (a finding, a hint) or stdout (a changed value, an annotation).
type applyLine struct {
	stderr bool
	text   string
}

// applySay prints applyLines to f's writers.
type applySay struct {
	f   *Factory
	gha bool // under GitHub Actions: findings are annotated too
}

func (s applySay) lines(lines []applyLine) {
	for _, l := range lines {
		w := s.f.Out
		if l.stderr {
			w = s.f.ErrOut
		}
		fmt.Fprintln(w, l.text)
	}
}

// annotation is the line that annotates file:line under GitHub Actions;
// none elsewhere.
func annotation(gha bool, level, file string, line int, msg string) []applyLine {
	if !gha {
		return nil
	}
	return []applyLine{{text: ghactions.Annotation{Level: level, File: file, Line: line, Title: "est_time", Message: msg}.String()}}
}

// findingLines is what timings apply prints of a finding: an error or a
// warning naming its file (and line), annotated alike.
func findingLines(fd timings.Finding, gha bool) []applyLine {
	where := fd.File
	if fd.Line > 0 {
		where += ":" + strconv.Itoa(fd.Line)
	}
	prefix, level := "warning", ghactions.LevelWarning
	if fd.Level == timings.LevelError {
		prefix, level = "error", ghactions.LevelError
	}
	return append([]applyLine{{stderr: true, text: prefix + ": " + where + ": " + fd.Msg}},
		annotation(gha, level, fd.File, fd.Line, fd.Msg)...)
}

// planLines is what timings apply prints of one file's plan: its
// findings, then each drifted value (as the mode says: listed as drift
// with --check, as changed when writing, not at all with --diff, whose
// diff says it).
func planLines(aopts *timings.ApplyOptions, plan timings.FilePlan, gha bool) []applyLine {
	file := plan.File
	var out []applyLine
	for _, fd := range plan.Findings {
		out = append(out, findingLines(fd, gha)...)
	}
	for _, e := range plan.Edits {
		msg := fmt.Sprintf("est_time %s drifted: measured %ss (%s of %d run(s)); proposed %d", secs(e.Declared), secs(e.Measured), aopts.FigureName(), e.Runs, e.Proposed)
		switch aopts.Mode {
		case timings.Check:
			out = append(out, applyLine{text: fmt.Sprintf("%s:%d declared %s measured %s proposed %d", file, e.Line, secs(e.Declared), secs(e.Measured), e.Proposed)})
			out = append(out, annotation(gha, ghactions.LevelError, file, e.Line, msg)...)
		case timings.Write:
			out = append(out, applyLine{text: fmt.Sprintf("%s:%d est_time %s -> %d (measured %ss)", file, e.Line, secs(e.Declared), e.Proposed, secs(e.Measured))})
			out = append(out, annotation(gha, ghactions.LevelNotice, file, e.Line, msg)...)
		}
	}
	return out
}

// outcomeLines is how timings apply ends: the notes on what it left
// alone, a hint for each narrowing flag, and, when --check found drift,
// the command that updates it. command spells this command line in a
// mode, a flag narrowed (a hint runs the same mode).
func outcomeLines(o timings.Outcome, mode timings.Mode, command func(mode timings.Mode, narrow ...string) string) []applyLine {
	var out []applyLine
	for _, n := range o.Notes {
		out = append(out, applyLine{stderr: true, text: n})
	}
	for _, n := range o.Narrow {
		out = append(out, applyLine{stderr: true, text: fmt.Sprintf("hint: %s, run: %s", n.Why, command(mode, n.Flag, n.Value))})
	}
	if o.Update {
		out = append(out, applyLine{stderr: true, text: fmt.Sprintf("%d est_time value(s) in %d file(s) drifted; to update them, run: %s", o.Drifted, o.ChangedFiles, command(timings.Write))})
	}
	return out
}

// command is this timings apply as a shell command line, in mode, with
// the flag and value of narrow (if any) replacing the same flag: what a
// hint tells the user to run, runnable as printed from the same directory.
func (opts *TimingsApplyOptions) command(f *Factory, mode timings.Mode, narrow ...string) string {
	argv := []string{"miles-ci"}
	if f.Root != "" && f.Root != "." {
		argv = append(argv, "--root", f.Root)
	}
	if f.ConfigPath != "" {
		argv = append(argv, "--config", f.ConfigPath)
	}
	argv = append(argv, "timings", "apply")
	suite, hw := opts.Suite, opts.HW
	if len(narrow) == 2 {
		switch narrow[0] {
		case "--suite":
			suite = narrow[1]
		case "--hw":
			hw = narrow[1]
		}
	}
	if suite != "" {
		argv = append(argv, "--suite", suite)
	}
	if hw != "" {
		argv = append(argv, "--hw", hw)
	}
	if opts.Threshold != applyDefaultThreshold {
		argv = append(argv, "--threshold", opts.Threshold)
	}
	if opts.MinRuns != applyDefaultMinRuns {
		argv = append(argv, "--min-runs", strconv.Itoa(opts.MinRuns))
	}
	if opts.TimeoutPerFile != applyDefaultTimeout {
		argv = append(argv, "--timeout-per-file", strconv.Itoa(opts.TimeoutPerFile))
	}
	if opts.Quantile != "" {
		argv = append(argv, "--quantile", opts.Quantile)
	}
	if opts.Cadence != "" {
		argv = append(argv, "--cadence", opts.Cadence)
	}
	if opts.Last > 0 {
		argv = append(argv, "--last", strconv.Itoa(opts.Last))
	}
	if opts.Days > 0 {
		argv = append(argv, "--days", strconv.Itoa(opts.Days))
	}
	// A URL is a secret, never printed: the command names the variable a
	// workflow keeps it in.
	fromURL := history.IsURL(opts.From)
	if opts.From != "" && !fromURL {
		if checkReportsPath(opts.From) != nil {
			// Not a path and not a URL: a mistyped secret, never echoed.
			fromURL = true
		} else {
			argv = append(argv, "--from", opts.From)
		}
	}
	switch mode {
	case timings.Check:
		argv = append(argv, "--check")
	case timings.Diff:
		argv = append(argv, "--diff")
	}
	line := textfmt.ShellJoin(argv)
	if fromURL {
		line += ` --from "$` + envHistoryURL + `"`
	}
	var tail []string
	for _, in := range opts.Inputs {
		if strings.HasPrefix(in, "-") {
			tail = append(tail, "--")
			break
		}
	}
	tail = append(tail, opts.Inputs...)
	if len(tail) > 0 {
		line += " " + textfmt.ShellJoin(tail)
	}
	return line
}

// secs prints seconds the shortest way: 600, 1234.5.
func secs(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// unifiedDiff is the `diff -u` of two texts with the same number of lines
// (apply changes literals within lines), three lines of context.
func unifiedDiff(file string, a, b []byte) string {
	al, bl := splitLines(a), splitLines(b)
	if len(al) != len(bl) {
		return ""
	}
	var changed []int
	for i := range al {
		if !bytes.Equal(al[i], bl[i]) {
			changed = append(changed, i)
		}
	}
	if len(changed) == 0 {
		return ""
	}
	var sb strings.Builder
	// A path outside the repository (a --config file) is shown as it is.
	from, to := "a/"+file, "b/"+file
	if strings.HasPrefix(file, "/") {
		from, to = file, file
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	const ctx = 3
	for i := 0; i < len(changed); {
		lo := max(0, changed[i]-ctx)
		j := i
		for j+1 < len(changed) && changed[j+1]-changed[j] <= 2*ctx {
			j++
		}
		hi := min(len(al), changed[j]+ctx+1)
		fmt.Fprintf(&sb, "@@ -%d,%d +%d,%d @@\n", lo+1, hi-lo, lo+1, hi-lo)
		for k := lo; k < hi; k++ {
			if bytes.Equal(al[k], bl[k]) {
				writeDiffLine(&sb, ' ', al[k])
				continue
			}
			writeDiffLine(&sb, '-', al[k])
			writeDiffLine(&sb, '+', bl[k])
		}
		i = j + 1
	}
	return sb.String()
}

func writeDiffLine(sb *strings.Builder, mark byte, line []byte) {
	sb.WriteByte(mark)
	sb.Write(line)
	if !bytes.HasSuffix(line, []byte("\n")) {
		sb.WriteString("\n\\ No newline at end of file\n")
	}
}

func splitLines(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, b)
			break
		}
		out = append(out, b[:i+1])
		b = b[i+1:]
	}
	return out
}
