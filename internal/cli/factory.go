// Package cli holds the miles-ci commands: one file per command, each a
// NewCmdX constructor binding flags into an options struct and an xRun
// function doing the work, so tests can call either half alone.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/quarantine"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/runner"
)

// Factory is the world a command sees: its streams, environment and clock.
// Tests build one with buffers and a map-backed Getenv.
type Factory struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	Getenv func(string) string
	// LookupEnv distinguishes an unset variable from an empty one.
	LookupEnv func(string) (string, bool)
	Now       func() time.Time
	// Environ is the environment the children of a run start with; nil
	// lets them inherit this process's, as exec does.
	Environ func() []string
	// Start starts a child process of a run; nil is exec.Cmd.Start. Tests
	// replace it to see or refuse what would run.
	Start func(*exec.Cmd) error
	// Proc is the proc file system a run looks for its job's start in
	// (package jobstart): "/proc" for the real process, "" in tests, so
	// that a test run under a GitHub runner does not find the runner.
	Proc string

	// Root and ConfigPath are set from the global flags before a command runs.
	Root       string
	ConfigPath string

	// sealed is the run history's URL a re-executed run received (see
	// SealHistoryURL): it stands for --history's value or
	// MILES_CI_HISTORY_URL, which the process no longer holds.
	sealed *sealedURL
}

// SystemFactory returns the Factory of the real process. Its streams drop
// what a reader that went away no longer wants (see runner.Stream), so a
// closed pipe (`miles-ci run … | head -1`) cannot end a run.
func SystemFactory() *Factory {
	return &Factory{
		In:        os.Stdin,
		Out:       runner.NewStream(os.Stdout),
		ErrOut:    runner.NewStream(os.Stderr),
		Getenv:    os.Getenv,
		LookupEnv: os.LookupEnv,
		Now:       time.Now,
		Environ:   os.Environ,
		Proc:      "/proc",
		Root:      ".",
	}
}

// now is the time by the Factory's clock (time.Now when it has none).
func (f *Factory) now() time.Time {
	if f.Now == nil {
		return time.Now()
	}
	return f.Now()
}

// environ is the children's environment (see Environ).
func (f *Factory) environ() []string {
	if f.Environ == nil {
		return nil
	}
	return f.Environ()
}

// Config loads the configuration for the chosen root. A root that is not a
// directory is an error: a mistyped --root would otherwise find no tests and
// pass every stage.
func (f *Factory) Config() (*config.Config, error) {
	info, err := os.Stat(f.Root)
	switch {
	case err != nil:
		return nil, fmt.Errorf("repository root %q: %w", f.Root, errors.Unwrap(err))
	case !info.IsDir():
		return nil, fmt.Errorf("repository root %q is not a directory", f.Root)
	}
	return config.Load(f.Root, f.ConfigPath)
}

// configWith loads the configuration with load, a command's
// Options.Config (as gh's Options carry one, so that tests can replace
// it); nil is the Factory's Config.
func (f *Factory) configWith(load func() (*config.Config, error)) (*config.Config, error) {
	if load == nil {
		return f.Config()
	}
	return load()
}

// Collect loads the configuration and collects the registry. When none of
// the discovery roots exists below the root, it returns the (empty)
// registry with a *registry.NoRootsError: the caller decides whether a
// wrong directory stops it.
func (f *Factory) Collect() (*config.Config, *registry.Registry, error) {
	return f.collectWith(nil)
}

// collectWith is Collect with the configuration load gives (see
// configWith).
func (f *Factory) collectWith(load func() (*config.Config, error)) (*config.Config, *registry.Registry, error) {
	cfg, err := f.configWith(load)
	if err != nil {
		return nil, nil, err
	}
	reg, err := f.Registry(cfg)
	return cfg, reg, err
}

// Registry collects the registry of the chosen root under cfg, with
// Collect's rule for a root below which no discovery root exists.
func (f *Factory) Registry(cfg *config.Config) (*registry.Registry, error) {
	reg, err := registry.Collect(f.Root, cfg)
	if err != nil {
		return nil, err
	}
	// The quarantine's entries are checked against the registrations as
	// the configuration's other keys are checked when it is read.
	if err := quarantine.Check(cfg, reg.Registrations); err != nil {
		return nil, err
	}
	if len(reg.Files) == 0 {
		return reg, registry.CheckRoots(f.Root, cfg.Roots)
	}
	return reg, nil
}

// KillLeftovers ends every process a run started that is still alive: the
// last word of the miles-ci process before it exits (see
// runner.KillLeftovers).
func KillLeftovers() { runner.KillLeftovers() }

// Hurry cuts the grace of a run that a signal is stopping: its children
// are killed now, and the run goes on to write its summary and reports
// (see runner.Hurry).
func Hurry() { runner.Hurry() }
