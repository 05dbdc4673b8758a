package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/suiterun"
)

// PreflightOptions holds the flags of `miles-ci preflight`.
type PreflightOptions struct {
	// Suite checks the host for this suite: its backend, its GPUs and its
	// probe (--suite); GPUs, without a suite, the count the host must list
	// (--gpus, 0: none checked).
	Suite string
	GPUs  int
	// Timeout, when given (timeout.Changed), replaces the configuration's
	// preflight.timeout (--timeout).
	Timeout time.Duration
	JSON    bool // --json: the check's record as JSON

	timeout, gpus *pflag.Flag
}

// preflightWhen is the record's "when" for a check of its own.
const preflightWhen = "preflight"

// NewCmdPreflight builds `miles-ci preflight`: the GPU preflight of `run`,
// alone, for a runner's job-started hook or a step before the job's setup.
func NewCmdPreflight(f *Factory, runF func(*PreflightOptions) error) *cobra.Command {
	opts := &PreflightOptions{}
	cmd := &cobra.Command{
		Use:   "preflight",
		Short: "Check that this host's GPUs can run a test (exit 75 when not)",
		Long: `Check this host as run checks it before the first test of a GPU suite: the
GPU tool (nvidia-smi; amd-smi, else rocm-smi) must answer and list the GPUs
needed, then the configuration's compute probe, when it has one, must pass.
Exit 0 when the host is ready, 75 when it is not, naming the check that
failed and its last words. With --suite, the suite's backend, GPUs and probe;
otherwise the backend whose tool is on PATH, --gpus GPUs, and the preflight
section's probe. A host without a GPU tool is not ready. As a self-hosted
runner's job-started hook it fails a job on a broken host before checkout and
image pull (miles-ci help hosts).`,
		Example: `  miles-ci preflight --suite stage-c-8-gpu-h100
  miles-ci preflight --gpus 8 --timeout 30s --json`,
		Args:        cobra.NoArgs,
		Annotations: finishOnSignal("stops the GPU tool and the probe it started"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return preflightRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	flagkind.String(fs, &opts.Suite, "suite", "", "check the host for this `SUITE`: its backend, GPUs and probe", flagkind.Choice)
	fs.IntVar(&opts.GPUs, "gpus", 0, "the host must list at least `N` GPUs (without --suite)")
	opts.gpus = fs.Lookup("gpus")
	fs.DurationVar(&opts.Timeout, "timeout", 0, "wait at most `DURATION` (120s, 2m) for the GPU tool to answer (default: the configuration's preflight.timeout, 120s); the probe has its own probe_timeout")
	opts.timeout = flagkind.Set(fs.Lookup("timeout"), flagkind.Text)
	fs.BoolVar(&opts.JSON, "json", false, "print the check's record as JSON, with \"ready\"")
	return cmd
}

// check validates the flags together.
func (o *PreflightOptions) check() error {
	if o.Suite != "" && o.gpus != nil && o.gpus.Changed {
		return usageErrorf("--gpus is the count without a suite; --suite takes its suite's (its gpus: key or its runs_on label <N>gpu)")
	}
	if o.gpus != nil && o.gpus.Changed && (o.GPUs < 1 || o.GPUs > config.MaxGPUs) {
		return usageErrorf("--gpus must be a whole number from 1 to %d, got %d", config.MaxGPUs, o.GPUs)
	}
	if o.timeout != nil && o.timeout.Changed && o.Timeout <= 0 {
		return usageErrorf("--timeout must be positive, as 120s or 2m, got %s", o.timeout.Value.String())
	}
	return nil
}

func preflightRun(ctx context.Context, f *Factory, opts *PreflightOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := opts.check(); err != nil {
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	root, err := filepath.Abs(f.Root)
	if err != nil {
		return err
	}
	path := f.Getenv("PATH")
	check := runner.Preflight{Path: path, Env: f.environ(), Preflight: cfg.Preflight, GPUsNeeded: opts.GPUs,
		ToolRequired: true, Dir: root, Now: f.Now}
	if opts.Suite != "" {
		s, err := cfg.FindSuite(opts.Suite, "")
		if err != nil {
			return err
		}
		if s.Backend == config.CPU {
			return usageErrorf("%s is a cpu suite; the preflight checks the GPU hosts of cuda and rocm suites", s.Name)
		}
		check.Backend, check.GPUsNeeded, check.Preflight = string(s.Backend), s.GPUsNeeded(), cfg.Preflight.ForSuite(s)
	} else {
		check.Backend = runner.DetectBackend(path)
	}
	if opts.timeout != nil && opts.timeout.Changed {
		check.Timeout = opts.Timeout
	}
	for _, fp := range config.InfraFingerprintsFor(cfg.InfraFingerprints, config.Backend(check.Backend)) {
		check.Fingerprints = append(check.Fingerprints, runner.Fingerprint{Name: fp.Name, Pattern: fp.Regexp})
	}

	var pf report.Preflight
	var gpus []report.GPU
	if check.Backend == "" {
		pf = report.Preflight{When: preflightWhen, Status: report.PreflightNotReady, Reason: runner.NoGPUTool,
			GpusNeeded: check.GPUsNeeded, Foreign: []report.ForeignProcess{}}
	} else {
		pf, gpus = check.CheckGPUs(ctx, preflightWhen)
	}
	if pf.Status == report.PreflightNotReady && pf.FailedCheck == "" {
		pf.FailedCheck = report.CheckGPUTool
	}
	if err := writePreflight(f, opts, pf, gpus); err != nil {
		return err
	}
	switch {
	case ctx.Err() != nil:
		return &ExitError{Code: interruptedStatus(ctx)}
	case pf.Status == report.PreflightNotReady:
		return &ExitError{Code: exitHostNotReady}
	}
	return nil
}

// writePreflight prints the check's record: as JSON with "ready" first, or
// as run logs its preflight (with the runner's name, RUNNER_NAME, where
// there is one).
func writePreflight(f *Factory, opts *PreflightOptions, pf report.Preflight, gpus []report.GPU) error {
	if opts.JSON {
		data, err := json.MarshalIndent(struct {
			Ready bool `json:"ready"`
			report.Preflight
		}{pf.Status != report.PreflightNotReady, pf}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(f.Out, "%s\n", data)
		return err
	}
	host := &report.Host{Runner: f.Getenv("RUNNER_NAME")}
	suiterun.LogCheck(f.Out, f.Getenv("GITHUB_ACTIONS") == "true", host, pf, gpus)
	return nil
}
