package runner

import "github.com/radixark/miles-ci/internal/report"

// outcome is what one attempt of a file produced, as read at the edge (the
// child's end, what watched its output, the host's answer): the input of
// decide, which holds every rule of what follows an attempt.
type outcome struct {
	startErr    error // the child could not be started
	interrupted bool  // the run was cancelled while the child ran
	timedOut    bool
	exitCode    int
	// infra is the line an infra fingerprint matched in the output, nil
	// when none did (or there are no fingerprints).
	infra *InfraMatch
	// hostNotReady: the preflight asked after an infra failure found the
	// host not ready (false when it was not asked, or there is none).
	hostNotReady bool
	// retriable and reason are the retry classifier's verdict on the
	// output; it reads the output only when retries are on.
	retriable bool
	reason    string
}

// retries is what the run allows after an attempt.
type retries struct {
	on   bool // --enable-retry
	more bool // another attempt is allowed (--max-attempts)
}

// next is what follows an attempt.
type next int

const (
	// finish: the attempt was the file's last; the file's status is the
	// attempt's, and the run goes on as the status and
	// --continue-on-error say.
	finish next = iota
	// retry: another attempt of the file follows, after the retry wait.
	retry
	// stopRun: the attempt was the file's last and the run's too: the
	// host was found not ready after an infra failure.
	stopRun
)

// decision is what decide makes of an attempt.
type decision struct {
	status Status
	cause  report.Cause
	next   next
	// retryReason is why the attempt is retried, or, when the retry
	// classifier was asked and said no, why not ("" otherwise): the
	// attempt's RetryReason.
	retryReason string
}

// decide is the attempt's status and cause, and what follows it. A child
// that could not start fails the same way on any host: the cause is the
// job's. A fingerprint's match makes a failure or a timeout an infra
// failure (the fingerprint names the root of the failure, the timeout only
// its symptom): it is retried, whatever the classifier would say, unless
// the host was found not ready, which stops the run. Another failure is
// retried when the classifier calls it retriable; a timeout is not.
func decide(o outcome, r retries) decision {
	switch {
	case o.startErr != nil:
		return decision{status: Fail, cause: report.CauseTest}
	case o.interrupted:
		return decision{status: Interrupted}
	case !o.timedOut && o.exitCode == 0:
		return decision{status: Pass}
	}
	d := decision{status: Fail, cause: report.CauseTest}
	if o.timedOut {
		d = decision{status: Timeout, cause: report.CauseTimeout}
	}
	switch {
	case o.infra != nil:
		d.cause = report.CauseInfra
		switch {
		case o.hostNotReady:
			d.next = stopRun
		case r.on && r.more:
			d.next, d.retryReason = retry, "infra failure: "+o.infra.Fingerprint
		}
	case d.status == Fail && r.on && r.more:
		d.retryReason = o.reason
		if o.retriable {
			d.next = retry
		}
	}
	return d
}

// infraFailure reports whether the attempt failed with cause infra: the
// host is then asked again before decide decides.
func (o outcome) infraFailure() bool {
	return decide(o, retries{}).cause == report.CauseInfra
}
