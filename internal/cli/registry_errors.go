package cli

import (
	"errors"
	"fmt"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/registry"
)

// reportCollectError is what a command does with an error from
// f.Collect: inside GitHub Actions (GITHUB_ACTIONS=true exactly) it first
// prints one `::error file=...,line=...::` annotation per failing file (or
// for the configuration file), so the problems show on the pull request's
// diff, and one `::error::` for a root without discovery roots (a checkout
// into another path); then it returns err unchanged for exitCode to print
// and map to exit status 1. It returns nil for a nil error.
func reportCollectError(f *Factory, err error) error {
	if err == nil || f.Getenv == nil || f.Getenv("GITHUB_ACTIONS") != "true" {
		return err
	}
	var errs registry.Errors
	var cfgErr *config.Error
	var noRoots *registry.NoRootsError
	switch {
	case errors.As(err, &noRoots):
		fmt.Fprintln(f.ErrOut, ghactions.Error(noRoots.Error()))
	case errors.As(err, &errs):
		for _, e := range errs {
			fmt.Fprintln(f.ErrOut, ghactions.ErrorAnnotation(e.File, e.Line, e.Msg))
		}
	case errors.As(err, &cfgErr):
		fmt.Fprintln(f.ErrOut, ghactions.ErrorAnnotation(cfgErr.File, cfgErr.Line, cfgErr.Msg))
	}
	return err
}
