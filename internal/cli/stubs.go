package cli

import "github.com/spf13/cobra"

// Placeholders replaced as the commands land.

func NewCmdRun(f *Factory, runF func() error) *cobra.Command {
	return &cobra.Command{Use: "run", Short: "Select, shard and run one suite", RunE: func(*cobra.Command, []string) error { return nil }}
}

func NewCmdPartition(f *Factory, runF func() error) *cobra.Command {
	return &cobra.Command{Use: "partition", Short: "Show how a suite splits into shards", RunE: func(*cobra.Command, []string) error { return nil }}
}
