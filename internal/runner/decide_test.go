package runner

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/report"
)

// Every rule of what follows an attempt, one row each: what the attempt
// produced and what the run allows, then the attempt's status and cause,
// what follows, and the attempt's retry reason.
func TestDecide_WhatFollowsAnAttempt(t *testing.T) {
	m := &InfraMatch{Fingerprint: "cuda-802", Line: "RuntimeError: ... Error 802: system not yet initialized"}
	started := errors.New(`exec: "python3": executable file not found in $PATH`)
	retriable, notRetriable := "retriable pattern: AssertionError:.*not greater than", "non-retriable error: ImportError"
	on := retries{on: true, more: true}    // --enable-retry, another attempt allowed
	last := retries{on: true, more: false} // --enable-retry, the last attempt
	off := retries{}                       // no --enable-retry
	tests := []struct {
		name string
		out  outcome
		r    retries
		want decision
	}{
		// Passing.
		{"exit 0 passes", outcome{}, off, decision{status: Pass}},
		{"exit 0 passes with retries on", outcome{reason: "unknown failure type"}, on, decision{status: Pass}},
		{"exit 0 passes although a fingerprint matched", outcome{infra: m}, on, decision{status: Pass}},

		// The child did not run to its end.
		{"a child that cannot start fails with cause test", outcome{startErr: started, exitCode: -1}, off,
			decision{status: Fail, cause: report.CauseTest}},
		{"a child that cannot start is not retried", outcome{startErr: started, retriable: true, reason: retriable}, on,
			decision{status: Fail, cause: report.CauseTest}},
		{"an interrupted attempt has no cause", outcome{interrupted: true, exitCode: -15}, on, decision{status: Interrupted}},
		{"an interrupt wins over a timeout and a match", outcome{interrupted: true, timedOut: true, infra: m}, on,
			decision{status: Interrupted}},

		// Failing: the retry classifier decides.
		{"a failure without retries ends the file", outcome{exitCode: 3}, off, decision{status: Fail, cause: report.CauseTest}},
		{"a retriable failure is retried", outcome{exitCode: 1, retriable: true, reason: retriable}, on,
			decision{status: Fail, cause: report.CauseTest, next: retry, retryReason: retriable}},
		{"a failure by signal is a failure too", outcome{exitCode: -9, retriable: true, reason: retriable}, on,
			decision{status: Fail, cause: report.CauseTest, next: retry, retryReason: retriable}},
		{"a non-retriable failure is not retried, and says why", outcome{exitCode: 1, reason: notRetriable}, on,
			decision{status: Fail, cause: report.CauseTest, retryReason: notRetriable}},
		{"the last attempt does not ask the classifier", outcome{exitCode: 1, retriable: true, reason: retriable}, last,
			decision{status: Fail, cause: report.CauseTest}},

		// Timing out.
		{"a timeout ends the file", outcome{timedOut: true, exitCode: -9}, off, decision{status: Timeout, cause: report.CauseTimeout}},
		{"a timeout is not retried whatever the classifier says", outcome{timedOut: true, retriable: true, reason: retriable}, on,
			decision{status: Timeout, cause: report.CauseTimeout}},

		// An infra fingerprint matched.
		{"an infra failure is retried on a host found ready", outcome{exitCode: 1, infra: m, reason: notRetriable}, on,
			decision{status: Fail, cause: report.CauseInfra, next: retry, retryReason: "infra failure: cuda-802"}},
		{"an infra failure without retries ends the file", outcome{exitCode: 1, infra: m}, off,
			decision{status: Fail, cause: report.CauseInfra}},
		{"an infra failure on the last attempt ends the file", outcome{exitCode: 1, infra: m, retriable: true, reason: retriable}, last,
			decision{status: Fail, cause: report.CauseInfra}},
		{"an infra timeout is retried", outcome{timedOut: true, infra: m}, on,
			decision{status: Timeout, cause: report.CauseInfra, next: retry, retryReason: "infra failure: cuda-802"}},
		{"an infra timeout without retries ends the file", outcome{timedOut: true, infra: m}, off,
			decision{status: Timeout, cause: report.CauseInfra}},
		{"a host not ready stops the run", outcome{exitCode: 1, infra: m, hostNotReady: true, retriable: true, reason: retriable}, on,
			decision{status: Fail, cause: report.CauseInfra, next: stopRun}},
		{"a host not ready stops the run without retries", outcome{exitCode: 1, infra: m, hostNotReady: true}, off,
			decision{status: Fail, cause: report.CauseInfra, next: stopRun}},
		{"a host not ready after a timeout stops the run", outcome{timedOut: true, infra: m, hostNotReady: true}, last,
			decision{status: Timeout, cause: report.CauseInfra, next: stopRun}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, decide(tt.out, tt.r))
			// The host is asked again exactly after an infra failure.
			asked := tt.out
			asked.hostNotReady = false
			assert.Equal(t, tt.want.cause == report.CauseInfra, asked.infraFailure(), "infraFailure")
		})
	}
}
