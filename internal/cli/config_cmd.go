package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/buildinfo"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/lint"
	"github.com/radixark/miles-ci/internal/quarantine"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// ConfigOptions holds the flags of `miles-ci config`.
type ConfigOptions struct {
	Default bool // --default: print the built-in configuration
	Init    bool // --init: write the configuration in effect to <root>/.miles-ci.yaml
}

// NewCmdConfig builds `miles-ci config`: validate the configuration in effect,
// print the built-in default, or write the configuration in effect into the
// repository.
func NewCmdConfig(f *Factory, runF func(*ConfigOptions) error) *cobra.Command {
	opts := &ConfigOptions{}
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Check the configuration in effect, print the built-in default, or write it to .miles-ci.yaml",
		Long: `Check the configuration in effect and say where it came from (miles-ci help
config). With --default, print the built-in configuration. With --init, write
the configuration in effect, whole, to .miles-ci.yaml at the repository root,
so the roster of suites lives in the repository and a new miles-ci never
changes it; an existing .miles-ci.yaml is never replaced.`,
		Example: `  miles-ci config                 # validate; say where it came from
  miles-ci config --init          # write .miles-ci.yaml, then commit it
  miles-ci config --default`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Default && opts.Init {
				return usageErrorf("--default and --init cannot be used together")
			}
			if runF != nil {
				return runF(opts)
			}
			return configRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Default, "default", false, "print the built-in default configuration")
	cmd.Flags().BoolVar(&opts.Init, "init", false, "write the configuration in effect to <root>/"+config.FileName+" (never replacing one)")
	return cmd
}

func configRun(_ context.Context, f *Factory, opts *ConfigOptions) error {
	if opts.Default {
		_, err := f.Out.Write(config.DefaultYAML())
		return err
	}
	if opts.Init {
		return configInit(f)
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if len(cfg.Quarantine) > 0 {
		if err := checkQuarantine(f, cfg); err != nil {
			return err
		}
	}
	if _, err = fmt.Fprintf(f.Out, "configuration OK: %s; %s from %s\n", cfg.Source, textfmt.CountNoun(len(cfg.Labels), "label"), cfg.LabelsSource()); err != nil {
		return err
	}
	if cfg.Overlay != nil {
		_, err = fmt.Fprintf(f.Out, "extends the built-in configuration: %s\n", overlayChanges(cfg.Overlay))
	}
	return err
}

// configInit writes the configuration in effect, whole, to
// <root>/.miles-ci.yaml, which must not exist yet (whatever stands there is
// refused before it is read), and says what it wrote and what to do next.
func configInit(f *Factory) error {
	target := filepath.Join(f.Root, config.FileName)
	exists := func() error {
		return fmt.Errorf("%s exists already, and config --init never replaces it: edit it, or move it away and run config --init again", target)
	}
	_, lerr := os.Lstat(target)
	if lerr == nil {
		return exists()
	}
	// A root that is no directory fails here with its own message.
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if !errors.Is(lerr, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", target, fsutil.StripPath(lerr))
	}
	// The file names the build whose built-in configuration it copied;
	// the message, shorter, does not.
	from, version := "the built-in configuration", " of miles-ci "+buildinfo.Version(Version)
	switch {
	case cfg.Overlay != nil:
		from = cfg.Origin() + " merged with the built-in configuration"
	case cfg.Source != "default":
		from, version = cfg.Origin(), ""
	}
	data, err := cfg.Complete(from + version)
	if err != nil {
		return err
	}
	if err := fsutil.CreateNew(target, data); errors.Is(err, fs.ErrExist) {
		return exists()
	} else if err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	labels := textfmt.CountNoun(len(cfg.Labels), "label") + " in its labels: list"
	if cfg.LabelsFromFile {
		labels = "labels from " + cfg.LabelsFile
	}
	lines := []string{
		fmt.Sprintf("wrote %s from %s: %s, %s", target, from, textfmt.CountNoun(len(cfg.Suites), "suite"), labels),
		"next: commit it; it is the whole configuration, so the roster changes only when it does.",
		"Add a suite there, a line under its backend in suites:, and its job to the workflow;",
		"`miles-ci config` checks the file, `miles-ci lint` the workflows against it.",
	}
	if f.ConfigPath != "" {
		lines = append(lines, fmt.Sprintf("--config %s still wins over %s: leave it out to use the new file", f.ConfigPath, config.FileName))
	}
	_, err = fmt.Fprintln(f.Out, strings.Join(lines, "\n"))
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

// checkQuarantine checks the quarantine's entries against the
// registrations (Factory.Registry does), and warns of each entry past its
// until, at its line, as lint's quarantine-expired finding says it.
func checkQuarantine(f *Factory, cfg *config.Config) error {
	if _, err := f.Registry(cfg); err != nil {
		return reportCollectError(f, err)
	}
	for _, e := range quarantine.Expired(cfg.Quarantine, f.now()) {
		fmt.Fprintf(f.ErrOut, "warning: %s:%d: %s [%s]\n", textfmt.OneLine(cfg.Place(e.At)), e.At.Line, quarantine.ExpiredMessage(e), lint.RuleQuarantineExpired)
	}
	return nil
}
