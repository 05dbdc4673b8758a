package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// scanHistory reads the rows that filter keeps from the history at from
// into add, within historyQueryTimeout, and warns about what the scan
// skipped (a directory's files, a database's rows).
func scanHistory(ctx context.Context, f *Factory, from string, filter history.Filter, add func(*history.Row) error) error {
	if from == "" {
		return usageErrorf("--from is required: a directory of run reports or a PostgreSQL URL")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, historyQueryTimeout)
	defer cancel()
	r, err := openHistory(ctx, from)
	if err != nil {
		return historyError(err)
	}
	defer r.Close()
	if err := r.Scan(ctx, filter, add); err != nil {
		return historyError(err)
	}
	warnSkipped(f, r, from)
	return nil
}

// noAttempt is what a question prints when the history has no row it
// keeps: an answer (nothing failed), not an error.
const noAttempt = "no attempt in the history matches"

// HistoryFlakyOptions are the flags of `miles-ci history flaky`.
type HistoryFlakyOptions struct {
	historyQuery
	// MinRate is --min-rate as given: a fraction, or a percentage.
	MinRate    string
	Quarantine bool
}

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
	rows := 0
	err = scanHistory(ctx, f, opts.From, history.FlakyFilter(filter), func(r *history.Row) error {
		rows++
		return answer.Add(r)
	})
	if err != nil {
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
	case rows == 0:
		_, err := fmt.Fprintln(f.Out, noAttempt)
		return err
	}
	return view.Flaky(f.Out, res, files)
}

// HistoryHostsOptions are the flags of `miles-ci history hosts`.
type HistoryHostsOptions struct {
	historyQuery
	Strict          bool
	MinContradicted int
}

func newCmdHistoryHosts(f *Factory, runF func(*HistoryHostsOptions) error) *cobra.Command {
	opts := &HistoryHostsOptions{MinContradicted: hostcheck.DefaultMinContradicted}
	cmd := &cobra.Command{
		Use:   "hosts --from DIR|URL [--suite S] [--cadence C] [--last N | --days D] [--json] [--strict] [--min-contradicted N]",
		Short: "Find the hosts to blame across the runs of the history, as report hosts does",
		Long: `Print the analysis of report hosts (each job with where it ran and how it went,
each host's counts, and the verdict naming each suspect host with its
evidence) from the run history: a directory of run reports, or the fleet's
PostgreSQL database; both give the same output for the same runs. The
history keeps attempts, so a job counts the files it ran (none "not run"),
and a job a GPU preflight stopped before its first file is not in it.
--strict exits 1 when a host is suspect. See miles-ci help history and
miles-ci help hosts.`,
		Example: `  miles-ci history hosts --from "$MILES_CI_HISTORY_URL" --cadence nightly --days 30 --strict`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return historyHostsRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	opts.historyQuery.bind(fs, "print the jobs, the hosts and the verdict as JSON")
	fs.BoolVar(&opts.Strict, "strict", false, "exit 1 when a host is suspect")
	flagkind.Set(fs.VarPF(intValue{&opts.MinContradicted}, "min-contradicted", "",
		"call a host suspect at `N` contradicted failures (one is what any flaky test makes)"), flagkind.Number)
	fs.Lookup("min-contradicted").DefValue = strconv.Itoa(hostcheck.DefaultMinContradicted)
	return cmd
}

func historyHostsRun(ctx context.Context, f *Factory, opts *HistoryHostsOptions) error {
	if opts.MinContradicted < 1 {
		return usageErrorf("--min-contradicted must be at least 1")
	}
	filter, err := opts.filter(f.now())
	if err != nil {
		return err
	}
	a := hostcheck.New(opts.MinContradicted)
	rows, hostless := 0, 0
	err = scanHistory(ctx, f, opts.From, history.HostsFilter(filter), func(r *history.Row) error {
		row, ok := history.HostRow(r)
		if !ok {
			hostless++
			return nil
		}
		rows++
		a.Add(row)
		return nil
	})
	if err != nil {
		return err
	}
	if hostless > 0 {
		fmt.Fprintf(f.ErrOut, "warning: history hosts: skipped %s of runs that name no host (neither a runner nor a hostname)\n",
			textfmt.CountNoun(hostless, "attempt"))
	}
	if rows == 0 && !opts.JSON {
		if _, err := fmt.Fprintln(f.Out, noAttempt); err != nil {
			return err
		}
		return hostsVerdict(a.Result(), opts.Strict)
	}
	return printHosts(f, a.Result(), opts.JSON, opts.Strict)
}
