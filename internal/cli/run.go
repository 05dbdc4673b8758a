package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/complete"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/quarantine"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/view"
)

// RunOptions holds every flag of `miles-ci run`. The selection half (SPEC §5)
// is shared with `miles-ci partition`; the execution half only matters when
// tests really run.
type RunOptions struct {
	selectionFlags
	PartitionID   int
	PartitionSize int
	PartitionSet  bool // --auto-partition-id/--auto-partition-size given
	ListOnly      bool
	JSON          bool
	// RerunFailed is the --rerun-failed report: only the selected tests
	// that did not pass in it run ("" for all).
	RerunFailed string
	// File is --file: run only this registered file ("" for a suite run).
	File string
	// ExpectPlan is the digest of the stage plan the policy job planned
	// this shard on ("" checks nothing).
	ExpectPlan string

	// Config loads the configuration; nil is the Factory's. A run reads
	// what it needs of it (the gate, infra_fingerprints, the preflight,
	// file_run's minimum time limit) where it uses it, from the one
	// *config.Config runRun loaded: nothing of it is copied into these
	// options. Tests replace it.
	Config func() (*config.Config, error)

	// Execution. The limits and the report files are bound from their
	// flags straight into the structs the run takes.
	runner.Limits
	report.Outputs
	ContinueOnError bool
	GateHook        string
	NoGate          bool
	// NoPreflight turns the GPU preflight off; PreflightTimeout, when
	// given (preflightTimeout.Changed), replaces the configuration's.
	NoPreflight      bool
	PreflightTimeout time.Duration
	// NoQuarantine is --no-quarantine (see suite.Inputs.NoQuarantine).
	NoQuarantine     bool
	preflightTimeout *pflag.Flag
	// History is --history: the URL of the run history's database; see
	// historyRecorder for when it is taken from the environment.
	History    string
	historySet bool

	// Which of the two partition flags were given, and the size as typed
	// (argv parsing only).
	partitionIDSet   bool
	partitionSizeSet bool
	partitionSize    *argparse.Int
	partitionID      *argparse.Int
	// timeoutSet: --timeout-per-file was given (a file run's default is
	// the configured minimum).
	timeoutSet bool
}

// NewCmdRun builds `miles-ci run`, the replacement of tests/ci/run_suite.py:
// select one suite's tests under the run's policy, take one shard of them,
// print the plan, and run them (or, with --list-only, stop at the plan).
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	opts := &RunOptions{}
	cmd := &cobra.Command{
		Use:   "run {--hw {cpu,cuda,rocm} --suite SUITE | --file FILE} [flags]",
		Short: "Select, shard and run one suite (or run one registered file)",
		Long: `Select the registrations of one suite under the CI policy of a run (cadence
and raw PR labels), take one shard of them with --auto-partition-id/-size,
print the plan, and run the tests: one pytest for a CPU suite, one process
per file for a GPU suite. The flags are those of tests/ci/run_suite.py;
--labels takes zero or more values.

With --file, run exactly that registered file instead (the /rerun-test
command): its suite and hardware come from its registration, labels and the
nightly gate do not apply, and a disabled file is refused.`,
		Example: `  miles-ci run --hw cuda --suite stage-c-8-gpu-h100 --labels run-ci-fsdp --list-only
  miles-ci run --hw cpu --suite stage-a-cpu --auto-partition-id 0 --auto-partition-size 4
  miles-ci run --hw cuda --suite stage-b-2-gpu-h200 --nightly --list-only --json
  PYTHONPATH=$PWD miles-ci run --file tests/e2e/short/test_dumper.py --json-report report.json`,
		// Flags are parsed by parseOwnFlags so that --labels can take zero
		// or more values (see selection_flags.go).
		DisableFlagParsing: true,
		ValidArgsFunction:  complete.Func(&f.Root, &f.ConfigPath),
		Annotations:        finishOnSignal("stops its children on the cancelled context, then writes its reports"),
		RunE: func(cmd *cobra.Command, args []string) error {
			help, extras, err := parseOwnFlags(cmd, args)
			if err != nil {
				return err
			}
			if help {
				return cmd.Help()
			}
			opts.extras = extras
			opts.historySet = cmd.Flags().Changed("history")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	argparse.AddOriginal(fs, func(fs *pflag.FlagSet) { // run_suite.py's flags, in its order
		addSelectionFlags(fs, &opts.selectionFlags, true)
		argparse.AddInt(fs, &opts.TimeoutPerFile, &opts.timeoutSet, "timeout-per-file", 1800, "time limit of one file in `SECONDS`")
		fs.BoolVar(&opts.ContinueOnError, "continue-on-error", false, "keep running after a file fails")
		opts.partitionID = argparse.AddInt(fs, &opts.PartitionID, &opts.partitionIDSet, "auto-partition-id", 0, "run only shard `ID` (0-based) of the suite")
		opts.partitionSize = argparse.AddInt(fs, &opts.PartitionSize, &opts.partitionSizeSet, "auto-partition-size", 0, "split the suite into `N` shards (longest first)")
		fs.BoolVar(&opts.EnableRetry, "enable-retry", false, "retry a file whose failure looks flaky (accuracy, performance)")
		argparse.AddInt(fs, &opts.MaxAttempts, nil, "max-attempts", 2, "`N` attempts per file, the first included")
		argparse.AddInt(fs, &opts.RetryWaitSeconds, nil, "retry-wait-seconds", 60, "`SECONDS` to wait between attempts")
		argparse.AddInt(fs, &opts.RetryTimeoutIncrease, nil, "retry-timeout-increase", 600, "`SECONDS` added to the timeout when retry is enabled")
		fs.BoolVar(&opts.ListOnly, "list-only", false, "print the plan and stop")
		addLabelFlags(fs, &opts.selectionFlags)
	})
	addTimingsFlag(fs, &opts.Timings, timingsUsage)
	flagkind.String(fs, &opts.File, "file", "", "run only this registered test `FILE`: as registered, or a path from the working directory below the root (--hw, --suite and the selection flags do not apply)", flagkind.Path, "py")
	fs.BoolVar(&opts.JSON, "json", false, "with --list-only: print the plan as JSON only")
	flagkind.String(fs, &opts.JUnitXML, "junit-xml", "", "write a JUnit XML report to `PATH` (CPU suites: passed to pytest as --junitxml)", flagkind.Output, "xml")
	flagkind.String(fs, &opts.JSONReport, "json-report", "", "write a JSON report of every file to `PATH` (GPU suites)", flagkind.Output, "json")
	flagkind.String(fs, &opts.TimingsOut, "timings-out", "", "merge the measured seconds of every passed file into the JSON file `PATH` (GPU suites)", flagkind.Output, "json")
	fs.BoolVar(&opts.NoPreflight, "no-preflight", false, "do not check the host's GPUs before the first test of a GPU suite")
	fs.DurationVar(&opts.PreflightTimeout, "preflight-timeout", 0, "wait at most `DURATION` (120s, 2m) for the host's GPUs to answer before the first test of a GPU suite (default: the configuration's preflight.timeout, 120s)")
	opts.preflightTimeout = flagkind.Set(fs.Lookup("preflight-timeout"), flagkind.Text)
	fs.BoolVar(&opts.NoQuarantine, "no-quarantine", false, "run the configuration's quarantined files as ordinary files: a failure of one fails the run (miles-ci help config)")
	fs.BoolVar(&opts.NoGate, "no-gate", false, "do not call the metric-history gate, even with NEON_DATABASE_URL set")
	flagkind.String(fs, &opts.GateHook, "gate-hook", "", "shell `COMMAND` run after each passed file with a metric record, as: sh -c COMMAND sh FILE MERGED_RECORD", flagkind.Text)
	// An empty digest checks nothing: a matrix of every shard carries none.
	flagkind.EmptyOK(flagkind.String(fs, &opts.ExpectPlan, "expect-plan", "", "stop with exit status 4 unless the stage plan is `DIGEST`, the plan policy --shard-matrix gave this shard (\"\" checks nothing)", flagkind.Text))
	// An empty URL is what a fork's pull request passes for a secret.
	flagkind.EmptyOK(flagkind.String(fs, &opts.History, "history", "", "write each file's attempts to the run history in the PostgreSQL database at `URL` as the file finishes (default: $"+envHistoryURL+"; \"\" writes none; see miles-ci help history)", flagkind.Text))
	flagkind.String(fs, &opts.RerunFailed, "rerun-failed", "", "run only the tests that did not pass in `REPORT` (an earlier --json-report of this GPU suite and shard), whichever shard they are in today", flagkind.Path, "json")
	return cmd
}

// validate checks the combinations argparse checked in run_suite.py, then
// miles-ci's own.
func (o *RunOptions) validate() error {
	if o.File != "" {
		return o.validateFile()
	}
	if err := o.resolve(true, " (or --file FILE alone, to run one registered file)"); err != nil {
		return err
	}
	if o.partitionIDSet != o.partitionSizeSet {
		return usageErrorf("--auto-partition-id and --auto-partition-size must be specified together.")
	}
	o.PartitionSet = o.partitionSizeSet
	if o.PartitionSet {
		if o.PartitionSize <= 0 {
			return usageErrorf("--auto-partition-size must be positive.")
		}
		if o.PartitionSize > config.MaxShards {
			return usageErrorf("--auto-partition-size must be at most %d, got %s", config.MaxShards, o.partitionSize.Typed())
		}
		if o.PartitionID < 0 || o.PartitionID >= o.PartitionSize {
			return usageErrorf("--auto-partition-id must be in range [0, %d), but got %s", o.PartitionSize, o.partitionID.Typed())
		}
	}
	if o.NoGate && o.GateHook != "" {
		return usageErrorf("--no-gate turns the gate off; it cannot be used with --gate-hook")
	}
	if o.preflightTimeout != nil && o.preflightTimeout.Changed {
		if o.PreflightTimeout <= 0 {
			return usageErrorf("--preflight-timeout must be positive, as 120s or 2m, got %s", o.preflightTimeout.Value.String())
		}
		if o.NoPreflight {
			return usageErrorf("--no-preflight turns the preflight off; it cannot be used with --preflight-timeout")
		}
	}
	if o.JSON && !o.ListOnly {
		return usageErrorf("--json needs --list-only")
	}
	if o.ExpectPlan != "" && !o.PartitionSet {
		return usageErrorf("--expect-plan checks the plan of a shard: give --auto-partition-id and --auto-partition-size too")
	}
	if o.RerunFailed != "" && o.HW == string(config.CPU) {
		// A CPU suite is one pytest process and writes no JSON report:
		// there is nothing its rerun could read.
		return usageErrorf("--rerun-failed applies to GPU suites only; a CPU suite (--hw cpu) writes no JSON report to rerun from")
	}
	return nil
}

// runRun plans the suite and runs it. It loads the configuration once and
// hands it to what reads it: the selection, the gate, the execution. The
// order of errors is SPEC §5's: registry, then policy, then the unknown
// suite (usage errors came first).
func runRun(ctx context.Context, f *Factory, opts *RunOptions) error {
	cfg, reg, err := f.collectWith(opts.Config)
	if err != nil {
		return reportCollectError(f, err)
	}
	if opts.File != "" {
		return runFile(ctx, f, opts, cfg, reg.Registrations)
	}
	in := suite.Inputs{ID: suite.AllShards, ContinueOnError: opts.ContinueOnError, NoQuarantine: opts.NoQuarantine}
	if opts.PartitionSet {
		in.Shards, in.ID = opts.PartitionSize, opts.PartitionID
	}
	var showPolicy func(policy.Policy) error
	if !opts.JSON {
		showPolicy = func(pol policy.Policy) error {
			_, err := fmt.Fprintln(f.Out, view.PolicyLine(pol))
			return err
		}
	}
	p, err := opts.selectSuite(f, cfg, reg.Registrations, in, opts.RerunFailed, showPolicy)
	if err != nil {
		return err
	}
	if err := p.CheckDigest(opts.ExpectPlan); err != nil {
		return err
	}
	marks := quarantineMarks(f, p, p.Tests)
	if opts.JSON {
		if err := view.PlanJSON(f.Out, p, marks); err != nil {
			return err
		}
		noteDropped(f, p)
		return nil
	}
	if err := view.Plan(f.Out, p, marks); err != nil {
		return err
	}
	if len(p.Tests) == 0 {
		_, err := fmt.Fprintln(f.Out, view.NoTestsLine)
		noteDropped(f, p)
		return err
	}
	gate, err := opts.decideGate(f, cfg.Gate, p.Backend, p.Suite.Name)
	if err != nil {
		return err
	}
	if opts.ListOnly {
		return nil
	}
	return executeSuite(ctx, f, opts, cfg, p, gate)
}

// quarantineMarks are what the listing of p's files says of the run's
// quarantine: the files of regs an entry concerns, judged at the Factory's
// time (quarantine.Marks); nil, and no clock read, when none can.
func quarantineMarks(f *Factory, p *suite.Plan, regs []registry.Registration) map[string]quarantine.Mark {
	if len(p.Quarantine) == 0 {
		return nil
	}
	return quarantine.Marks(p.Quarantine, p.Suite.Name, regs, f.now())
}
