package runner

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// runFile runs the attempts of file i into res: each attempt, what decide
// makes of it, and what that says.
func (r *runState) runFile(ctx context.Context, i int, res *FileResult) {
	o := &r.opts
	timeout, attempts := o.EffectiveTimeout(res.EstTime), o.attempts()
	if attempts < 1 {
		// run_suite.py's retry loop never starts then, and the file counts
		// as failed without a group, a summary line or a child.
		res.Status = Fail
		r.printf("\nFAILED: %s was not run: --max-attempts %d allows no attempt\n\n", textfmt.OneLine(res.File), attempts)
		return
	}
	for a := 1; a <= attempts; a++ {
		if a > 1 {
			r.printf("\n[CI Retry] Attempt %d/%d for %s\n\n", a, attempts, textfmt.OneLine(res.File))
		}
		att, out := r.runAttempt(ctx, i, res, a, timeout)
		if out.infraFailure() {
			out.hostNotReady = r.recheckHost(ctx, res.File, a, *out.infra)
		}
		d := decide(out, retries{on: o.EnableRetry, more: a < attempts})
		att.settle(d, out, timeout)
		res.Attempts = append(res.Attempts, att)
		res.Status = att.Status
		if d.next == stopRun {
			r.hostNotReady = true
		}
		if att.Status == Pass {
			r.mergeRecords(res, a)
		}
		r.sayDecision(res.File, att, d)
		if d.next != retry {
			r.endAttempt(i, res.File, att)
			return
		}
		if !r.waitRetry(ctx, i, res.File, att) {
			res.Status = Interrupted
			return
		}
	}
}

// runAttempt runs attempt a of file i, with a time limit of timeout
// seconds: it opens the attempt's group, prints the Python runner's Begin
// and End lines around the child, and says how the child ended when it did
// not exit (it could not start, was interrupted, or timed out). It returns
// the attempt as far as it is known before decide, and what the attempt
// produced.
func (r *runState) runAttempt(ctx context.Context, i int, res *FileResult, a, timeout int) (Attempt, outcome) {
	o := &r.opts
	full := filepath.Join(o.Root, res.File)
	o.Log.Group(fmt.Sprintf("%s  (%d/%d est=%ds attempt=%d)", res.File, i+1, r.n, int(res.EstTime), a))
	r.printf(".\n.\nBegin (%d/%d):\n%s %s\n.\n.\n\n", i, r.n-1, textfmt.OneLine(o.Python), textfmt.OneLine(full))

	spec := procSpec{
		argv: []string{o.Python, full}, dir: o.Root, env: r.recordEnv(res.File, a),
		timeout: timeoutDuration(timeout), grace: o.KillGrace,
		out: o.Out, errOut: o.ErrOut, start: o.Start,
	}
	w := newWatchers(o.EnableRetry, o.Fingerprints)
	w.attach(&spec)
	began := o.Now()
	pr, err := runProc(ctx, spec)
	att := Attempt{Number: a, Started: began, Elapsed: o.Now().Sub(began), Output: w.output()}
	out := w.outcome(pr, err)
	if pr.endedWithoutNewline {
		// Our next line must not be glued to the child's last one.
		r.printf("\n")
	}
	// The Python runner's line, which people grep CI logs for: its
	// f-string self-documenting fields, a repr each.
	r.printf(".\n.\nEnd (%d/%d):\nfilename=%s, elapsed=%.0f, _estimated_time=%s\n.\n.\n\n",
		i, r.n-1, pyfmt.Repr(res.File), att.Elapsed.Seconds(), pyfmt.Float(res.EstTime))

	name := textfmt.OneLine(res.File)
	switch {
	case out.startErr != nil:
		r.printf("\nFAILED: %s could not be started: %v\n\n", name, out.startErr)
	case out.interrupted:
		r.printf("\nINTERRUPTED: %s\n\n", name)
	case out.timedOut:
		r.printf("\nTIMEOUT: %s after %d seconds\n\n", name, timeout)
	}
	return att, out
}

// settle fills in what the attempt is after decide: its status, cause and
// retry reason, and the detail each status has.
func (a *Attempt) settle(d decision, out outcome, timeout int) {
	a.Status, a.Cause, a.RetryReason = d.status, d.cause, d.retryReason
	switch {
	case a.Status == Timeout:
		a.TimeoutAfter = timeout
	case a.Status == Interrupted:
	case out.startErr != nil:
		a.StartError = out.startErr.Error()
	default:
		code := out.exitCode
		a.ExitCode = &code
	}
	if a.Cause == report.CauseInfra {
		a.CauseLine, a.Fingerprint = out.infra.Line, out.infra.Fingerprint
	}
}

// sayDecision says what decide made of attempt att of file: the annotation
// of an infra failure, whether it is retried and why, and a failure's or a
// retry's success.
func (r *runState) sayDecision(file string, att Attempt, d decision) {
	name := textfmt.OneLine(file)
	if d.cause == report.CauseInfra {
		r.annotateInfra(file, att, d.next == retry)
	}
	switch {
	case d.next == retry:
		r.printf("\n[CI Retry] %s failed with %s\n", name, d.retryReason)
		return
	case d.retryReason != "":
		r.printf("\n[CI Retry] %s failed with %s - not retrying\n\n", name, d.retryReason)
	}
	switch {
	case att.Status == Fail && att.ExitCode != nil:
		r.printf("\nFAILED: %s returned exit code %d\n\n", name, *att.ExitCode)
	case att.Status == Pass && att.Number > 1:
		r.printf("\nPASSED on retry (attempt %d): %s\n\n", att.Number, name)
	}
}

// waitRetry waits before the next attempt and ends att meanwhile; false
// when the wait was interrupted.
func (r *runState) waitRetry(ctx context.Context, i int, file string, att Attempt) bool {
	o := &r.opts
	r.printf("[CI Retry] Waiting %ds before retry...\n\n", o.RetryWaitSeconds)
	err := o.Sleep(ctx, waitDuration(o.RetryWaitSeconds))
	r.endAttempt(i, file, att)
	return err == nil
}

// endAttempt closes the group of attempt att of file i and reports the
// attempt, unless it was interrupted.
func (r *runState) endAttempt(i int, file string, att Attempt) {
	o := &r.opts
	o.Log.EndGroup()
	if att.Status == Interrupted {
		return
	}
	var exit, after *int
	switch att.Status {
	case Fail:
		exit = att.ExitCode
	case Timeout:
		after = &att.TimeoutAfter
	}
	o.Log.AttemptSummary(i+1, r.n, file, string(att.Status), att.Elapsed, exit, after, att.Number-1)
}

// watchers read an attempt's output as it passes: with retries on, the
// retry classifier and the tail a report keeps (the output then comes
// through one pipe), and the infra fingerprints when there are any.
type watchers struct {
	classifier *Classifier
	tail       *tailBuffer
	infra      *infraWatch
}

func newWatchers(retries bool, fps []Fingerprint) watchers {
	w := watchers{infra: newInfraWatch(fps)}
	if retries {
		w.classifier, w.tail = NewClassifier(), newTailBuffer(TailSize)
	}
	return w
}

// attach routes the output of spec through the watchers.
func (w watchers) attach(spec *procSpec) {
	switch {
	case w.classifier != nil:
		spec.merged = true
		observers := []io.Writer{w.classifier, w.tail}
		if w.infra != nil {
			observers = append(observers, w.infra.stream())
		}
		spec.observe = io.MultiWriter(observers...)
	case w.infra != nil:
		spec.watch = w.infra.stream
	}
}

// output is the captured tail of the output, nil when none was captured.
func (w watchers) output() []byte {
	if w.tail == nil {
		return nil
	}
	return w.tail.Bytes()
}

// outcome is what the attempt produced: how its child ended (pr, or the
// error that it could not start) and what the watchers read.
func (w watchers) outcome(pr procResult, err error) outcome {
	out := outcome{startErr: err, interrupted: pr.interrupted, timedOut: pr.timedOut, exitCode: pr.exitCode}
	if w.infra != nil && err == nil {
		if m, ok := w.infra.result(); ok {
			out.infra = &m
		}
	}
	if w.classifier != nil {
		out.retriable, out.reason = w.classifier.Verdict()
	}
	return out
}
