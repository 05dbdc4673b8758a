package cli

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// ReportHostsOptions are the flags of `miles-ci report hosts`.
type ReportHostsOptions struct {
	// Inputs are report files and directories to search for them.
	Inputs []string
	JSON   bool
	// Strict makes a suspect host exit 1.
	Strict bool
	// MinContradicted is the verdict's threshold of contradicted failures.
	MinContradicted int
	drainFlags
}

// NewCmdReportHosts builds `miles-ci report hosts`.
func NewCmdReportHosts(f *Factory, runF func(*ReportHostsOptions) error) *cobra.Command {
	opts := &ReportHostsOptions{MinContradicted: hostcheck.DefaultMinContradicted}
	cmd := &cobra.Command{
		Use:   "hosts REPORT...|DIR... [--json] [--strict] [--drain [--apply --drain-log FILE]]",
		Short: "Find the hosts to blame across many runs' reports",
		Long: `Read the JSON reports of many runs (files, or directories searched for *.json, as
gh run download leaves them) and print each job with where it ran and how it
went, then per host (its runner name, else its hostname): jobs, files run,
passed, failed, infra failures and contradicted failures (files that failed
only there and passed on another host at the same commit), and the verdict
naming each suspect host with its evidence. A host is suspect when a failure
there had cause infra, a GPU preflight found it not ready, or it has at least
--min-contradicted contradicted failures. --strict exits 1 when a host is
suspect. --drain plans taking from each suspect runner the label its suites
ask for (a dry run; --apply makes the change through the GitHub API, under
limits), and --restore gives a drained runner its labels back. See
miles-ci help hosts.`,
		Example: `  gh run download 32101379316 -D runs/32101379316
  miles-ci report hosts runs/ --strict
  GH_TOKEN=… miles-ci report hosts runs/ --drain --repo radixark/miles
  GH_TOKEN=… miles-ci report hosts --restore novita-host2 --drain-log drain.jsonl --repo radixark/miles`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := opts.drainFlags.check(opts.JSON, opts.Days > 0); err != nil {
				return err
			}
			if opts.Restore != "" {
				if len(args) > 0 {
					return usageErrorf("--restore reads no report; leave out %s", quoteList(args))
				}
				return nil
			}
			return needInputs("run reports, or directories holding them (gh run download -D DIR)")(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if runF != nil {
				return runF(opts)
			}
			return reportHostsRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&opts.JSON, "json", false, "print the jobs, the hosts and the verdict as JSON")
	bindHostsVerdict(fl, &opts.Strict, &opts.MinContradicted)
	opts.drainFlags.bind(fl, true)
	return cmd
}

// reportHostsRun is the edge of report hosts: the history's reader of
// reports (history.ReportHosts) reads them one at a time into package
// hostcheck's rows, and it prints what it decides.
func reportHostsRun(ctx context.Context, f *Factory, opts *ReportHostsOptions) error {
	if opts.MinContradicted < 1 {
		return usageErrorf("--min-contradicted must be at least 1")
	}
	if opts.Restore != "" {
		return hostsDrain(ctx, f, &opts.drainFlags, nil, "report hosts")
	}
	a := hostcheck.New(opts.MinContradicted)
	add := a.Add
	// The drain decides on the jobs of its window alone: a second
	// analysis of the same rows, counted as they come.
	var recent *hostcheck.Analyzer
	if opts.Drain {
		recent = hostcheck.New(opts.MinContradicted)
		inWindow := opts.window(f.now())
		add = func(r hostcheck.Row) {
			a.Add(r)
			if inWindow(r) {
				recent.Add(r)
			}
		}
	}
	reports := &history.ReportHosts{Paths: opts.Inputs}
	if err := reports.Scan(add); err != nil {
		return err
	}
	for _, line := range reports.Skipped.Warnings() {
		fmt.Fprintln(f.ErrOut, "warning: "+textfmt.OneLine(line))
	}
	if reports.Reports == 0 {
		return fmt.Errorf("no run report to analyze in %s: give the reports that run --json-report writes, or the directories gh run download fills", quoteList(opts.Inputs))
	}
	res := a.Result()
	if !opts.Drain {
		return printHosts(f, res, opts.JSON, opts.Strict)
	}
	if err := printHostsOnly(f, res, opts.JSON); err != nil {
		return err
	}
	if err := hostsDrain(ctx, f, &opts.drainFlags, recent.Result(), "report hosts"); err != nil {
		return err
	}
	return hostsVerdict(res, opts.Strict)
}

// printHosts prints the answer of report hosts and history hosts, as JSON
// or as the tables and the verdict, and ends as hostsVerdict says.
func printHosts(f *Factory, res *hostcheck.Result, asJSON, strict bool) error {
	if err := printHostsOnly(f, res, asJSON); err != nil {
		return err
	}
	return hostsVerdict(res, strict)
}

// printHostsOnly prints the answer, as JSON or as the tables and the
// verdict.
func printHostsOnly(f *Factory, res *hostcheck.Result, asJSON bool) error {
	if asJSON {
		return view.HostsJSON(f.Out, res)
	}
	return view.Hosts(f.Out, res)
}

// bindHostsVerdict declares the flags of the verdict of report hosts and
// history hosts alike: --strict and --min-contradicted.
func bindHostsVerdict(fs *pflag.FlagSet, strict *bool, minContradicted *int) {
	fs.BoolVar(strict, "strict", false, "exit 1 when a host is suspect")
	flagkind.Set(fs.VarPF(intValue{minContradicted}, "min-contradicted", "",
		"call a host suspect at `N` contradicted failures (one is what any flaky test makes)"), flagkind.Number)
	fs.Lookup("min-contradicted").DefValue = strconv.Itoa(hostcheck.DefaultMinContradicted)
}

// hostsVerdict is --strict's rule for report hosts and history hosts
// alike: exit 1 when a host is suspect, and when the answer holds no host
// at all. A scheduled job runs --strict to learn that its runners are
// sound; an answer over nothing (a wrong path, a directory of other
// files, a filter that matches no run) vouches for none of them, and
// passing on it would hide the mistake.
func hostsVerdict(res *hostcheck.Result, strict bool) error {
	switch {
	case !strict:
		return nil
	case len(res.Hosts) == 0:
		return errors.New("--strict: the answer holds no host, so none is vouched for")
	case len(res.Suspects) > 0:
		return &ExitError{Code: exitFailure}
	}
	return nil
}

func quoteList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = textfmt.OneLine(strconv.Quote(p))
	}
	return strings.Join(q, ", ")
}
