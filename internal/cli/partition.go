package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/complete"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/view"
)

// PartitionOptions holds the flags of `miles-ci partition`.
type PartitionOptions struct {
	selectionFlags
	Size    int
	SizeSet bool
	ID      int
	IDSet   bool
	JSON    bool

	// Config loads the configuration the suite is selected under; nil is
	// the Factory's. Tests replace it.
	Config func() (*config.Config, error)

	size, id *argparse.Int // --size and --id as typed and spelled
}

// NewCmdPartition builds `miles-ci partition`: show how a suite's selected
// tests split into shards, with the same selection flags as `run`.
func NewCmdPartition(f *Factory, runF func(*PartitionOptions) error) *cobra.Command {
	opts := &PartitionOptions{}
	cmd := &cobra.Command{
		Use:   "partition --suite SUITE [--hw HW] [--size N] [--id I] [flags]",
		Short: "Show how a suite splits into shards",
		Long: `Select a suite's tests as 'miles-ci run' would, split the enabled ones into
shards longest first, and show every shard with its tests and estimated total,
the makespan (the largest shard) and the imbalance (largest shard / mean).
With --timings, balance on the measured seconds of a timings file instead
(est_time for the files it does not list) and show both totals per shard.
--size defaults to the suite's shard count in the configuration; --hw to the
suite's backend. With --id, print that shard's files one per line.`,
		Example: `  miles-ci partition --suite stage-a-cpu
  miles-ci partition --suite stage-c-8-gpu-h100 --cadence weekly --size 3
  miles-ci partition --suite stage-c-4-gpu-h200 --labels run-ci-fsdp --id 1`,
		DisableFlagParsing: true,
		ValidArgsFunction:  complete.Func(&f.Root, &f.ConfigPath),
		RunE: func(cmd *cobra.Command, args []string) error {
			help, extras, err := parseOwnFlags(cmd, args)
			if err != nil {
				return err
			}
			if help {
				return cmd.Help()
			}
			opts.extras = extras
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return partitionRun(cmd.Context(), f, opts)
		},
	}
	fs := cmd.Flags()
	argparse.AddOriginal(fs, func(fs *pflag.FlagSet) { // run_suite.py's flags, in its order
		addSelectionFlags(fs, &opts.selectionFlags, false)
		addLabelFlags(fs, &opts.selectionFlags)
	})
	addTimingsFlag(fs, &opts.Timings, timingsUsage)
	opts.size = argparse.AddInt(fs, &opts.Size, &opts.SizeSet, "size", 0, "number of shards `N` (default: the suite's shard count)")
	opts.id = argparse.AddInt(fs, &opts.ID, &opts.IDSet, "id", 0, "show only shard `I` (0-based): its files one per line; exit status 3 when it has none")
	argparse.AddOriginal(fs, func(fs *pflag.FlagSet) {
		argparse.AddIntAlias(fs, opts.id, "auto-partition-id", "run's spelling of --id `I`")
		argparse.AddIntAlias(fs, opts.size, "auto-partition-size", "run's spelling of --size `N`")
	})
	fs.BoolVar(&opts.JSON, "json", false, "print the partition as JSON")
	return cmd
}

func (o *PartitionOptions) validate() error {
	if err := o.resolve(false, ""); err != nil {
		return err
	}
	if o.SizeSet && o.Size <= 0 {
		return usageErrorf("%s must be positive, got %s", o.size.Name(), o.size.Typed())
	}
	if o.SizeSet && o.Size > config.MaxShards {
		return usageErrorf("%s must be at most %d, got %s", o.size.Name(), config.MaxShards, o.size.Typed())
	}
	if o.IDSet {
		if o.ID < 0 {
			return usageErrorf("%s must not be negative, got %s", o.id.Name(), o.id.Typed())
		}
		if o.SizeSet && o.ID >= o.Size {
			return usageErrorf("%s must be in range [0, %d), but got %s", o.id.Name(), o.Size, o.id.Typed())
		}
	}
	return nil
}

func partitionRun(_ context.Context, f *Factory, opts *PartitionOptions) error {
	// With neither --size nor --id, a suite with a target_minutes shows
	// the count a pull request books (policy --shard-matrix); the roster's
	// count otherwise.
	in := suite.Inputs{Shards: suite.SizedShards, ID: suite.AllShards}
	if opts.IDSet {
		in.Shards = suite.SuiteShards
	}
	if opts.SizeSet {
		in.Shards = opts.Size
	}
	if opts.IDSet {
		in.ID = opts.ID
	}
	cfg, reg, err := f.collectWith(opts.Config)
	if err != nil {
		return reportCollectError(f, err)
	}
	p, err := opts.selectSuite(f, cfg, reg.Registrations, in, "", nil)
	var idErr *suite.IDError
	if errors.As(err, &idErr) {
		// The message names --id; say it as the user spelled it.
		return usageErrorf("%s%s", opts.id.Name(), strings.TrimPrefix(idErr.Error(), "--id"))
	}
	if err != nil {
		return err
	}
	noteDropped(f, p)
	switch {
	case opts.JSON:
		return view.PartitionJSON(f.Out, p)
	case opts.IDSet && len(p.Tests) == 0:
		fmt.Fprintf(f.ErrOut, "note: shard %d of %s (%d shards) has no test to run; exit status %d\n",
			opts.ID, opts.Suite, p.Size, exitEmptyShard)
		return &ExitError{Code: exitEmptyShard}
	case opts.IDSet:
		return view.PartitionFiles(f.Out, p)
	default:
		return view.Partition(f.Out, p, quarantineMarks(f, p, p.Enabled))
	}
}

// noteDropped says on stderr, when the selection left out every enabled
// registration of the suite, which flags would select them: the Python
// runner's "No tests found" on stdout stays as it was, and a stage run
// without its labels says why it ran nothing.
func noteDropped(f *Factory, p *suite.Plan) {
	if p.Dropped != "" {
		fmt.Fprintln(f.ErrOut, "note: "+p.Dropped)
	}
}
