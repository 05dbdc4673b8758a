// Package stage answers what one CI stage job runs: it resolves the run's
// policy from the selection flags, picks the suite's registrations under it,
// and splits the enabled ones into shards, balanced on est_time or on the
// measured seconds of a timings file. `run`, `partition` and every command
// that selects a suite's tests call Select instead of assembling those steps
// themselves.
package stage

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/plan"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/shard"
	"github.com/radixark/miles-ci/internal/timings"
)

// SuiteShards asks for the suite's configured shard count (Request.Shards).
const SuiteShards = -1

// AllShards asks for every shard (Request.ID).
const AllShards = -1

// Request is one suite's selection as the flags of `run` and `partition`
// state it.
type Request struct {
	// Backend is --hw; empty means the suite's own backend.
	Backend config.Backend
	Suite   string
	// Cadence and Labels (raw PR labels, as given) decide the policy;
	// MatchAllLabels adds every known label to its include set.
	Cadence        string
	Labels         []string
	MatchAllLabels bool
	// Shards is the number of shards: 0 leaves the suite whole, SuiteShards
	// takes the suite's configured count.
	Shards int
	// ID is the one shard wanted, or AllShards.
	ID int
	// TimingsPath is a timings file to balance the shards on; "" balances
	// on est_time, as the Python runner does. Given for a whole suite, the
	// file is still read, so that a broken one fails every job alike.
	TimingsPath string
}

// Selection is what one stage job runs.
type Selection struct {
	Backend config.Backend
	Suite   config.Suite
	Policy  policy.Policy
	// Warnings are the policy's warnings about raw labels, then one per
	// run-ci-X label naming no known label, for stderr.
	Warnings []policy.Warning
	// Enabled are the selected registrations that run, in registry order;
	// Skipped the disabled ones, which no shard runs and every shard lists.
	Enabled []registry.Registration
	Skipped []registry.Registration
	// Size is the number of shards (0 for a whole suite); Shards holds
	// them all, or only shard ID when one was asked for.
	Size   int
	Shards []shard.Shard
	// Basis is set when the shards were balanced on a timings file.
	Basis *plan.Basis
	// Dropped says, when the policy left out every enabled registration
	// of the suite, how many and which flags select them; "" otherwise.
	Dropped string
}

// Run is the part of the suite that the job runs: shard ID's tests, or
// every enabled test of a whole suite.
func (s *Selection) Run() []registry.Registration {
	if s.Size == 0 {
		return s.Enabled
	}
	return s.Shards[0].Tests
}

// Plan is the run plan of s, as `run` prints and runs it; a run continues
// on error when asked to or when the policy bypasses fast-fail.
func (s *Selection) Plan(continueOnError bool) *plan.Plan {
	p := &plan.Plan{Backend: s.Backend, Suite: s.Suite.Name, Policy: s.Policy,
		ContinueOnError: continueOnError || s.Policy.Bypass,
		Enabled:         s.Run(), Skipped: s.Skipped, Basis: s.Basis}
	if s.Size > 0 {
		p.Partition = &plan.Partition{ID: s.Shards[0].ID, Size: s.Size}
	}
	return p
}

// View is the partition view of s, as `partition` shows it.
func (s *Selection) View() *plan.View {
	return &plan.View{Backend: s.Backend, Suite: s.Suite.Name, Policy: s.Policy, Size: s.Size,
		Shards: s.Shards, Skipped: s.Skipped, Basis: s.Basis}
}

// IDError is a shard ID outside the suite's configured shard count.
type IDError struct{ ID, Size int }

func (e *IDError) Error() string {
	return fmt.Sprintf("--id must be in range [0, %d) (the suite's shard count), but got %d", e.Size, e.ID)
}

// Select resolves req against the configuration and the registrations, in
// the order of the Python runner's errors: the policy's (a *policy.Error),
// then the suite's (a *config.UnknownSuiteError), then the shard ID's (an
// *IDError) and the timings file's (a *timings.Error). From the suite's
// error on, the returned Selection still holds the policy, which the runner
// prints before it checks the suite.
func Select(cfg *config.Config, regs []registry.Registration, req Request) (*Selection, error) {
	labels := UniqueInOrder(req.Labels)
	pol, warnings, err := policy.Resolve(cfg, req.Cadence, labels)
	if err != nil {
		return nil, err
	}
	warnings = append(warnings, policy.UnknownLabels(cfg, labels)...)
	if req.MatchAllLabels {
		pol = pol.WithAllLabels(cfg)
	}
	s := &Selection{Backend: req.Backend, Policy: pol, Warnings: warnings}
	if s.Suite, err = cfg.FindSuite(req.Suite, req.Backend); err != nil {
		return s, err
	}
	if s.Backend == "" {
		s.Backend = s.Suite.Backend
	}
	picked, err := shard.Select(cfg, regs, s.Backend, req.Suite, pol)
	if err != nil {
		return s, err
	}
	s.Enabled, s.Skipped = picked.Enabled, picked.Skipped
	if len(s.Enabled) == 0 {
		s.Dropped = dropped(regs, s.Backend, req.Suite, pol)
	}

	s.Size = req.Shards
	if s.Size == SuiteShards {
		s.Size = max(s.Suite.Shards, 1)
		if req.ID >= s.Size {
			return s, &IDError{ID: req.ID, Size: s.Size}
		}
	}
	var measured timings.Timings
	if req.TimingsPath != "" {
		if measured, err = timings.Read(req.TimingsPath); err != nil {
			return s, err
		}
	}
	if s.Size == 0 {
		return s, nil
	}
	if measured != nil {
		s.Shards, err = shard.PartitionTimed(s.Enabled, s.Size, measured)
		s.Basis = &plan.Basis{Path: req.TimingsPath, Measured: shard.Measured(s.Enabled, measured),
			Total: len(s.Enabled), Timings: measured}
	} else {
		s.Shards, err = shard.Partition(s.Enabled, s.Size)
	}
	if err != nil {
		return s, err
	}
	if req.ID >= s.Size {
		return s, &IDError{ID: req.ID, Size: s.Size}
	}
	if req.ID != AllShards {
		s.Shards = s.Shards[req.ID : req.ID+1]
	}
	return s, nil
}

// UniqueInOrder drops repeated raw labels (the Python runner makes a set of
// them), keeping first occurrences in order so that warnings come out once
// each. It is linear: a workflow may expand thousands of labels.
func UniqueInOrder(raw []string) []string {
	seen := make(map[string]bool, len(raw))
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// dropped describes the enabled registrations of backend's suite that pol
// leaves out, by the flag that would select them: --match-all-labels or
// the run-ci-* labels they carry, and a nightly cadence for nightly-only
// ones. It returns "" when there is none.
func dropped(regs []registry.Registration, backend config.Backend, suite string, pol policy.Policy) string {
	var byLabel, nightly int
	labels := map[string]bool{}
	for _, r := range regs {
		if r.Backend != backend || r.Suite != suite || !r.Enabled() {
			continue
		}
		if r.Nightly && !pol.AdmitNightly {
			nightly++
			continue
		}
		byLabel++
		for _, l := range r.Labels {
			labels[policy.RunCIPrefix+l] = true
		}
	}
	if byLabel+nightly == 0 {
		return ""
	}
	var why []string
	if byLabel > 0 {
		why = append(why, fmt.Sprintf("%d by their labels (--match-all-labels selects them, or --labels %s)",
			byLabel, strings.Join(slices.Sorted(maps.Keys(labels)), " ")))
	}
	if nightly > 0 {
		why = append(why, fmt.Sprintf("%d nightly-only (--cadence nightly selects them)", nightly))
	}
	what := fmt.Sprintf("all %d enabled registrations", byLabel+nightly)
	if byLabel+nightly == 1 {
		what = "the only enabled registration"
	}
	return fmt.Sprintf("the selection leaves out %s of %s: %s", what, suite, strings.Join(why, "; "))
}
