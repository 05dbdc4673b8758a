package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/triage"
	"github.com/radixark/miles-ci/internal/view"
)

// ReportTriageOptions are the flags of `miles-ci report triage`.
type ReportTriageOptions struct {
	// Inputs are the run's reports.
	Inputs []string
	// From is the history (a directory of reports or a PostgreSQL URL),
	// "" for none; the filter flags narrow the runs read from it.
	From string
	historyFilterFlags
	JSON bool
	// Strict makes a verdict "new" exit 1.
	Strict bool
	// MinRate is --min-rate as given: a fraction, or a percentage.
	MinRate string
}

// NewCmdReportTriage builds `miles-ci report triage`.
func NewCmdReportTriage(f *Factory, runF func(*ReportTriageOptions) error) *cobra.Command {
	opts := &ReportTriageOptions{}
	cmd := &cobra.Command{
		Use:   "triage REPORT... [--from DIR|URL] [--json] [--strict]",
		Short: "Give each failed file of a run its verdict: infra, suspect-host, quarantined, flaky, broken-on-main or new",
		Long: `Read a run's JSON reports (its shards', say) and give each failed file (FAIL or
TIMEOUT, quarantined or not) the first verdict that matches, with its evidence:
infra (an infra fingerprint matched, or a GPU preflight then found the host
not ready), suspect-host (the run's host is suspect by history hosts' rule),
quarantined (the configuration's quarantine covered it), flaky (the history's
rate of the file is at least --min-rate and it passed at this commit or on a
retry), broken-on-main (it failed in the latest runs of its suite on the
default branch: scheduled or pushed, before this run), or new (none of these:
most likely this change). --from reads the run history (a directory of run
reports or a PostgreSQL URL), the runs of the reports given left out; without
it, the verdicts that need a history are never claimed. --strict exits 1 when
a verdict is new. See miles-ci help reports.`,
		Example: `  gh run download 32101379316 -D run/
  miles-ci report triage run/*/report.json --from "$MILES_CI_HISTORY_URL" --days 30 --strict`,
		Args: needInputs("the run's reports (run --json-report)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if runF != nil {
				return runF(opts)
			}
			return reportTriageRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	flagkind.String(fs, &opts.From, "from", "", "the history at `DIR|URL`: a directory of run reports, or a PostgreSQL URL", flagkind.Text)
	opts.historyFilterFlags.bind(fs, false)
	fs.BoolVar(&opts.JSON, "json", false, "print one object per failed file: file, suite, status, verdict and evidence")
	fs.BoolVar(&opts.Strict, "strict", false, "exit 1 when a verdict is new (most likely this change)")
	flagkind.String(fs, &opts.MinRate, "min-rate", "", "call a file flaky from a history rate of `R` (0.1 or 10%; default 5%)", flagkind.Text)
	return cmd
}

// reportTriageRun reads the reports, then the history when --from names
// one (the rows of the reports' runs left out), and prints what package
// triage decides.
func reportTriageRun(ctx context.Context, f *Factory, opts *ReportTriageOptions) error {
	minRate := triage.DefaultMinRate
	if opts.MinRate != "" {
		var err error
		if minRate, err = parseRate(opts.MinRate); err != nil {
			return usageErrorf("--min-rate: %v", err)
		}
	}
	filter, err := opts.filter(f.now())
	if err != nil {
		return err
	}
	if opts.From == "" && (opts.Cadence != "" || opts.Last > 0 || opts.Days > 0) {
		return usageErrorf("--cadence, --last and --days narrow the history: give --from too")
	}
	reports := make([]*report.Report, len(opts.Inputs))
	for i, path := range opts.Inputs {
		if reports[i], err = report.ReadWithoutOutput(path); err != nil {
			return err
		}
	}
	var h *triage.History
	if opts.From != "" {
		answer := history.NewTriageAnswer(reports, hostcheck.DefaultMinContradicted)
		if err := scanHistory(ctx, f, opts.From, filter, answer); err != nil {
			return err
		}
		h = answer.Result()
	}
	fails := triage.Decide(reports, h, minRate)
	if opts.JSON {
		err = view.TriageJSON(f.Out, fails)
	} else {
		err = view.Triage(f.Out, fails, len(reports), h != nil)
	}
	if err != nil {
		return err
	}
	return triageVerdict(fails, opts.Strict)
}

// triageVerdict is --strict's rule: exit 1 when a verdict is new, the
// one a rerun cannot fix; every other verdict (infra, a suspect host, the
// quarantine, a flaky file, a main already broken) is not this change's.
func triageVerdict(fails []triage.Failure, strict bool) error {
	if !strict {
		return nil
	}
	for _, f := range fails {
		if f.Verdict == triage.New {
			return &ExitError{Code: exitFailure}
		}
	}
	return nil
}
