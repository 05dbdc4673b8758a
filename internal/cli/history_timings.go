package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/timings"
)

// HistoryTimingsOptions are the flags of `miles-ci history timings`.
type HistoryTimingsOptions struct {
	historyQuery
	Output   string
	Quantile string
}

var _ = historyQuestion(func(f *Factory) *cobra.Command { return newCmdHistoryTimings(f, nil) })

func newCmdHistoryTimings(f *Factory, runF func(*HistoryTimingsOptions) error) *cobra.Command {
	opts := &HistoryTimingsOptions{}
	cmd := &cobra.Command{
		Use:   "timings --from DIR|URL [--suite S] [--cadence C] [--last N | --days D] [--json] [-o FILE [--quantile Q]]",
		Short: "How long each test file takes: runs, median, p90 and max of its passed attempts",
		Long: `Print, for each test file and the suite that ran it, how many runs passed it
and the median, 90th percentile and greatest of those runs' seconds, from the
run history: a directory of run reports (--json-report; gh run download
leaves them so) or the fleet's PostgreSQL database (a postgres:// URL). Both
give the same output for the same runs, byte for byte. Only passed attempts
count. Quantiles interpolate linearly between the sorted runs (numpy's
default). With -o, also write a timings file holding each file's --quantile
(default the median) for --timings and timings apply.`,
		Example: `  miles-ci history timings --from reports/
  miles-ci history timings --from "$MILES_CI_HISTORY_URL" --suite stage-b-2-gpu-h200 --last 20 --json
  miles-ci history timings --from reports/ -o p90.json --quantile 0.9`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return historyTimingsRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	opts.historyQuery.bind(fs, "print the answer as JSON")
	flagkind.String(fs, &opts.Output, "output", "o", "also write a timings file of each file's --quantile to `FILE`", flagkind.Output, "json")
	flagkind.String(fs, &opts.Quantile, "quantile", "", "the figure -o writes: a quantile `Q` above 0 and at most 1, or pNN (default 0.5, the median)", flagkind.Text)
	return cmd
}

func historyTimingsRun(ctx context.Context, f *Factory, opts *HistoryTimingsOptions) error {
	if opts.From == "" {
		return errNoFrom()
	}
	q := 0.5
	if opts.Quantile != "" {
		if opts.Output == "" {
			return usageErrorf("--quantile is the figure -o writes; give -o FILE")
		}
		var err error
		if q, err = timings.ParseQuantile(opts.Quantile); err != nil {
			return usageErrorf("--quantile: %v", err)
		}
	}
	filter, err := opts.filter(f.now())
	if err != nil {
		return err
	}
	answer, err := askTimings(ctx, f, opts.From, filter)
	if err != nil {
		return err
	}
	files := answer.Files()
	if opts.Output != "" {
		if err := writeQuantileTimings(opts.Output, files, q); err != nil {
			return err
		}
		fmt.Fprintf(f.ErrOut, "wrote the %s of %s to %s\n", timings.QuantileName(q), textfmt.CountNoun(len(files), "file"), textfmt.OneLine(opts.Output))
	}
	if opts.JSON {
		return writeTimingsJSON(f, files)
	}
	return writeTimingsText(f, files)
}

// askTimings reads the passed attempts that filter keeps from the
// history at from, into the timings answer.
func askTimings(ctx context.Context, f *Factory, from string, filter history.Filter) (*history.TimingsAnswer, error) {
	answer := &history.TimingsAnswer{}
	if err := scanHistory(ctx, f, from, filter, answer); err != nil {
		return nil, err
	}
	return answer, nil
}
