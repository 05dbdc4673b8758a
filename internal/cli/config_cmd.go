package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// ConfigOptions holds the flags of `miles-ci config`.
type ConfigOptions struct {
	Default bool // --default: print the built-in configuration
}

// NewCmdConfig builds `miles-ci config`: validate the configuration in effect,
// or print the built-in default as a starting point for .miles-ci.yaml.
func NewCmdConfig(f *Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{}
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check the configuration in effect, or print the built-in default",
		Example: `  miles-ci config                 # validate; say where it came from
  miles-ci config --default > .miles-ci.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(opts)
			}
			return configRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Default, "default", false, "print the built-in default configuration")
	return cmd
}

func configRun(_ context.Context, f *Factory, opts *ConfigOptions) error {
	if opts.Default {
		_, err := f.Out.Write(config.DefaultYAML())
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if _, err = fmt.Fprintf(f.Out, "configuration OK: %s; %s from %s\n", cfg.Source, textfmt.CountNoun(len(cfg.Labels), "label"), cfg.LabelsSource()); err != nil {
		return err
	}
	if cfg.Overlay != nil {
		_, err = fmt.Fprintf(f.Out, "extends the built-in configuration: %s\n", overlayChanges(cfg.Overlay))
	}
	return err
}

// overlayChanges says what a file extending the default changed: the
// suites it added to the built-in roster or replaced by name, then the
// sections it replaced whole.
func overlayChanges(o *config.Overlay) string {
	var parts []string
	if len(o.SuitesAdded) > 0 {
		parts = append(parts, "adds suite "+strings.Join(o.SuitesAdded, ", "))
	}
	if len(o.SuitesReplaced) > 0 {
		parts = append(parts, "replaces suite "+strings.Join(o.SuitesReplaced, ", "))
	}
	for _, s := range o.Replaced {
		parts = append(parts, "replaces "+s+" whole")
	}
	if len(parts) == 0 {
		return "changes nothing"
	}
	return strings.Join(parts, "; ")
}
