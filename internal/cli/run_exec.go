package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/plan"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
)

// Environment variables of the metric-history gate.
const (
	envNeonDatabaseURL = "NEON_DATABASE_URL"
	envStepSummary     = "GITHUB_STEP_SUMMARY"
)

// SignalError is the cause of a context cancelled by a signal.
type SignalError struct{ Signal os.Signal }

func (e *SignalError) Error() string { return "interrupted by " + e.Signal.String() }

// interruptedStatus is the exit status after ctx was cancelled: 128 + the
// signal's number, as shells report it (130 when the signal is unknown).
func interruptedStatus(ctx context.Context) int {
	var se *SignalError
	if errors.As(context.Cause(ctx), &se) {
		if s, ok := se.Signal.(syscall.Signal); ok {
			return 128 + int(s)
		}
	}
	return 128 + int(syscall.SIGINT)
}

// executeSuite runs the enabled registrations of a planned suite (already
// printed) and returns nil when every file passed, an *ExitError otherwise.
//
// CPU suites are one pytest process whose status is ours. GPU suites run
// file by file (see package runner); their progress lines, the summary and
// the children's output all go to f.Out, warnings to f.ErrOut.
func executeSuite(ctx context.Context, f *Factory, opts *RunOptions, p *plan.Plan) error {
	if ctx == nil {
		ctx = context.Background()
	}
	backend, continueOnError, enabled := p.Backend, p.ContinueOnError, p.Enabled
	root, err := filepath.Abs(f.Root)
	if err != nil {
		return fmt.Errorf("repository root %q: %w", f.Root, err)
	}
	abs := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		return filepath.Abs(p)
	}
	junit, err := abs(opts.JUnitXML)
	if err != nil {
		return err
	}
	env := f.environ()
	outputs := []runner.Output{{Flag: "--junit-xml", Path: junit}}
	if backend != config.CPU {
		outputs = append(outputs, runner.Output{Flag: "--json-report", Path: opts.JSONReport},
			runner.Output{Flag: "--timings-out", Path: opts.TimingsOut, Timings: true})
	}
	if err := runner.CheckOutputs(outputs); err != nil {
		return err
	}

	if backend == config.CPU {
		for flag, v := range map[string]string{"--json-report": opts.JSONReport, "--timings-out": opts.TimingsOut} {
			if v != "" {
				fmt.Fprintf(f.ErrOut, "warning: %s applies to GPU suites only; pytest runs CPU suites\n", flag)
			}
		}
		files := make([]string, len(enabled))
		for i, r := range enabled {
			files[i] = r.File
		}
		timeout := 0
		if opts.File != "" {
			// A file run has a time limit, as its GPU files have; a suite's
			// pytest has none, as in run_suite.py.
			timeout = runner.FileTimeout(opts.TimeoutPerFile, enabled[0].EstTime)
		}
		code, err := runner.RunPytest(ctx, runner.PytestOptions{
			Root: root, Files: files, ContinueOnError: continueOnError, JUnitXML: junit,
			Env: env, Out: f.Out, ErrOut: f.ErrOut, Start: f.Start, Timeout: timeout,
		})
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return &ExitError{Code: interruptedStatus(ctx)}
		}
		if code != 0 {
			return &ExitError{Code: code}
		}
		return nil
	}

	gateBase := f.Getenv(runner.RecordDirEnv)
	if gateBase == "" && backend == config.CUDA && f.Getenv(envNeonDatabaseURL) != "" {
		dir, err := runner.NewGateBase()
		if err != nil {
			return err
		}
		defer runner.RemoveGateBase(dir, f.ErrOut)
		gateBase = dir
		env = append(env, runner.RecordDirEnv+"="+dir)
	}

	files := make([]runner.File, len(enabled))
	for i, r := range enabled {
		files[i] = runner.File{Name: r.File, EstTime: r.EstTime}
	}
	now := f.Now
	if now == nil {
		now = time.Now
	}
	rep := runner.Run(ctx, files, runner.Options{
		Root:                 root,
		TimeoutPerFile:       opts.TimeoutPerFile,
		ContinueOnError:      continueOnError,
		EnableRetry:          opts.EnableRetry,
		MaxAttempts:          opts.MaxAttempts,
		RetryWaitSeconds:     opts.RetryWaitSeconds,
		RetryTimeoutIncrease: opts.RetryTimeoutIncrease,
		GateBaseDir:          gateBase,
		GateHook:             opts.GateHook,
		WriteBaseline:        p.Policy.WriteBaseline,
		Env:                  env,
		Out:                  f.Out,
		ErrOut:               f.ErrOut,
		Log:                  ghactions.NewLog(f.Out, f.Getenv),
		Start:                f.Start,
		Now:                  now,
	})

	// Reports are written even for a failed or interrupted run: that is
	// when they matter most. A report that cannot be written fails the run.
	doc := rep.Document(opts.Suite, string(backend))
	reportErr := report.WriteOutputs(report.Outputs{JUnitXML: junit, JSONReport: opts.JSONReport, TimingsOut: opts.TimingsOut}, doc)
	if path := f.Getenv(envStepSummary); path != "" {
		if err := ghactions.AppendStepSummary(path, report.StepSummary(doc)); err != nil {
			fmt.Fprintf(f.ErrOut, "warning: %v\n", err)
		}
	}
	if reportErr != nil {
		return reportErr
	}

	switch {
	case rep.Interrupted:
		return &ExitError{Code: interruptedStatus(ctx)}
	case !rep.Passed():
		return &ExitError{Code: exitFailure}
	}
	return nil
}
