package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// Exit statuses (SPEC §7).
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
	// exitEmptyShard is `partition --id` of a shard with no test: it
	// prints no file, and the status keeps `files=$(...) && pytest $files`
	// from running pytest with no argument, which would run every test.
	exitEmptyShard = 3
	// exitPlanMismatch is `run --expect-plan` of a stage plan that is not
	// the one the policy job planned the shard matrix on: a shard it left
	// out may hold a test now, so the job fails instead of passing.
	exitPlanMismatch = 4
	// exitHostNotReady is `run` of a GPU suite on a host whose GPU
	// preflight failed: no test (or no further test) ran, the code is not
	// to blame, and another runner may well pass. 75 is EX_TEMPFAIL of
	// sysexits.h: a temporary failure, worth a retry elsewhere.
	exitHostNotReady = 75
)

// UsageError is a bad or conflicting flag: exit 2. Hint, when set, is
// printed as it is on the lines after the message (cobra's "Did you mean
// this?" block).
type UsageError struct {
	Msg  string
	Hint string
}

func (e *UsageError) Error() string { return e.Msg }

func usageErrorf(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// cobraUsageError keeps the suggestions cobra appends to an unknown
// command's error off the message's line.
func cobraUsageError(msg string) *UsageError {
	if first, rest, ok := strings.Cut(msg, "\n\nDid you mean this?\n"); ok {
		return &UsageError{Msg: first, Hint: "Did you mean this?\n" + strings.TrimRight(rest, "\n")}
	}
	return &UsageError{Msg: msg}
}

// ExitError ends the process with Code after the command has already said
// everything it had to say (a failed test run, pytest's own status, a policy
// error already printed as a GitHub annotation).
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// exitCode is the only place an error becomes an exit status. It prints the
// error, one line per problem, unless the command printed it already; then
// the next step: the hint of an error that has one, or where the usage of
// the command at cmdPath ("miles-ci run") is.
func exitCode(err error, stderr io.Writer, cmdPath string) int {
	if err == nil {
		return exitOK
	}
	var exit *ExitError
	if errors.As(err, &exit) {
		return exit.Code
	}
	var usage *UsageError
	var wrongReport *report.RerunMismatchError
	if errors.As(err, &wrongReport) {
		// The report given is not this job's: a bad argument.
		usage = &UsageError{Msg: wrongReport.Error()}
	}
	if usage != nil || errors.As(err, &usage) {
		fmt.Fprintf(stderr, "error: %s\n", oneLine(usage.Msg))
		if usage.Hint != "" {
			fmt.Fprintf(stderr, "\n%s\n\n", usage.Hint)
		}
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", cmdPath)
		return exitUsage
	}
	var multi interface{ Lines() []string }
	if errors.As(err, &multi) {
		for _, l := range multi.Lines() {
			fmt.Fprintf(stderr, "error: %s\n", oneLine(l))
		}
		return exitFailure
	}
	fmt.Fprintf(stderr, "error: %s\n", oneLine(err.Error()))
	var hinted interface{ HintLine() string }
	if errors.As(err, &hinted) && hinted.HintLine() != "" {
		fmt.Fprintf(stderr, "hint: %s\n", oneLine(hinted.HintLine()))
	}
	var mismatch *suite.PlanMismatchError
	if errors.As(err, &mismatch) {
		return exitPlanMismatch
	}
	return exitFailure
}

// oneLine keeps an error on its line, whatever a file name holds.
func oneLine(s string) string {
	return textfmt.OneLine(s)
}
