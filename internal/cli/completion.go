package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/complete"
	"github.com/radixark/miles-ci/internal/config"
)

// completeSelection completes the flag values of run and partition. They
// parse their own arguments, so cobra completes only flag names and hands
// every other word here (see package complete).
func completeSelection(f *Factory) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		line := complete.Scan(args)
		flag, prefix, lead := line.Flag, toComplete, ""
		if name, value, ok := strings.Cut(toComplete, "="); ok && strings.HasPrefix(name, "--") {
			flag, prefix, lead = name[2:], value, name+"="
		} else if strings.HasPrefix(toComplete, "-") || flag == "" {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		values := complete.Values(completionConfig(f, line.Root, line.Config), flag, line.HW, prefix)
		if values == nil {
			return nil, cobra.ShellCompDirectiveDefault // a path, or a number
		}
		out := make([]cobra.Completion, len(values))
		for i, v := range values {
			out[i] = lead + v
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeSuite completes suites' --suite, whose flags cobra has parsed.
func completeSuite(f *Factory) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return complete.Values(completionConfig(f, "", ""), "suite", "", toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completionConfig is the configuration of the root and configuration file
// on the command line (else the global flags'), or the built-in one when it
// cannot be loaded: a completion never prints an error.
func completionConfig(f *Factory, root, path string) *config.Config {
	g := *f
	if root != "" {
		g.Root = root
	}
	if path != "" {
		g.ConfigPath = path
	}
	cfg, err := g.Config()
	if err != nil {
		return config.Default()
	}
	return cfg
}
