// Command miles-ci selects, shards and runs the Miles CI test suites.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/radixark/miles-ci/internal/cli"
)

func main() {
	// SIGINT and SIGTERM cancel the context instead of killing miles-ci, so
	// a running suite can stop its children's process groups and print its
	// summary before exiting with 128 + the signal.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sigs
		cancel(&cli.SignalError{Signal: s})
	}()
	os.Exit(cli.MainContext(ctx, os.Args[1:], cli.SystemFactory()))
}
