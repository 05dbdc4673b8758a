package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/view"
)

// ReportMergeOptions are the flags of `miles-ci report merge`.
type ReportMergeOptions struct {
	Inputs []string
	Output string // "" for stdout
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
		Short: "Work with run reports (merge a suite's shard reports, summarize one)",
		Args:  groupArgs,
		RunE:  groupRunE,
	}
	cmd.AddCommand(NewCmdReportMerge(f, nil), NewCmdReportSummary(f, nil))
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
Reports of different suites are an error. Without -o it goes to stdout.`,
		Example: `  miles-ci report merge shard-0.json shard-1.json shard-0.rerun.json -o suite.json`,
		Args:    needInputs("the reports the shards wrote with run --json-report"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if runF != nil {
				return runF(opts)
			}
			return reportMergeRun(cmd.Context(), f, opts)
		},
	}
	flagkind.String(cmd.Flags(), &opts.Output, "output", "o", "write the merged report to `OUT` instead of stdout", flagkind.Output, "json")
	return cmd
}

func reportMergeRun(_ context.Context, f *Factory, opts *ReportMergeOptions) error {
	// One report at a time: each is dropped once merged, but for its
	// file entries.
	var m report.Merger
	for _, path := range opts.Inputs {
		r, err := report.Read(path)
		if err != nil {
			return err
		}
		if err := m.Add(r); err != nil {
			return err
		}
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

// NewCmdReportSummary builds `miles-ci report summary`.
func NewCmdReportSummary(f *Factory, runF func(*ReportSummaryOptions) error) *cobra.Command {
	opts := &ReportSummaryOptions{}
	cmd := &cobra.Command{
		Use:   "summary REPORT [--junit-xml OUT.xml]",
		Short: "Print a report as the Markdown table of the step summary",
		Long: `Print the Markdown that run appends to GITHUB_STEP_SUMMARY, for any report
(a merged suite report gives the whole suite in one table): every file with its
status, attempts and time, then the flaky and the retried files. --junit-xml also
writes the report as JUnit XML.`,
		Example: `  miles-ci report summary suite.json --junit-xml suite.xml >> "$GITHUB_STEP_SUMMARY"`,
		Args:    cobra.ExactArgs(1),
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
	r, err := report.Read(opts.Input)
	if err != nil {
		return err
	}
	if opts.JUnitXML != "" {
		if err := report.WriteJUnit(opts.JUnitXML, r); err != nil {
			return fmt.Errorf("write JUnit report %q: %w", opts.JUnitXML, err)
		}
	}
	_, err = fmt.Fprint(f.Out, view.StepSummary(r))
	return err
}
