package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// HistoryHostsOptions are the flags of `miles-ci history hosts`.
type HistoryHostsOptions struct {
	historyQuery
	Strict          bool
	MinContradicted int
	// drainFlags' Days is the history filter's --days.
	drainFlags
}

var _ = historyQuestion(func(f *Factory) *cobra.Command { return newCmdHistoryHosts(f, nil) })

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
--strict exits 1 when a host is suspect. --drain, --apply and --restore
drain a suspect runner as report hosts does (--days is also the drain's
window). See miles-ci help history and miles-ci help hosts.`,
		Example: `  miles-ci history hosts --from "$MILES_CI_HISTORY_URL" --cadence nightly --days 30 --strict`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.drainFlags.check(opts.JSON, false); err != nil {
				return err
			}
			opts.drainFlags.Days = opts.historyFilterFlags.Days
			if runF != nil {
				return runF(opts)
			}
			return historyHostsRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	opts.historyQuery.bind(fs, "print the jobs, the hosts and the verdict as JSON")
	bindHostsVerdict(fs, &opts.Strict, &opts.MinContradicted)
	opts.drainFlags.bind(fs, false)
	return cmd
}

func historyHostsRun(ctx context.Context, f *Factory, opts *HistoryHostsOptions) error {
	if opts.MinContradicted < 1 {
		return usageErrorf("--min-contradicted must be at least 1")
	}
	if opts.Restore != "" {
		return hostsDrain(ctx, f, &opts.drainFlags, nil, "history hosts")
	}
	filter, err := opts.filter(f.now())
	if err != nil {
		return err
	}
	a := history.NewHostsAnswer(opts.MinContradicted)
	var answer history.Answer = a
	var recent *hostcheck.Analyzer
	if opts.Drain {
		recent = hostcheck.New(opts.MinContradicted)
		answer = &windowedHosts{HostsAnswer: a, recent: recent, in: opts.window(f.now())}
	}
	if err := scanHistory(ctx, f, opts.From, filter, answer); err != nil {
		return err
	}
	if hostless := a.Hostless; hostless > 0 {
		fmt.Fprintf(f.ErrOut, "warning: history hosts: skipped %s of runs that name no host (neither a runner nor a hostname)\n",
			textfmt.CountNoun(hostless, "attempt"))
	}
	res := a.Result()
	if a.Rows == 0 && !opts.JSON {
		if _, err := fmt.Fprintln(f.Out, noAttempt); err != nil {
			return err
		}
	} else if err := printHostsOnly(f, res, opts.JSON); err != nil {
		return err
	}
	if opts.Drain {
		if err := hostsDrain(ctx, f, &opts.drainFlags, recent.Result(), "history hosts"); err != nil {
			return err
		}
	}
	return hostsVerdict(res, opts.Strict)
}

// windowedHosts is the hosts answer that also counts, for the drain, the
// rows of the jobs in its window.
type windowedHosts struct {
	*history.HostsAnswer
	recent *hostcheck.Analyzer
	in     func(hostcheck.Row) bool
}

func (w *windowedHosts) Add(r *history.Row) error {
	if err := w.HostsAnswer.Add(r); err != nil {
		return err
	}
	if row, ok := history.HostRow(r); ok && w.in(row) {
		w.recent.Add(row)
	}
	return nil
}
