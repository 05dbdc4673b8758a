// Command miles-ci selects, shards and runs the Miles CI test suites.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/radixark/miles-ci/internal/cli"
)

// forceExitAfter bounds how long miles-ci may take to stop after the first
// stop signal (see stopSignals). Only a command that a signal lets finish
// waits (cli.MainContext): a running suite needs a few seconds (its
// children get SIGTERM, then SIGKILL three seconds later, then the summary
// and the reports are written); such a command blocked in the kernel, in a
// write to a pipe nobody reads, never looks at its context, and must still
// end.
var forceExitAfter = 8 * time.Second

// stopSignals end a run the orderly way: SIGINT (^C), SIGTERM (a job
// cancelled), SIGHUP (the terminal or the ssh session went away) and SIGQUIT
// (^\), which would otherwise end Go with a goroutine dump and exit 2 and
// leave the test's process group running.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

func main() {
	f := cli.SystemFactory()
	// First of all, before a signal is caught or anything runs: a run
	// given the history's URL executes itself again without it in its
	// arguments and environment, where its tests could read it (see
	// cli.SealHistoryURL). The process stays the same one.
	cli.SealHistoryURL(f, os.Args)
	// A stop signal cancels the context instead of killing miles-ci, so a
	// running suite can stop its children's process groups and print its
	// summary before exiting with 128 + the signal; a command that only
	// reads and prints exits with it at once. A second signal, or the first
	// one left unanswered for forceExitAfter, exits at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	go func() {
		s := <-sigs
		cancel(&cli.SignalError{Signal: s})
		select {
		case s = <-sigs:
		case <-time.After(forceExitAfter):
		}
		cli.KillLeftovers()
		os.Exit(128 + int(s.(syscall.Signal)))
	}()
	// A reader that leaves (`miles-ci run … | head -1`) must not end a run:
	// SIGPIPE is caught instead of killing miles-ci, so a write to the
	// closed pipe fails with EPIPE, and the streams drop what the reader no
	// longer wants (see cli.SystemFactory). Children still start with
	// SIGPIPE's default action: Go resets caught signals in a child.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	code := cli.MainContext(ctx, os.Args[1:], f)
	// Every file's leftovers were ended after it; this is the last word on
	// anything a test started that is still alive (see cli.KillLeftovers).
	cli.KillLeftovers()
	os.Exit(code)
}
