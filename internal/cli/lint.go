package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/lint"
)

// LintOptions holds the flags of `miles-ci lint`.
type LintOptions struct {
	JSON   bool // --json: the findings as one JSON document
	Strict bool // --strict: a warning fails too
	// Runners are the --runners listings of the live fleet, in order.
	Runners []string
	// External are the --external workflow files of other repositories
	// that run the roster's external suites, in order.
	External []string
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
to a cadence; every registration run by a job; every job that runs miles-ci
installing it first, and one pinned version (MILES_CI_VERSION) in the
repository.

With --runners, also check the roster's runs_on, and the labels each stage
job lands on, against the live fleet: the JSON that
gh api --paginate repos/OWNER/REPO/actions/runners prints (repeat the flag
for the organization's listing). A set no runner carries whole is an error;
one only offline runners carry, or too few online runners for the shards
that run at once, a warning (miles-ci help lint-rules).

With --external, also check another repository's workflow file that runs
the roster's external suites (repeat the flag for several files, read as
one): every external suite is run there with its backend's --hw; no suite
outside the roster, or of this repository's own, is; and no command calls a
Python entry point (tests/ci/run_suite.py) this repository no longer has.

One line per finding, PATH:LINE:COL: error|warning: MESSAGE [RULE], then a
summary. Under GitHub Actions (GITHUB_ACTIONS=true) each finding is also an
annotation. Exit 1 with an error (with --strict, with a warning too).`,
		Example: `  miles-ci lint
  miles-ci --root ../miles lint --strict
  miles-ci lint --json
  gh api --paginate repos/OWNER/REPO/actions/runners > runners.json
  miles-ci lint --runners runners.json
  gh api repos/sgl-project/sglang/contents/.github/workflows/nightly-test-amd-miles-rocm720.yml \
    -H 'Accept: application/vnd.github.raw' > nightly-mi350.yml
  miles-ci lint --external nightly-mi350.yml`,
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
	flagkind.StringArray(cmd.Flags(), &opts.Runners, "runners", "", "check the runs_on labels against the runners listed in `FILE` (gh api --paginate repos/OWNER/REPO/actions/runners); repeatable", flagkind.Path, "json")
	flagkind.StringArray(cmd.Flags(), &opts.External, "external", "", "check that the workflow `FILE` of another repository runs the roster's external suites; repeatable", flagkind.Path, "yml", "yaml")
	return cmd
}

// maxRunnersSize bounds a runners listing: GitHub's listing of a few
// thousand runners is a few megabytes.
const maxRunnersSize = 64 << 20

// readFlagFile reads the file p a path flag names, of at most limit
// bytes; an error names the flag and the file (unless fsutil.Hidden).
func readFlagFile(flag, p string, limit int64) ([]byte, error) {
	data, err := fsutil.ReadRegular(p, limit)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		shown := p
		if fsutil.Hidden(p) {
			shown = fsutil.HiddenPath
		}
		return nil, fmt.Errorf("%s %s: %v", flag, shown, err)
	}
	return data, nil
}

// readFleet reads the --runners listings into one fleet.
func readFleet(paths []string) (*lint.Fleet, error) {
	fleet := &lint.Fleet{}
	for _, p := range paths {
		data, err := readFlagFile("--runners", p, maxRunnersSize)
		if err != nil {
			return nil, err
		}
		if err := fleet.Add(p, data); err != nil {
			return nil, err
		}
	}
	return fleet, nil
}

// readExternal reads the --external workflow files.
func readExternal(paths []string) ([]*lint.External, error) {
	var out []*lint.External
	for _, p := range paths {
		data, err := readFlagFile("--external", p, lint.MaxWorkflowSize)
		if err != nil {
			return nil, err
		}
		ext, err := lint.ReadExternal(p, data)
		if err != nil {
			return nil, err
		}
		out = append(out, ext)
	}
	return out, nil
}

func lintRun(_ context.Context, f *Factory, opts *LintOptions) error {
	cfg, reg, err := f.Collect()
	if err != nil {
		return reportCollectError(f, err)
	}
	lo := lint.Options{Now: f.Now}
	if len(opts.Runners) > 0 {
		if lo.Fleet, err = readFleet(opts.Runners); err != nil {
			return err
		}
	}
	if lo.External, err = readExternal(opts.External); err != nil {
		return err
	}
	res, err := lint.RunWith(f.Root, cfg, reg.Registrations, lo)
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
