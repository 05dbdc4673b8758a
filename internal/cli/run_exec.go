package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/history"
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
// suite of backend b under the configuration's gate section g (see
// suiterun.DecideGate), and prints the line that says whether it runs and
// why, when there is one.
func (o *RunOptions) decideGate(f *Factory, g config.Gate, b config.Backend, suite string) (suiterun.Gate, error) {
	gate := suiterun.DecideGate(b, suite, f.Getenv, o.GateHook, o.NoGate, g)
	if gate.Line == "" {
		return gate, nil
	}
	_, err := fmt.Fprintln(f.Out, gate.Line)
	return gate, err
}

// envHistoryURL names the run history's database when --history is not
// given: a workflow passes the secret there (`MILES_CI_HISTORY_URL: ${{
// secrets.MILES_CI_HISTORY_URL }}`), which is empty in a fork's pull
// request.
const envHistoryURL = "MILES_CI_HISTORY_URL"

// historyRecorder decides where a GPU run writes its history: --history
// when given, else MILES_CI_HISTORY_URL. No store at all (neither given)
// is silent: the run history is not configured. A store given empty is
// what a fork's pull request gets for a secret: one note says that
// nothing is written, and the run goes on. In a run executed again to hide
// the URL (see SealHistoryURL), the URL it received stands for either.
func (o *RunOptions) historyRecorder(f *Factory) (*history.Recorder, error) {
	url, where, given := o.History, "--history", o.historySet
	if !given {
		where = envHistoryURL
		if f.LookupEnv != nil {
			url, given = f.LookupEnv(envHistoryURL)
		} else if f.Getenv != nil {
			url = f.Getenv(envHistoryURL)
			given = url != ""
		}
	}
	if s := f.sealed; s != nil {
		url, given = s.url, true
		if s.err != nil {
			_, err := fmt.Fprintf(f.ErrOut, "warning: history: the store %s names was not received (%v); nothing written\n", where, s.err)
			return nil, err
		}
	}
	switch {
	case !given:
		return nil, nil
	case url == "":
		_, err := fmt.Fprintf(f.Out, "history: no store given (%s is empty, as a secret is in a fork's pull request); nothing written\n", where)
		return nil, err
	}
	if _, err := fmt.Fprintf(f.Out, "history: each file's attempts are written to the store %s names as the file finishes\n", where); err != nil {
		return nil, err
	}
	return &history.Recorder{URL: url, Where: where, Warn: f.ErrOut}, nil
}

// childEnv is the tests' environment: env (nil: this process's) less
// MILES_CI_HISTORY_URL, a secret the tests have no use for; nil, as
// before, when there is nothing to take out of this process's.
func childEnv(env []string) []string {
	inherit := env == nil
	if inherit {
		env = os.Environ()
	}
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !strings.HasPrefix(kv, envHistoryURL+"=") {
			out = append(out, kv)
		}
	}
	if inherit && len(out) == len(env) {
		return nil
	}
	return out
}

// executeSuite runs the enabled registrations of a planned suite (already
// printed, with its gate decided; see package suiterun) under cfg, the
// configuration the run loaded, and returns nil when every file passed, an
// *ExitError otherwise: pytest's status for a CPU suite, 1 for a failed GPU
// suite, exitHostNotReady when a preflight stopped it, 128 + the signal
// after an interrupt.
func executeSuite(ctx context.Context, f *Factory, opts *RunOptions, cfg *config.Config, p *suite.Plan, gate suiterun.Gate) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	var rec *history.Recorder
	if p.Backend != config.CPU {
		if rec, err = opts.historyRecorder(f); err != nil {
			return err
		}
	}
	var readHistory func(context.Context) (history.Reader, error)
	if rec != nil {
		// The store the run writes to is the one its step summary's
		// triage reads (see suiterun.Spec.Triage).
		readHistory = func(ctx context.Context) (history.Reader, error) {
			return history.OpenPostgres(ctx, rec.URL, history.ForReading)
		}
	}
	out, err := suiterun.Run(ctx, suiterun.Spec{
		Root: f.Root, Plan: p, OneFile: opts.File != "",
		Limits: opts.limits(cfg), Gate: gate, Outputs: opts.Outputs, InfraFingerprints: cfg.InfraFingerprints, Preflight: opts.preflight(cfg),
		Getenv: f.Getenv, Env: childEnv(f.environ()), Out: f.Out, ErrOut: f.ErrOut, Start: f.Start, Now: f.Now, Proc: f.Proc,
		History: rec, Triage: readHistory,
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

// preflight is the run's GPU preflight under cfg: the configuration's,
// with --preflight-timeout's when given, and off with --no-preflight.
func (o *RunOptions) preflight(cfg *config.Config) suiterun.PreflightSpec {
	pre := suiterun.PreflightSpec{Off: o.NoPreflight, Config: cfg.Preflight}
	if o.preflightTimeout != nil && o.preflightTimeout.Changed {
		pre.Config.Timeout = o.PreflightTimeout
	}
	return pre
}
