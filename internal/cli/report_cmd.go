package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// ReportMergeOptions are the flags of `miles-ci report merge`.
type ReportMergeOptions struct {
	Inputs []string
	Output string // "" for stdout
	// AllowMissing writes a merge that lacks shards, recording them as
	// missing, instead of refusing it.
	AllowMissing bool
}

// ReportSummaryOptions are the flags of `miles-ci report summary`.
type ReportSummaryOptions struct {
	Input    string
	JUnitXML string // "" for none
}

// NewCmdReport builds `miles-ci report`, the home of commands on the JSON
// reports that `run --json-report` writes (package report owns them).
func NewCmdReport(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Work with run reports (merge a suite's shard reports, summarize one, find suspect hosts, triage failures)",
		Args:  groupArgs,
		RunE:  groupRunE,
	}
	cmd.AddCommand(NewCmdReportMerge(f, nil), NewCmdReportSummary(f, nil), NewCmdReportHosts(f, nil), NewCmdReportTriage(f, nil))
	return cmd
}

// NewCmdReportMerge builds `miles-ci report merge`.
func NewCmdReportMerge(f *Factory, runF func(*ReportMergeOptions) error) *cobra.Command {
	opts := &ReportMergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge REPORT... [-o OUT]",
		Short: "Merge one suite's reports; a later report's entry wins for the same file",
		Long: `Merge the JSON reports that the shards of one suite wrote with --json-report,
and those of their --rerun-failed reruns, into the suite's report. Files come in
the order of the reports given; a file listed by several reports takes its entry
from the last one, and its attempts add up, so a file that failed in a shard and
passed in its rerun is flaky. The merged report passed when every file passed.
Reports of different suites or shard counts are an error, and so is a set that
lacks a shard holding tests (each report names its shard and plan): give every
shard's report, or --allow-missing to write the merge with those shards marked
missing (it has not passed, and report summary says so). Without -o it goes to
stdout.`,
		Example:     `  miles-ci report merge shard-0.json shard-1.json shard-0.rerun.json -o suite.json`,
		Args:        needInputs("the reports the shards wrote with run --json-report"),
		Annotations: finishOnSignal("writes the merged report to -o OUT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if runF != nil {
				return runF(opts)
			}
			return reportMergeRun(cmd.Context(), f, opts)
		},
	}
	flagkind.String(cmd.Flags(), &opts.Output, "output", "o", "write the merged report to `OUT` instead of stdout", flagkind.Output, "json")
	cmd.Flags().BoolVar(&opts.AllowMissing, "allow-missing", false, "write the merge even when shards holding tests have no report, recording them as missing")
	return cmd
}

func reportMergeRun(_ context.Context, f *Factory, opts *ReportMergeOptions) error {
	// One report at a time: each is dropped once merged, but for its
	// file entries.
	m := report.Merger{EmptyShards: suite.EmptyShards}
	if err := checkMergeInput(opts.Inputs); err != nil {
		return err
	}
	for _, path := range opts.Inputs {
		r, err := report.Read(path)
		if err != nil {
			return err
		}
		if err := m.Add(r); err != nil {
			return err
		}
	}
	if unscoped, path := m.Unscoped(); unscoped {
		fmt.Fprintf(f.ErrOut, "warning: report %s does not say which shard it covers (an older miles-ci wrote it): the merge cannot tell whether a shard's report is missing\n",
			textfmt.OneLine(strconv.Quote(path)))
	}
	if missing := m.Missing(); len(missing) > 0 && !opts.AllowMissing {
		return &MissingShardsError{Suite: m.Report().Suite, Missing: missing, Size: m.Size()}
	}
	// What report summary would refuse is never written.
	data, err := report.MarshalReadable(m.Report())
	if err != nil {
		return fmt.Errorf("cannot write the merged report: %w", err)
	}
	if opts.Output != "" {
		if err := fsutil.WriteFile(opts.Output, data); err != nil {
			return fmt.Errorf("write report %q: %w", opts.Output, err)
		}
		return nil
	}
	_, err = f.Out.Write(data)
	return err
}

// checkMergeInput refuses, before reading any, reports larger together
// than a merge reads (report.MaxMergeInput). A file that cannot be told
// is left to the reading, which says what is wrong with it.
func checkMergeInput(paths []string) error {
	var total int64
	for _, path := range paths {
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			total += st.Size()
		}
	}
	if total > report.MaxMergeInput {
		return fmt.Errorf("the reports given hold %s together, more than the %s a merge reads: it holds them in memory to write a merged report, which may be at most %s",
			fsutil.FormatSize(total), fsutil.FormatSize(report.MaxMergeInput), fsutil.FormatSize(report.MaxSize))
	}
	return nil
}

// NewCmdReportSummary builds `miles-ci report summary`.
func NewCmdReportSummary(f *Factory, runF func(*ReportSummaryOptions) error) *cobra.Command {
	opts := &ReportSummaryOptions{}
	cmd := &cobra.Command{
		Use:   "summary REPORT [--junit-xml OUT.xml]",
		Short: "Print a report as the Markdown table of the step summary",
		Long: `Print the Markdown that run appends to GITHUB_STEP_SUMMARY, for any report
(a merged suite report gives the whole suite in one table): every file with its
status, attempts and time, then the flaky and the retried files, and a timeline
of the attempts (a Mermaid chart; a merge's has a section per shard). --junit-xml
also writes the report as JUnit XML.`,
		Example:     `  miles-ci report summary suite.json --junit-xml suite.xml >> "$GITHUB_STEP_SUMMARY"`,
		Args:        cobra.ExactArgs(1),
		Annotations: finishOnSignal("writes --junit-xml OUT.xml"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Input = args[0]
			if runF != nil {
				return runF(opts)
			}
			return reportSummaryRun(cmd.Context(), f, opts)
		},
	}
	flagkind.String(cmd.Flags(), &opts.JUnitXML, "junit-xml", "", "also write the report as JUnit XML to `PATH`", flagkind.Output, "xml")
	return cmd
}

func reportSummaryRun(_ context.Context, f *Factory, opts *ReportSummaryOptions) error {
	// The step summary never shows an output tail; only JUnit's
	// system-out does.
	read := report.ReadWithoutOutput
	if opts.JUnitXML != "" {
		read = report.Read
	}
	r, err := read(opts.Input)
	if err != nil {
		return err
	}
	if opts.JUnitXML != "" {
		if err := report.WriteJUnit(opts.JUnitXML, r); err != nil {
			return fmt.Errorf("write JUnit report %q: %w", opts.JUnitXML, err)
		}
	}
	if _, err = fmt.Fprint(f.Out, view.StepSummary(r)); err != nil {
		return err
	}
	// A merge written with --allow-missing shows the shards it lacks, and
	// the step fails: no report says how their tests went.
	if r.Shards != nil && len(r.Shards.Missing) > 0 {
		return &MissingShardsError{Suite: r.Suite, Missing: r.Shards.Missing, Size: r.Shards.Size, Report: opts.Input}
	}
	return nil
}

// MissingShardsError is a merge of a suite's reports that lacks shards
// holding tests: refused by report merge, shown and failed by report
// summary of a merge written with --allow-missing.
type MissingShardsError struct {
	Suite   string
	Missing []int
	Size    int
	// Report is the merged report summarized; "" for report merge.
	Report string
}

func (e *MissingShardsError) Error() string {
	ids := make([]string, len(e.Missing))
	for i, id := range e.Missing {
		ids[i] = strconv.Itoa(id)
	}
	which := fmt.Sprintf("shard(s) %s of the %d of %s", strings.Join(ids, ", "), e.Size, e.Suite)
	if e.Report != "" {
		return fmt.Sprintf("report %q lacks %s: no report of theirs was merged, so their tests are not in it and the suite has not passed", e.Report, which)
	}
	return fmt.Sprintf("no report given covers %s, which hold tests (their jobs stopped before writing one, or their reports were not given): give them, or --allow-missing to write the merge with them marked missing", which)
}
