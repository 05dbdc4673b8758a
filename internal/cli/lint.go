package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/lint"
)

// LintOptions holds the flags of `miles-ci lint`.
type LintOptions struct {
	JSON   bool // --json: the findings as one JSON document
	Strict bool // --strict: a warning fails too
}

// NewCmdLint builds `miles-ci lint`: check the workflows against the roster
// and the registrations.
func NewCmdLint(f *Factory, runF func(*LintOptions) error) *cobra.Command {
	opts := &LintOptions{}
	cmd := &cobra.Command{
		Use:   "lint",
		Short: "Check the workflows against the roster of suites and the registrations",
		Long: `Read .github/workflows/*.yml and *.yaml below the root and check every stage
job (a job running tests/ci/run_suite.py or miles-ci run) against the
configuration's roster and the test files' registrations: one job per suite,
named after it, with the roster's backend, runners, shards, needs, skip guard,
weekly max-parallel and the policy's cadence and labels; every schedule mapped
to a cadence; every registration run by a job.

One line per finding, PATH:LINE:COL: error|warning: MESSAGE [RULE], then a
summary. Under GitHub Actions (GITHUB_ACTIONS=true) each finding is also an
annotation. Exit 1 with an error (with --strict, with a warning too).`,
		Example: `  miles-ci lint
  miles-ci --root ../miles lint --strict
  miles-ci lint --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return lintRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, `print {"findings":[…],"errors":N,"warnings":M}`)
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "fail on warnings too")
	return cmd
}

func lintRun(_ context.Context, f *Factory, opts *LintOptions) error {
	cfg, reg, err := f.Collect()
	if err != nil {
		return reportCollectError(f, err)
	}
	res, err := lint.Run(f.Root, cfg, reg.Registrations)
	if err != nil {
		return err
	}
	if f.Getenv != nil && f.Getenv("GITHUB_ACTIONS") == "true" {
		// Annotations go to stderr: stdout holds only the findings and
		// the summary, and GitHub reads workflow commands from both.
		if err := res.WriteAnnotations(f.ErrOut); err != nil {
			return err
		}
	}
	if opts.JSON {
		err = res.WriteJSON(f.Out)
	} else {
		err = res.WriteText(f.Out)
	}
	if err != nil {
		return err
	}
	if res.Failed(opts.Strict) {
		return &ExitError{Code: exitFailure}
	}
	return nil
}
