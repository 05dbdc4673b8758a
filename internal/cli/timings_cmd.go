package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/timings"
)

// TimingsMergeOptions are the flags of `miles-ci timings merge`.
type TimingsMergeOptions struct {
	Output string
	Inputs []string
}

// NewCmdTimings builds `miles-ci timings`, the home of commands on the
// measured-timings files that `run --timings-out` writes and
// `run/partition --timings` read.
func NewCmdTimings(f *Factory, runF func(*TimingsMergeOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "timings",
		Short: "Work with measured-timings files (merge the shards' files, apply them to est_time)",
		Args:  groupArgs,
		RunE:  groupRunE,
	}
	opts := &TimingsMergeOptions{}
	merge := &cobra.Command{
		Use:   "merge FILE... [-o OUT]",
		Short: "Merge timings files; a later file wins for the same test file",
		Long: `Merge the timings files that the shards of a suite wrote with --timings-out
into one, to feed back to run and partition with --timings. Files are read in
the order given; a later file's value wins for a test file listed twice,
and with it the suite it says measured the file.
Without -o the merged document goes to stdout.`,
		Example:     `  miles-ci timings merge parts/*.json -o timings.json`,
		Args:        needInputs("the timings files the shards wrote with run --timings-out"),
		Annotations: finishOnSignal("writes the merged timings to -o OUT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if runF != nil {
				return runF(opts)
			}
			return timingsMergeRun(cmd.Context(), f, opts)
		},
	}
	// Unlike report merge's, an empty -o has always meant stdout.
	flagkind.EmptyOK(flagkind.String(merge.Flags(), &opts.Output, "output", "o", "write the merged file to `OUT` instead of stdout", flagkind.Output, "json"))
	cmd.AddCommand(merge, newCmdTimingsApply(f))
	return cmd
}

func timingsMergeRun(_ context.Context, f *Factory, opts *TimingsMergeOptions) error {
	merged := &timings.Document{}
	for _, path := range opts.Inputs {
		d, err := timings.ReadDocument(path)
		if err != nil {
			return err
		}
		merged.Merge(d)
	}
	data, err := merged.Marshal()
	if err != nil {
		return fmt.Errorf("encode timings: %w", err)
	}
	if opts.Output == "" {
		_, err = f.Out.Write(data)
		return err
	}
	if err := fsutil.WriteFile(opts.Output, data); err != nil {
		return fmt.Errorf("write timings %q: %w", opts.Output, err)
	}
	return nil
}
