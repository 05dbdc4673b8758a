package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/suiterun"
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

// decideGate makes the run's one decision on the metric-history gate, for a
// suite of backend b (see suiterun.DecideGate), and prints the line that
// says whether it runs and why, when there is one.
func (o *RunOptions) decideGate(f *Factory, b config.Backend, suite string) (suiterun.Gate, error) {
	gate := suiterun.DecideGate(b, suite, f.Getenv, o.GateHook, o.NoGate, o.gate)
	if gate.Line == "" {
		return gate, nil
	}
	_, err := fmt.Fprintln(f.Out, gate.Line)
	return gate, err
}

// executeSuite runs the enabled registrations of a planned suite (already
// printed, with its gate decided; see package suiterun) and returns nil
// when every file passed, an *ExitError otherwise: pytest's status for a
// CPU suite, 1 for a failed GPU suite, exitHostNotReady when a preflight
// stopped it, 128 + the signal after an interrupt.
func executeSuite(ctx context.Context, f *Factory, opts *RunOptions, p *suite.Plan, gate suiterun.Gate) error {
	if ctx == nil {
		ctx = context.Background()
	}
	pre := suiterun.PreflightSpec{Off: opts.NoPreflight, Config: opts.preflight}
	if opts.preflightTimeout != nil && opts.preflightTimeout.Changed {
		pre.Config.Timeout = opts.PreflightTimeout
	}
	out, err := suiterun.Run(ctx, suiterun.Spec{
		Root: f.Root, Plan: p, OneFile: opts.File != "",
		Limits: opts.Limits, Gate: gate, Outputs: opts.Outputs, InfraFingerprints: opts.infra, Preflight: pre,
		Getenv: f.Getenv, Env: f.environ(), Out: f.Out, ErrOut: f.ErrOut, Start: f.Start, Now: f.Now, Proc: f.Proc,
	})
	switch {
	case err != nil:
		return err
	case out.Interrupted:
		return &ExitError{Code: interruptedStatus(ctx)}
	case out.HostNotReady:
		return &ExitError{Code: exitHostNotReady}
	case out.Code != 0:
		return &ExitError{Code: out.Code}
	}
	return nil
}
