package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/timings"
	"github.com/radixark/miles-ci/internal/view"
)

// SuitesOptions holds the flags of `miles-ci suites`.
type SuitesOptions struct {
	Suite string // --suite: list this suite's registrations
	JSON  bool   // --json: the roster and registrations as JSON (SPEC §7)
	// Timings is a timings file (--timings) to compare est_time with.
	Timings string
}

// NewCmdSuites builds `miles-ci suites`: the roster of suites with how many
// registrations each holds, or one suite's registrations.
func NewCmdSuites(f *Factory, runF func(*SuitesOptions) error) *cobra.Command {
	opts := &SuitesOptions{}
	cmd := &cobra.Command{
		Use:   "suites",
		Short: "List the suites and their registrations",
		Long: `List every configured suite with its backend, runners, shard count and the
registrations it holds, then warn (on stderr) about registrations that no CI
job runs: their suite is not configured, or belongs to another backend.
With --suite, list that suite's registrations instead; with --json too, the
JSON holds only that suite and its registrations.`,
		Example: `  miles-ci suites
  miles-ci suites --suite stage-c-8-gpu-h100
  miles-ci suites --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return suitesRun(cmd.Context(), f, opts)
		},
	}
	flagkind.String(cmd.Flags(), &opts.Suite, "suite", "", "list the registrations of this `SUITE`", flagkind.Choice)
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the suites and registrations as JSON")
	addTimingsFlag(cmd.Flags(), &opts.Timings,
		"compare est_time with the measured seconds in the timings file `PATH`, flagging files measured over 1.25 x est_time")
	cmd.AddCommand(newCmdSuitesRename(f, nil))
	return cmd
}

func suitesRun(_ context.Context, f *Factory, opts *SuitesOptions) error {
	if opts.Timings != "" && opts.JSON {
		return usageErrorf("--timings cannot be combined with --json")
	}
	cfg, reg, err := f.Collect()
	var noRoots *registry.NoRootsError
	if opts.JSON && errors.As(err, &noRoots) {
		// The JSON is the Python collector's registry, which passes with
		// no registrations there (the conformance kit pins it); a person
		// reading the text roster gets the error instead.
		fmt.Fprintln(f.ErrOut, "warning: "+err.Error())
		err = nil
	}
	if err != nil {
		return reportCollectError(f, err)
	}
	suites, regs, err := suite.Named(cfg, reg.Registrations, opts.Suite)
	if err != nil {
		return err
	}

	var measured timings.Timings
	if opts.Timings != "" {
		if measured, err = timings.Read(opts.Timings); err != nil {
			return err
		}
	}

	switch {
	case opts.JSON:
		err = view.WriteSuitesJSON(f.Out, suites, regs)
	case opts.Suite != "":
		err = view.WriteSuiteDetail(f.Out, opts.Suite, suites, regs, measured)
	default:
		err = view.WriteRoster(f.Out, cfg, reg)
		if err == nil && measured != nil {
			err = view.WriteOverBudget(f.Out, cfg, reg.Registrations, measured)
		}
	}
	if err != nil {
		return err
	}
	for _, w := range view.UnrunWarnings(suite.Unreached(cfg, regs)) {
		fmt.Fprintln(f.ErrOut, "warning: "+w)
	}
	return nil
}
