package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/view"
)

// HistoryFlakyOptions are the flags of `miles-ci history flaky`.
type HistoryFlakyOptions struct {
	historyQuery
	// MinRate is --min-rate as given: a fraction, or a percentage.
	MinRate    string
	Quarantine bool
}

var _ = historyQuestion(func(f *Factory) *cobra.Command { return newCmdHistoryFlaky(f, nil) })

func newCmdHistoryFlaky(f *Factory, runF func(*HistoryFlakyOptions) error) *cobra.Command {
	opts := &HistoryFlakyOptions{}
	cmd := &cobra.Command{
		Use:   "flaky --from DIR|URL [--suite S] [--cadence C] [--last N | --days D] [--json] [--min-rate R] [--quarantine]",
		Short: "Which test files fail or pass only on a retry, how often, and whether on one host only",
		Long: `Print, for each test file and the suite that ran it, from the run history (a
directory of run reports, or the fleet's PostgreSQL database; both give the
same output for the same runs): the runs that ran it, the failures (runs
whose last attempt failed), the runs that passed only on a retry, the
failures at a commit where another run of the file passed, and the rate
(failures plus retried passes, over runs), the highest rate first. ONLY ON
names the host when every failed attempt ran there and the file passed on
another: see history hosts. Files that always passed at the first attempt
are counted, not listed. --quarantine prints the files at or above
--min-rate as a YAML quarantine list to paste (a proposal: run does not
read it). See miles-ci help history.`,
		Example: `  miles-ci history flaky --from reports/ --cadence nightly --days 30
  miles-ci history flaky --from "$MILES_CI_HISTORY_URL" --min-rate 10% --quarantine`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return historyFlakyRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	opts.historyQuery.bind(fs, "print the answer as JSON")
	flagkind.String(fs, &opts.MinRate, "min-rate", "", "list only the files whose rate is at least `R` (0.1 or 10%; default: every file that failed or was retried)", flagkind.Text)
	fs.BoolVar(&opts.Quarantine, "quarantine", false, "print the files as a YAML quarantine list instead of the table")
	return cmd
}

// parseRate reads a rate as a fraction (0.1) or a percentage (10%),
// between 0 and 1.
func parseRate(s string) (float64, error) {
	num, pct := strings.CutSuffix(strings.TrimSpace(s), "%")
	v, err := strconv.ParseFloat(num, 64)
	if pct {
		v /= 100
	}
	if err != nil || !(v >= 0 && v <= 1) {
		return 0, fmt.Errorf("%q is not a rate: give a fraction from 0 to 1 (0.1) or a percentage (10%%)", s)
	}
	return v, nil
}

func historyFlakyRun(ctx context.Context, f *Factory, opts *HistoryFlakyOptions) error {
	minRate := 0.0
	if opts.MinRate != "" {
		var err error
		if minRate, err = parseRate(opts.MinRate); err != nil {
			return usageErrorf("--min-rate: %v", err)
		}
	}
	if opts.JSON && opts.Quarantine {
		return usageErrorf("--json and --quarantine are two forms of the answer; give one")
	}
	filter, err := opts.filter(f.now())
	if err != nil {
		return err
	}
	answer := &history.FlakyAnswer{}
	if err := scanHistory(ctx, f, opts.From, filter, answer); err != nil {
		return err
	}
	res := answer.Result()
	var files []*history.FlakyFile
	for _, file := range res.Files {
		if file.Rate >= minRate {
			files = append(files, file)
		}
	}
	switch {
	case opts.Quarantine:
		return view.Quarantine(f.Out, files, minRate)
	case opts.JSON:
		return view.FlakyJSON(f.Out, res, files, minRate)
	case answer.Rows() == 0:
		_, err := fmt.Fprintln(f.Out, noAttempt)
		return err
	}
	return view.Flaky(f.Out, res, files)
}
