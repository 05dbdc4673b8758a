package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
)

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
	// ExpectPlan is the digest of the stage plan the policy job planned
	// this shard on ("" checks nothing).
	ExpectPlan string

	// Execution. The limits and the report files are bound from their
	// flags straight into the structs the run takes.
	runner.Limits
	report.Outputs
	ContinueOnError bool
	GateHook        string
	NoGate          bool
	// NoQuarantine is --no-quarantine (see suite.Inputs.NoQuarantine).
	NoQuarantine bool
	// NoPreflight turns the GPU preflight off; PreflightTimeout, when
	// given (preflightTimeout.Changed), replaces the configuration's.
	NoPreflight      bool
	PreflightTimeout time.Duration
	preflightTimeout *pflag.Flag
	// History is --history: the URL of the run history's database; see
	// historyRecorder for when it is taken from the environment.
	History    string
	historySet bool

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
