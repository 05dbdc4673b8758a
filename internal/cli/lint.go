package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/lint"
	"github.com/radixark/miles-ci/internal/plan"
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
		for _, fd := range res.Findings {
			level := ghactions.LevelError
			if fd.Severity == lint.Warning {
				level = ghactions.LevelWarning
			}
			fmt.Fprintln(f.ErrOut, ghactions.Annotation{Level: level, File: fd.Path, Line: fd.Line, Col: fd.Col,
				Title: fd.Rule, Message: fd.Message}.String())
		}
	}
	if opts.JSON {
		data, err := json.MarshalIndent(struct {
			Findings []lint.Finding `json:"findings"`
			Errors   int            `json:"errors"`
			Warnings int            `json:"warnings"`
		}{res.Findings, res.Errors, res.Warnings}, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintf(f.Out, "%s\n", data)
	} else {
		for _, fd := range res.Findings {
			fmt.Fprintln(f.Out, oneLine(fd.String()))
		}
		fmt.Fprintf(f.Out, "%s, %s\n", plan.CountNoun(res.Errors, "error"), plan.CountNoun(res.Warnings, "warning"))
	}
	if res.Errors > 0 || opts.Strict && res.Warnings > 0 {
		return &ExitError{Code: exitFailure}
	}
	return nil
}
