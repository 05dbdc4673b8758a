package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/timings"
)

// TimingsApplyOptions are the flags of `miles-ci timings apply`.
type TimingsApplyOptions struct {
	Inputs         []string
	Suite          string
	Threshold      string
	MinRuns        int
	Check          bool
	Diff           bool
	TimeoutPerFile int
}

// newCmdTimingsApply builds `miles-ci timings apply`.
func newCmdTimingsApply(f *Factory) *cobra.Command {
	opts := &TimingsApplyOptions{}
	cmd := &cobra.Command{
		Use:   "apply FILE... [--suite S] [--check | --diff]",
		Short: "Rewrite the est_time of register calls from measured timings",
		Long: `Rewrite the est_time literal of each measured test file's register call
from the timings files of one or more runs (see "miles-ci help reports"). The
figure of a file is the median of its runs; a file measured in fewer than
--min-runs runs is left alone. A value changes when the measured time is off
by more than both parts of --threshold, and becomes the measured time rounded
up to two significant digits. Only the literal changes; every other byte of the
file stays. --check changes nothing and exits 1 listing each drifted call;
--diff prints a unified diff and changes nothing.`,
		Example: `  miles-ci timings apply timings.json
  miles-ci timings apply --suite stage-c-8-gpu-h100 --min-runs 3 run1.json run2.json run3.json
  miles-ci timings apply --check nightly/*.json`,
		Args: needInputs("one or more timings files, as run --timings-out or timings merge writes them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			return timingsApplyRun(f, opts)
		},
	}
	fl := cmd.Flags()
	flagkind.String(fl, &opts.Suite, "suite", "", "the timings measured this `SUITE`: only its register calls change", flagkind.Choice)
	flagkind.String(fl, &opts.Threshold, "threshold", "", "change a value only when the measured time is off by more than `PCT%,SECONDSs` (both)", flagkind.Text)
	opts.Threshold = "25%,60s"
	fl.Lookup("threshold").DefValue = opts.Threshold
	flagkind.Set(fl.VarPF(intValue{&opts.MinRuns}, "min-runs", "", "leave alone a file measured in fewer than `N` runs"), flagkind.Number)
	opts.MinRuns = 1
	fl.Lookup("min-runs").DefValue = "1"
	flagkind.Set(fl.VarPF(intValue{&opts.TimeoutPerFile}, "timeout-per-file", "", "the runs' per-file time limit in `SECONDS`, for the 80% warning"), flagkind.Number)
	opts.TimeoutPerFile = 1800
	fl.Lookup("timeout-per-file").DefValue = "1800"
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

// timeoutWarnShare is the share of its effective time limit above which a
// measured file gets a warning: a runner that much slower kills it.
const timeoutWarnShare = 0.8

func timingsApplyRun(f *Factory, opts *TimingsApplyOptions) error {
	th, err := timings.ParseThreshold(opts.Threshold)
	if err != nil {
		return usageErrorf("--threshold: %v", err)
	}
	if opts.MinRuns < 1 {
		return usageErrorf("--min-runs must be at least 1")
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
	m := timings.Measurements{}
	for _, path := range opts.Inputs {
		t, err := timings.Read(path)
		if err != nil {
			return err
		}
		m.Add(t)
	}
	gha := f.Getenv != nil && f.Getenv("GITHUB_ACTIONS") == "true"
	annotate := func(level, file string, line int, msg string) {
		if gha {
			fmt.Fprintln(f.Out, ghactions.Annotation{Level: level, File: file, Line: line, Title: "est_time", Message: msg}.String())
		}
	}
	warn := func(file string, line int, msg string) {
		where := file
		if line > 0 {
			where += ":" + strconv.Itoa(line)
		}
		fmt.Fprintf(f.ErrOut, "warning: %s: %s\n", where, msg)
		annotate(ghactions.LevelWarning, file, line, msg)
	}
	limits := runner.Limits{TimeoutPerFile: opts.TimeoutPerFile}

	files := make([]string, 0, len(m))
	for file := range m {
		files = append(files, file)
	}
	slices.Sort(files)
	var drifted, changedFiles, fewRuns int
	var failures []string
	for _, file := range files {
		runs := m[file]
		if len(runs) < opts.MinRuns {
			fewRuns++
			continue
		}
		measured := timings.Median(runs)
		path := filepath.Join(f.Root, filepath.FromSlash(file))
		orig, err := fsutil.ReadForRewrite(path, registry.MaxFileSize)
		if err != nil {
			if !opts.Check && !opts.Diff && !isNotExist(err) {
				failures = append(failures, fmt.Sprintf("%s: %v", file, err))
				continue
			}
			warn(file, 0, fmt.Sprintf("cannot read it (%v); left alone", err))
			continue
		}
		plan, err := timings.Plan(file, orig.Data, cfg, opts.Suite, measured, th)
		if err != nil {
			msg := err.Error()
			line := 0
			if fe, ok := err.(*registry.FileError); ok {
				line = fe.Line
			}
			warn(file, line, strings.TrimPrefix(msg, file+": ")+"; left alone")
			continue
		}
		for _, k := range plan.Kept {
			warn(file, k.Line, k.Reason)
		}
		proposed := map[int]int64{}
		for _, e := range plan.Edits {
			proposed[e.Line] = e.Proposed
		}
		for _, c := range plan.Calls {
			est := c.EstTime
			if p, ok := proposed[c.Line]; ok && !opts.Check && !opts.Diff {
				est = float64(p)
			}
			if limit := limits.EffectiveTimeout(est); measured > timeoutWarnShare*float64(limit) {
				warn(file, c.Line, fmt.Sprintf("measured %ss is %.0f%% of its %ds per-file time limit (est_time %s); a slower runner kills it",
					secs(measured), 100*measured/float64(limit), limit, secs(est)))
			}
		}
		if len(plan.Edits) == 0 {
			continue
		}
		drifted += len(plan.Edits)
		changedFiles++
		for _, e := range plan.Edits {
			line := fmt.Sprintf("%s:%d declared %s measured %s proposed %d", file, e.Line, secs(e.Declared), secs(e.Measured), e.Proposed)
			msg := fmt.Sprintf("est_time %s drifted: measured %ss (median of %d run(s)); proposed %d", secs(e.Declared), secs(e.Measured), len(runs), e.Proposed)
			switch {
			case opts.Check:
				fmt.Fprintln(f.Out, line)
				annotate(ghactions.LevelError, file, e.Line, msg)
			case opts.Diff:
			default:
				fmt.Fprintf(f.Out, "%s:%d est_time %s -> %d (measured %ss)\n", file, e.Line, secs(e.Declared), e.Proposed, secs(e.Measured))
				annotate(ghactions.LevelNotice, file, e.Line, msg)
			}
		}
		data := timings.Rewrite(orig.Data, plan.Edits)
		if opts.Diff {
			fmt.Fprint(f.Out, unifiedDiff(file, orig.Data, data))
		}
		if opts.Check || opts.Diff {
			continue
		}
		if err := fsutil.Rewrite(orig, data); err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", file, err))
		}
	}
	if fewRuns > 0 {
		fmt.Fprintf(f.ErrOut, "%d file(s) measured in fewer than %d run(s) left alone\n", fewRuns, opts.MinRuns)
	}
	for _, fl := range failures {
		fmt.Fprintln(f.ErrOut, "error: "+fl)
	}
	if len(failures) > 0 {
		return &ExitError{Code: 1}
	}
	if opts.Check && drifted > 0 {
		fmt.Fprintf(f.ErrOut, "%d est_time value(s) in %d file(s) drifted; run `miles-ci timings apply` to update them\n", drifted, changedFiles)
		return &ExitError{Code: 1}
	}
	return nil
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

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
	fmt.Fprintf(&sb, "--- a/%s\n+++ b/%s\n", file, file)
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
