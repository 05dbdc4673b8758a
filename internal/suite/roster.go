package suite

import (
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// Named is what `suites --suite name` lists: the named suite (none when the
// roster lacks it) and every registration naming it, whatever its backend;
// a name that neither knows is a *config.UnknownSuiteError. An empty name
// is the whole roster and registry.
func Named(cfg *config.Config, regs []registry.Registration, name string) ([]config.Suite, []registry.Registration, error) {
	if name == "" {
		return cfg.Suites, regs, nil
	}
	var suites []config.Suite
	if s, ok := cfg.Suite(name); ok {
		suites = []config.Suite{s}
	}
	var named []registry.Registration
	for _, r := range regs {
		if r.Suite == name {
			named = append(named, r)
		}
	}
	if suites == nil && named == nil {
		_, err := cfg.FindSuite(name, "")
		return nil, nil, err
	}
	return suites, named, nil
}

// Unrun is a registration that no CI job will ever run.
type Unrun struct {
	Registration registry.Registration
	// Roster is the roster suite of the registration's name, which is of
	// another backend; its Name is "" when the roster has no such suite.
	Roster config.Suite
}

// Unreached returns the registrations of regs that no CI job runs, in
// order: their suite is not in the roster, or is a suite of another
// backend.
func Unreached(cfg *config.Config, regs []registry.Registration) []Unrun {
	var out []Unrun
	for _, r := range regs {
		if _, ok := r.Job(cfg); ok {
			continue
		}
		s, _ := cfg.Suite(r.Suite)
		out = append(out, Unrun{Registration: r, Roster: s})
	}
	return out
}
