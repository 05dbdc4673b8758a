package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// HistorySiteOptions are the flags of `miles-ci history site`.
type HistorySiteOptions struct {
	From string
	historyFilterFlags
	// Output is -o: the directory index.html is written to ("": the
	// page goes to stdout).
	Output string
	// Config loads the configuration whose suites say how many GPUs a
	// job holds and whose quarantine the page shows (nil: the Factory's).
	Config func() (*config.Config, error)
}

// siteIndex is the page's file name in -o's directory.
const siteIndex = "index.html"

var _ = historyQuestion(func(f *Factory) *cobra.Command { return newCmdHistorySite(f, nil) })

func newCmdHistorySite(f *Factory, runF func(*HistorySiteOptions) error) *cobra.Command {
	opts := &HistorySiteOptions{}
	cmd := &cobra.Command{
		Use:   "site --from DIR|URL [--suite S] [--cadence C] [--last N | --days D] [-o DIR]",
		Short: "Write the CI health page: GPU-hours, slow and flaky files, hosts and shard timelines, as one HTML file",
		Long: `Write a static CI health page of the run history (a directory of run reports,
or the fleet's PostgreSQL database; both give the same bytes for the same
runs) to DIR/index.html (-o; without it, to stdout): one self-contained HTML
file, inline CSS and SVG, with no script and nothing loaded from anywhere,
light or dark as the reader's system is. It shows the GPU-hours per day and
suite, useful and wasted, with the totals of history cost; the files whose
p90 ran past their time limit, with the timings apply command that fixes
them, and the median and p90 per day of the slowest; the flaky files and
the configuration's quarantine; a host-by-day grid with the suspect hosts of
history hosts; and each suite's latest scheduled run as a shard timeline.
Every figure is the one the matching history question's --json gives. See
miles-ci help history.`,
		Example: `  miles-ci history site --from reports/ --days 30 -o site/
  miles-ci history site --from "$MILES_CI_HISTORY_URL" --cadence nightly --days 30 -o site/`,
		Args:        cobra.NoArgs,
		Annotations: finishOnSignal("writes DIR/index.html"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return historySiteRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	flagkind.String(fs, &opts.From, "from", "", "the history at `DIR|URL`: a directory of run reports, or a PostgreSQL URL", flagkind.Text)
	opts.historyFilterFlags.bind(fs, true)
	flagkind.String(fs, &opts.Output, "output", "o", "write the page to `DIR`/index.html (default: stdout)", flagkind.Dir)
	return cmd
}

func historySiteRun(ctx context.Context, f *Factory, opts *HistorySiteOptions) error {
	now := f.now()
	filter, err := opts.filter(now)
	if err != nil {
		return err
	}
	if opts.From == "" {
		return errNoFrom()
	}
	cfg, err := f.configWith(opts.Config)
	if err != nil {
		return err
	}
	answer := history.NewSiteAnswer(history.ConfigGPUs(cfg), hostcheck.DefaultMinContradicted)
	if err := scanHistory(ctx, f, opts.From, filter, answer); err != nil {
		return err
	}
	if hostless := answer.Hosts.Hostless; hostless > 0 {
		fmt.Fprintf(f.ErrOut, "warning: history site: the hosts leave out %s of runs that name no host (neither a runner nor a hostname)\n",
			textfmt.CountNoun(hostless, "attempt"))
	}
	in := siteInput(answer, opts, now)
	in.Quarantine, in.QuarantineOff = cfg.Quarantine, cfg.QuarantineOff
	var page bytes.Buffer
	if err := view.Site(&page, in); err != nil {
		return err
	}
	if opts.Output == "" {
		_, err := f.Out.Write(page.Bytes())
		return err
	}
	if err := os.MkdirAll(opts.Output, 0o755); err != nil {
		return fmt.Errorf("write the page: %w", err)
	}
	path := filepath.Join(opts.Output, siteIndex)
	if err := fsutil.WriteFile(path, page.Bytes()); err != nil {
		return fmt.Errorf("write the page %q: %w", path, err)
	}
	fmt.Fprintf(f.ErrOut, "wrote %s (%s bytes) from %s\n", textfmt.OneLine(path), strconv.Itoa(page.Len()), textfmt.CountNoun(in.Cost.Jobs, "job"))
	return nil
}

// siteInput is the page's input: the answers' results, and the scope
// and filter flags they were asked with.
func siteInput(a *history.SiteAnswer, opts *HistorySiteOptions, now time.Time) *view.SiteInput {
	in := &view.SiteInput{Now: now, Days: opts.Days, Cost: a.Cost.Result(), Timings: a.Timings.Files(),
		Flaky: a.Flaky.Result(), Hosts: a.Hosts.Result(), Timelines: a.Timelines()}
	in.Drifts = a.Drifts(in.Timings)
	days, costs := a.CostByDay.Days()
	in.CostDays, in.DaysLeft = days, a.CostByDay.Dropped()
	for _, c := range costs {
		in.CostByDay = append(in.CostByDay, c.Result())
	}
	days, timings := a.TimingsByDay.Days()
	in.TimingDays = days
	for _, t := range timings {
		in.TimingsByDay = append(in.TimingsByDay, t.Files())
	}
	in.Scope = "All runs of the history"
	switch {
	case opts.Days > 0:
		in.Scope = "The runs of the last " + textfmt.CountNoun(opts.Days, "day")
	case opts.Last > 0:
		in.Scope = "The " + textfmt.CountNoun(opts.Last, "latest run")
	}
	if opts.Suite != "" {
		in.Scope += " of " + textfmt.Cell(opts.Suite)
		in.FilterArgs = append(in.FilterArgs, "--suite", opts.Suite)
	}
	if opts.Cadence != "" {
		in.Scope += " under cadence " + opts.Cadence
		in.FilterArgs = append(in.FilterArgs, "--cadence", opts.Cadence)
	}
	switch {
	case opts.Days > 0:
		in.FilterArgs = append(in.FilterArgs, "--days", strconv.Itoa(opts.Days))
	case opts.Last > 0:
		in.FilterArgs = append(in.FilterArgs, "--last", strconv.Itoa(opts.Last))
	}
	return in
}
