package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// HistoryFlakyOptions are the flags of `miles-ci history flaky`.
type HistoryFlakyOptions struct {
	historyQuery
	// MinRate is --min-rate as given: a fraction, or a percentage.
	MinRate    string
	Quarantine bool
	// UntilDays is --until-days: the proposed entries protect their file
	// until that many days after today.
	UntilDays int
	// Release is --release; CleanRuns --clean-runs.
	Release   bool
	CleanRuns int
	// untilGiven and cleanGiven say whether --until-days and --clean-runs
	// were given: each goes with one form of the answer.
	untilGiven, cleanGiven bool
	// Config loads the configuration whose quarantine --release reads
	// (nil: the Factory's).
	Config func() (*config.Config, error)
}

// The defaults of --until-days and --clean-runs.
const (
	defaultUntilDays = 30
	defaultCleanRuns = 10
)

var _ = historyQuestion(func(f *Factory) *cobra.Command { return newCmdHistoryFlaky(f, nil) })

func newCmdHistoryFlaky(f *Factory, runF func(*HistoryFlakyOptions) error) *cobra.Command {
	opts := &HistoryFlakyOptions{UntilDays: defaultUntilDays, CleanRuns: defaultCleanRuns}
	cmd := &cobra.Command{
		Use:   "flaky --from DIR|URL [--suite S] [--cadence C] [--last N | --days D] [--json] [--min-rate R] [--quarantine [--until-days N] | --release [--clean-runs N]]",
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
--min-rate, but those failing on one host only, as entries of the
configuration's quarantine: list to review and paste, protecting each file
until --until-days days from today. --release lists the entries of the
configuration's quarantine whose file passed its last --clean-runs runs at
the first attempt (a pass on a retry is not clean): entries to delete; and
apart, the entries past their until, which protect nothing. With --json it
gives every entry its verdict (release, keep, expired) and why. See
miles-ci help history.`,
		Example: `  miles-ci history flaky --from reports/ --cadence nightly --days 30
  miles-ci history flaky --from "$MILES_CI_HISTORY_URL" --min-rate 10% --quarantine --until-days 14
  miles-ci history flaky --from reports/ --cadence nightly --release --clean-runs 20`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.untilGiven, opts.cleanGiven = cmd.Flags().Changed("until-days"), cmd.Flags().Changed("clean-runs")
			if runF != nil {
				return runF(opts)
			}
			return historyFlakyRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	opts.historyQuery.bind(fs, "print the answer as JSON")
	flagkind.String(fs, &opts.MinRate, "min-rate", "", "list only the files whose rate is at least `R` (0.1 or 10%; default: every file that failed or was retried)", flagkind.Text)
	fs.BoolVar(&opts.Quarantine, "quarantine", false, "print the files as entries of the configuration's quarantine instead of the table")
	flagkind.Set(fs.VarPF(intValue{&opts.UntilDays}, "until-days", "", "with --quarantine: each entry protects its file until `N` days from today"), flagkind.Number)
	fs.BoolVar(&opts.Release, "release", false, "list the configuration's quarantine entries whose file passed its latest runs: entries to delete")
	flagkind.Set(fs.VarPF(intValue{&opts.CleanRuns}, "clean-runs", "", "with --release: the `N` latest runs of a quarantined file that must all have passed at the first attempt"), flagkind.Number)
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
	switch {
	case opts.JSON && opts.Quarantine:
		return usageErrorf("--json and --quarantine are two forms of the answer; give one")
	case opts.Release && (opts.Quarantine || opts.MinRate != ""):
		return usageErrorf("--release answers another question (which quarantine entries to delete); give it without --quarantine and --min-rate")
	case opts.untilGiven && !opts.Quarantine:
		return usageErrorf("--until-days goes with --quarantine: how many days from today the proposed entries protect their file")
	case opts.UntilDays < 1 || opts.UntilDays > maxHistoryDays:
		return usageErrorf("--until-days %d: expected a number of days from 1 to %d (a century)", opts.UntilDays, maxHistoryDays)
	case opts.cleanGiven && !opts.Release:
		return usageErrorf("--clean-runs goes with --release: how many latest runs of a quarantined file must have passed")
	case opts.CleanRuns < 1:
		return usageErrorf("--clean-runs %d: expected a number of runs of at least 1", opts.CleanRuns)
	}
	now := f.now()
	filter, err := opts.filter(now)
	if err != nil {
		return err
	}
	if opts.Release {
		return historyReleaseRun(ctx, f, opts, filter, now)
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
		return view.Quarantine(f.Out, files, minRate, untilDay(now, opts.UntilDays))
	case opts.JSON:
		return view.FlakyJSON(f.Out, res, files, minRate)
	case answer.Rows() == 0:
		_, err := fmt.Fprintln(f.Out, noAttempt)
		return err
	}
	return view.Flaky(f.Out, res, files)
}

// untilDay is the until of an entry proposed at now: days after today,
// in UTC.
func untilDay(now time.Time, days int) string {
	return now.UTC().AddDate(0, 0, days).Format(config.UntilLayout)
}

// historyReleaseRun answers --release: the history's latest runs of each
// file the configuration's quarantine names. The entries are checked
// against the registrations first, as run checks them: an entry naming a
// file with no registration, or a suite the file is not in, is the same
// error at its line.
func historyReleaseRun(ctx context.Context, f *Factory, opts *HistoryFlakyOptions, filter history.Filter, now time.Time) error {
	cfg, err := f.configWith(opts.Config)
	if err != nil {
		return err
	}
	n := opts.CleanRuns
	if len(cfg.Quarantine) == 0 {
		if opts.JSON {
			return view.ReleaseJSON(f.Out, nil, n, cfg.Place)
		}
		_, err := fmt.Fprintf(f.Out, "nothing to release: the configuration quarantines no file (%s)\n", textfmt.Cell(cfg.Origin()))
		return err
	}
	if _, err := f.Registry(cfg); err != nil {
		return reportCollectError(f, err)
	}
	answer := &history.ReleaseAnswer{Entries: cfg.Quarantine, CleanRuns: n, At: now}
	if err := scanHistory(ctx, f, opts.From, filter, answer); err != nil {
		return err
	}
	if opts.JSON {
		return view.ReleaseJSON(f.Out, answer.Result(), n, cfg.Place)
	}
	return view.Release(f.Out, answer.Result(), n, cfg.Place)
}
