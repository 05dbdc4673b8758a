// Command miles-ci selects, shards and runs the Miles CI test suites.
package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/radixark/miles-ci/internal/cli"
)

// forceExitAfter bounds how long miles-ci may take to stop after the first
// stop signal (see stopSignals) before it hurries (see hurryBound). Only a
// command that a signal lets finish waits (cli.MainContext): a running
// suite needs a few seconds (its children get SIGTERM, then SIGKILL three
// seconds later, then the summary and the reports are written); such a
// command blocked in the kernel, in a write to a pipe nobody reads, never
// looks at its context, and must still end.
var forceExitAfter = 8 * time.Second

// hurryBound is how long a stopping command has to finish once it was
// hurried, by a second stop signal of another kind or by forceExitAfter:
// its children are killed at once (cli.Hurry), so all that is left is to
// write the summary and the reports, a matter of milliseconds; only a
// write that hangs meets the bound. It is shorter than the 2.5 s GitHub
// leaves between the SIGTERM of a cancelled job and its SIGKILL.
var hurryBound = 2 * time.Second

// stopSignals end a run the orderly way: SIGINT (^C), SIGTERM (a job
// cancelled), SIGHUP (the terminal or the ssh session went away) and SIGQUIT
// (^\), which would otherwise end Go with a goroutine dump and exit 2 and
// leave the test's process group running.
var stopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// exitMu makes exit the last word once: the command's own end and the
// stop's bound may race, and the first to come exits with its status.
var exitMu sync.Mutex

// exit ends every process a run started that is still alive (see
// cli.KillLeftovers) and exits with code.
func exit(code int) {
	exitMu.Lock()
	cli.KillLeftovers()
	os.Exit(code)
}

func main() {
	f := cli.SystemFactory()
	// First of all, before a signal is caught or anything runs: a run
	// given the history's URL executes itself again without it in its
	// arguments and environment, where its tests could read it (see
	// cli.SealHistoryURL). The process stays the same one.
	cli.SealHistoryURL(f, os.Args)
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopSignals...)
	go stop(sigs, cancel)
	// A reader that leaves (`miles-ci run … | head -1`) must not end a run:
	// SIGPIPE is caught instead of killing miles-ci, so a write to the
	// closed pipe fails with EPIPE, and the streams drop what the reader no
	// longer wants (see cli.SystemFactory). Children still start with
	// SIGPIPE's default action: Go resets caught signals in a child.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	// Every file's leftovers were ended after it; exit's sweep is the last
	// word on anything a test started that is still alive.
	exit(cli.MainContext(ctx, os.Args[1:], f))
}

// stop ends a command on the stop signals sigs delivers. The first cancels
// the context instead of killing miles-ci, so a running suite can stop its
// children's process groups and write its summary and reports before it
// exits with 128 + the signal; a command that only reads and prints exits
// with it at once (cli.MainContext).
//
// The same signal again is the same stop: coreutils `timeout` sends its
// signal to miles-ci and then to miles-ci's whole process group, so that
// miles-ci gets it twice, nearly at once. A stop signal of another kind
// (GitHub cancels a job with SIGINT, then SIGTERM 7.5 s later), or
// forceExitAfter without an end, hurries the stop: every child is killed
// at once, and the command has hurryBound left to write what it knows.
// The exit status stays 128 + the first signal.
func stop(sigs <-chan os.Signal, cancel context.CancelCauseFunc) {
	first := <-sigs
	cancel(&cli.SignalError{Signal: first})
	force := time.NewTimer(forceExitAfter)
	for again := true; again; {
		select {
		case s := <-sigs:
			again = s == first
		case <-force.C:
			again = false
		}
	}
	cli.Hurry()
	time.Sleep(hurryBound)
	exit(128 + int(first.(syscall.Signal)))
}
