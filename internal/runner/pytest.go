package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// PytestOptions configure RunPytest.
type PytestOptions struct {
	Root            string // working directory
	Files           []string
	ContinueOnError bool
	JUnitXML        string // absolute path, or ""
	Env             []string
	Out, ErrOut     io.Writer
	KillGrace       time.Duration
	// Timeout, in seconds, when positive, ends pytest's whole process
	// group after that long (a one-file run has a time limit; a suite's
	// pytest, as in run_suite.py, has none).
	Timeout int
	Start   func(*exec.Cmd) error
}

// PytestCommand is the command line of a CPU suite: `pytest <files...> -v`,
// then `-x` unless continuing on error, then `--junitxml=PATH` when asked.
func PytestCommand(files []string, continueOnError bool, junitXML string) []string {
	cmd := append([]string{"pytest"}, files...)
	cmd = append(cmd, "-v")
	if !continueOnError {
		cmd = append(cmd, "-x")
	}
	if junitXML != "" {
		cmd = append(cmd, "--junitxml="+junitXML)
	}
	return cmd
}

// RunPytest prints `Running: <command>` and runs the CPU suite's single
// pytest process with inherited output. It returns pytest's exit status
// (128+N when signal N killed it), and an error only when pytest could not
// be started. Cancelling ctx terminates pytest's process group; the status
// is then whatever pytest's ended with. After the Timeout it is 1.
func RunPytest(ctx context.Context, o PytestOptions) (int, error) {
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ErrOut == nil {
		o.ErrOut = io.Discard
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.KillGrace == 0 {
		o.KillGrace = 3 * time.Second
	}
	argv := PytestCommand(o.Files, o.ContinueOnError, o.JUnitXML)
	fmt.Fprintf(o.Out, "Running: %s\n", strings.Join(argv, " "))
	pr, err := runProc(ctx, procSpec{
		argv: argv, dir: o.Root, env: o.Env, grace: o.KillGrace, timeout: timeoutDuration(o.Timeout),
		out: o.Out, errOut: o.ErrOut, start: o.Start,
	})
	if err != nil {
		return 1, fmt.Errorf("start pytest: %w", err)
	}
	if pr.timedOut {
		// Killed, so its own status says nothing; a timeout is a failure.
		fmt.Fprintf(o.Out, "\nTIMEOUT: pytest after %d seconds\n", o.Timeout)
		return 1, nil
	}
	if pr.exitCode < 0 {
		return 128 - pr.exitCode, nil
	}
	return pr.exitCode, nil
}
