package cli

import (
	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
)

// NewCmdConfig builds `miles-ci config`: validate the configuration in effect,
// or print the built-in default as a starting point for .miles-ci.yaml.
func NewCmdConfig(f *Factory) *cobra.Command {
	var printDefault bool
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check the configuration in effect, or print the built-in default",
		Example: `  miles-ci config                 # validate; say where it came from
  miles-ci config --default > .miles-ci.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if printDefault {
				_, err := f.Out.Write(config.DefaultYAML())
				return err
			}
			cfg, err := f.Config()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write([]byte("configuration OK: " + cfg.Source + "\n"))
			return err
		},
	}
	cmd.Flags().BoolVar(&printDefault, "default", false, "print the built-in default configuration")
	return cmd
}
