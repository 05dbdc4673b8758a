package cli

import (
	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/complete"
)

// completeSelection completes flag values. run and partition parse their
// own arguments, so cobra completes only flag names and hands every other
// word here (see package complete); a command whose flags cobra parses
// registers it for one flag, given as before.
func completeSelection(f *Factory, before ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		values, files := complete.Selection(append(before, args...), toComplete, f.Root, f.ConfigPath)
		if files {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
