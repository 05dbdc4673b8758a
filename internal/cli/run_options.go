package cli

// RunOptions holds every flag of `miles-ci run`. The selection half (SPEC §5)
// is shared with `miles-ci partition`; the execution half only matters when
// tests really run.
type RunOptions struct {
	// Selection.
	HW             string
	Suite          string
	Cadence        string
	Nightly        bool
	Labels         []string
	MatchAllLabels bool
	PartitionID    int
	PartitionSize  int
	PartitionSet   bool // --auto-partition-id/--auto-partition-size given
	ListOnly       bool
	JSON           bool
	// Timings is the --timings file to balance the shards on ("" for
	// est_time, the Python runner's basis).
	Timings string

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

	// Which of the two partition flags were given (argv parsing only).
	partitionIDSet   bool
	partitionSizeSet bool
}
