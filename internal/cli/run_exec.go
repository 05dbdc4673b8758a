package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

// addExecFlags binds the execution flags of `miles-ci run` beyond the
// selection flags (reports, gate hook).
func addExecFlags(cmd *cobra.Command, opts *RunOptions) {}

// executeSuite runs the enabled registrations of a planned suite (already
// printed) and returns nil when every file passed, an *ExitError otherwise.
func executeSuite(ctx context.Context, f *Factory, opts *RunOptions, cfg *config.Config,
	backend config.Backend, pol policy.Policy, continueOnError bool, enabled []registry.Registration) error {
	return errors.New("running suites is not implemented yet")
}
