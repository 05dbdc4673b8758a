package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/filerun"
	"github.com/radixark/miles-ci/internal/quarantine"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// validateFile checks the flags of `run --file`: the file is the whole
// selection, so no flag that selects or shards a suite may come with it.
func (o *RunOptions) validateFile() error {
	var clash []string
	for _, c := range []struct {
		given bool
		flag  string
	}{
		{o.HW != "", "--hw"},
		{o.suiteSet, "--suite"},
		{len(o.cadenceOrder) > 0, strings.Join(o.cadenceOrder, "/")},
		{o.Labels != nil, "--labels"},
		{o.MatchAllLabels, "--match-all-labels"},
		{o.partitionIDSet, "--auto-partition-id"},
		{o.partitionSizeSet, "--auto-partition-size"},
		{o.Timings != "", "--timings"},
		{o.RerunFailed != "", "--rerun-failed"},
		{o.ExpectPlan != "", "--expect-plan"},
		{o.JSON, "--json"},
	} {
		if c.given {
			clash = append(clash, c.flag)
		}
	}
	if len(clash) > 0 {
		return usageErrorf("--file runs one registered file, its suite and hardware from its registration; it cannot be used with %s", strings.Join(clash, ", "))
	}
	return asUsage(argparse.Unrecognized(o.extras))
}

// runFile runs exactly one registered file (`run --file`) of regs, the
// registry collected under cfg, with the runner of a suite run: its
// registration resolved as file-run resolves it (the registry `run` reads,
// not the script's walk), its time limit the configured minimum or 1.25
// times its est_time unless --timeout-per-file is given (see limits).
func runFile(ctx context.Context, f *Factory, opts *RunOptions, cfg *config.Config, regs []registry.Registration) error {
	file, err := filerun.RegisteredPath(f.Root, opts.File, regs)
	if err != nil {
		return err
	}
	fp, err := filerun.Find(cfg, regs, file)
	if err != nil {
		return err
	}
	r := fp.Registration
	// The limit the runner will apply: pytest is not retried, so a CPU
	// file's limit has no retry increase.
	limits := opts.limits(cfg)
	limits.EnableRetry = limits.EnableRetry && r.Backend != config.CPU
	if err := fp.WriteRunHeader(f.Out, limits.EffectiveTimeout(r.EstTime)); err != nil {
		return err
	}
	// A file asked for by name is run to see whether it passes: the
	// quarantine is not applied, and the log says so.
	if e, ok := quarantine.Find(cfg.Quarantine, r.File, r.Suite, f.now()); ok {
		if _, err := fmt.Fprintf(f.Out, "[CI Quarantine] %s is %s; not applied: run --file runs it as an ordinary file, whose failure fails the run\n",
			textfmt.Term(r.File), textfmt.Term(quarantine.Describe(e))); err != nil {
			return err
		}
	}
	gate, err := opts.decideGate(f, cfg.Gate, r.Backend, r.Suite)
	if err != nil {
		return err
	}
	if opts.ListOnly {
		return nil
	}
	// The runner's GPUs are the suite's, whose job the file runs on.
	sc, _ := cfg.Suite(r.Suite)
	return executeSuite(ctx, f, opts, cfg, &suite.Plan{Backend: r.Backend, Suite: config.Suite{Name: r.Suite, RunsOn: sc.RunsOn, GPUs: sc.GPUs},
		Enabled: []registry.Registration{r}, Tests: []registry.Registration{r}}, gate)
}

// limits are the run's limits under cfg: the flags', except that a file
// run's time limit, unless --timeout-per-file is given, is the configured
// minimum (file_run.min_timeout) that est_time raises.
func (o *RunOptions) limits(cfg *config.Config) runner.Limits {
	l := o.Limits
	if o.File != "" && !o.timeoutSet {
		l.TimeoutPerFile = cfg.FileRun.MinTimeout
	}
	return l
}
