package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// HistorySetupOptions are the flags of `miles-ci history setup`.
type HistorySetupOptions struct {
	historyQuery
}

var _ = historyQuestion(func(f *Factory) *cobra.Command { return newCmdHistorySetup(f, nil) })

func newCmdHistorySetup(f *Factory, runF func(*HistorySetupOptions) error) *cobra.Command {
	opts := &HistorySetupOptions{}
	cmd := &cobra.Command{
		Use:   "setup --from DIR|URL [--suite S] [--cadence C] [--last N | --days D] [--json]",
		Short: "How long each suite's jobs take to reach their first test, and the setup_minutes to count",
		Long: `Print, for each suite, how many of its runs knew when their job started and
the median, 90th percentile and greatest of their setups: the time from the
job's start to its first test (the report's job_started and
first_test_started), which a shard spends before any test. SUGGESTED is the
p90 in minutes rounded up to a tenth: the suite's setup_minutes, which
target_minutes then leaves room for (miles-ci help config). A run knows its
job's start from MILES_CI_JOB_STARTED or the runner's process (miles-ci
help reports); UNKNOWN counts the runs that did not. Both stores give the
same output for the same runs.`,
		Example: `  miles-ci history setup --from reports/
  miles-ci history setup --from "$MILES_CI_HISTORY_URL" --suite stage-c-8-gpu-h100 --days 14`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return historySetupRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	opts.historyQuery.bind(fs, "print the answer as JSON")
	return cmd
}

func historySetupRun(ctx context.Context, f *Factory, opts *HistorySetupOptions) error {
	filter, err := opts.filter(f.now())
	if err != nil {
		return err
	}
	answer := &history.SetupAnswer{}
	if err := scanHistory(ctx, f, opts.From, filter, answer); err != nil {
		return err
	}
	suites := answer.Suites()
	if opts.JSON {
		return writeSetupJSON(f, suites)
	}
	return writeSetupText(f, suites)
}

// writeSetupText prints the answer's table (every name from a report
// inert, as textfmt.Table shows it) and says how many suites knew no job
// start.
func writeSetupText(f *Factory, suites []*history.SuiteSetup) error {
	if len(suites) == 0 {
		_, err := fmt.Fprintln(f.Out, noAttempt)
		return err
	}
	rows := [][]string{{"SUITE", "BACKEND", "JOBS", "UNKNOWN", "MEDIAN", "P90", "MAX", "SUGGESTED"}}
	unknown := 0
	for _, s := range suites {
		row := []string{s.Suite, s.Backend, strconv.Itoa(s.Jobs), strconv.Itoa(s.Unknown), "-", "-", "-", "-"}
		if s.Jobs > 0 {
			row[4], row[5], row[6] = secs3(s.Median), secs3(s.P90), secs3(s.Max)
			row[7] = "setup_minutes: " + pyfmt.Float(s.SuggestedMinutes())
		}
		if s.Jobs == 0 {
			unknown++
		}
		rows = append(rows, row)
	}
	var b strings.Builder
	b.WriteString(textfmt.Table(rows, 2))
	if unknown > 0 {
		fmt.Fprintf(&b, "%s knew no job start: set MILES_CI_JOB_STARTED in the job's first step (miles-ci help migrate)\n",
			textfmt.CountNoun(unknown, "suite"))
	}
	_, err := fmt.Fprint(f.Out, b.String())
	return err
}

// setupJSON is one suite of `history setup --json`: seconds, and the
// suggestion in minutes (null when no run knew its setup).
type setupJSON struct {
	Suite            string   `json:"suite"`
	Backend          string   `json:"backend"`
	Jobs             int      `json:"jobs"`
	Unknown          int      `json:"unknown"`
	Median           *float64 `json:"median"`
	P90              *float64 `json:"p90"`
	Max              *float64 `json:"max"`
	SuggestedMinutes *float64 `json:"suggested_setup_minutes"`
}

func writeSetupJSON(f *Factory, suites []*history.SuiteSetup) error {
	out := []setupJSON{}
	for _, s := range suites {
		j := setupJSON{Suite: s.Suite, Backend: s.Backend, Jobs: s.Jobs, Unknown: s.Unknown}
		if s.Jobs > 0 {
			m := s.SuggestedMinutes()
			j.Median, j.P90, j.Max, j.SuggestedMinutes = &s.Median, &s.P90, &s.Max, &m
		}
		out = append(out, j)
	}
	data, err := json.MarshalIndent(struct {
		Suites []setupJSON `json:"suites"`
	}{out}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f.Out, "%s\n", data)
	return err
}
