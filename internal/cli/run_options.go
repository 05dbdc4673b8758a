package cli

import "github.com/radixark/miles-ci/internal/argparse"

// RunOptions holds every flag of `miles-ci run`. The selection half (SPEC §5)
// is shared with `miles-ci partition`; the execution half only matters when
// tests really run.
type RunOptions struct {
	selectionFlags
	PartitionID   int
	PartitionSize int
	PartitionSet  bool // --auto-partition-id/--auto-partition-size given
	ListOnly      bool
	JSON          bool
	// RerunFailed is the --rerun-failed report: only the selected tests
	// that did not pass in it run ("" for all).
	RerunFailed string
	// File is --file: run only this registered file ("" for a suite run).
	File string

	// Execution.
	TimeoutPerFile       int
	ContinueOnError      bool
	EnableRetry          bool
	MaxAttempts          int
	RetryWaitSeconds     int
	RetryTimeoutIncrease int
	JUnitXML             string
	JSONReport           string
	TimingsOut           string
	GateHook             string

	// Which of the two partition flags were given, and the size as typed
	// (argv parsing only).
	partitionIDSet   bool
	partitionSizeSet bool
	partitionSize    *argparse.Int
	partitionID      *argparse.Int
	// timeoutSet: --timeout-per-file was given (a file run's default is
	// the configured minimum).
	timeoutSet bool
}
