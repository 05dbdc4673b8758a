// Package suite decides what one CI stage job runs: which of a suite's
// registrations its policy selects, which of those are enabled, how they
// split into shards (on est_time, or on measured seconds), and, for a
// rerun, which of the tests its earlier report lists did not pass. Select is the one
// entry point; everything it looks at comes in as a value (the policy, the
// timings, an earlier report), so it reads no file and prints nothing.
// Package view renders its Plan.
package suite

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/quarantine"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/shard"
	"github.com/radixark/miles-ci/internal/timings"
)

// SuiteShards asks for the suite's configured shard count (Inputs.Shards).
const SuiteShards = -1

// SizedShards asks for the count a pull request's shard_matrix books: the
// fewest shards whose longest, with the setup every shard's job spends
// first, fits the suite's target_minutes, for a suite that sets one (see
// config.Suite.ShardBudget and shard.Fewest), else its configured count.
const SizedShards = -2

// AllShards asks for every shard (Inputs.ID).
const AllShards = -1

// Inputs is one stage job's selection: the suite, the run's policy, and
// the values the split and the rerun are decided on.
type Inputs struct {
	// Backend is --hw; empty means the suite's own backend.
	Backend config.Backend
	Suite   string
	Policy  policy.Policy
	// ContinueOnError is asked for by the command line; the plan also
	// continues when the policy bypasses fast-fail.
	ContinueOnError bool
	// Shards is the number of shards: 0 leaves the suite whole, SuiteShards
	// takes the suite's configured count, SizedShards the count a pull
	// request books.
	Shards int
	// ID is the one shard wanted, or AllShards.
	ID int
	// Timings, when set, balances the shards on measured seconds instead
	// of est_time alone.
	Timings *Timings
	// Previous, when set, is an earlier run's report of this shard: only
	// the tests it does not show passed run again, wherever today's split
	// puts them (see Plan.restrictToRerun).
	Previous *report.Report
	// NoQuarantine is --no-quarantine: the configuration's quarantine
	// does not apply (see Plan.Quarantine).
	NoQuarantine bool
}

// Timings are measured seconds by file and the file they were read from,
// which the plan names.
type Timings struct {
	Path    string
	Seconds timings.Timings
}

// Plan is what one stage job runs, and for `partition`, how the whole
// suite splits.
type Plan struct {
	Backend config.Backend
	Suite   config.Suite
	Policy  policy.Policy
	// ContinueOnError: the run goes on after a failed file.
	ContinueOnError bool
	// Enabled are the selected registrations that run, in registry order
	// (every shard's); Skipped the disabled ones, which no shard runs and
	// every shard lists.
	Enabled []registry.Registration
	Skipped []registry.Registration
	// Size is the number of shards (0 for a whole suite); Shards holds
	// them all, or only shard ID when one was asked for (ID is AllShards
	// otherwise).
	Size   int
	ID     int
	Shards []shard.Shard
	// Tests are what this job runs: shard ID's tests (or the whole suite's
	// enabled ones), or, for a rerun, the suite's tests that the earlier
	// report does not show passed.
	Tests []registry.Registration
	// Sized is set when the count came from the suite's target_minutes
	// (Inputs.Shards was SizedShards and the suite sets one).
	Sized bool
	// Digest is the plan of the whole split (see Pruned and CheckDigest),
	// "" for a whole suite.
	Digest string
	// whole holds every shard of the split, also when Shards holds one.
	whole []shard.Shard
	// Basis is set when the shards were balanced on measured timings;
	// est_time and timeouts stay the declared ones either way.
	Basis *Basis
	// Rerun is set when an earlier report restricted Tests.
	Rerun *Rerun
	// Dropped says, when the policy left out every enabled registration
	// of the suite, how many and which flags select them; "" otherwise.
	Dropped string
	// Quarantine are the configuration's quarantine entries that concern
	// this suite under the run's cadence (quarantine.For), expired ones
	// included: the run decides with its clock what each means.
	Quarantine []config.QuarantineEntry
}

// Partition names one shard of a partitioned run, as its report names it.
type Partition = report.Partition

// Partition is the shard this job runs, nil for a whole suite or a plan
// of every shard.
func (p *Plan) Partition() *Partition {
	if p.Size == 0 || p.ID == AllShards {
		return nil
	}
	return &Partition{ID: p.ID, Size: p.Size}
}

// Basis says that the shards were balanced on measured timings rather than
// on the declared est_time alone.
type Basis struct {
	Path string // the timings file, as given
	// Measured counts the suite's enabled tests whose file the timings
	// list; Total counts the suite's enabled tests (every shard's).
	Measured int
	Total    int
	// Timings are the measured seconds by file.
	Timings timings.Timings
}

// Rerun says that an earlier report chose the tests: the files it does not
// show passed.
type Rerun struct {
	Path string `json:"report"` // the report, as given
	// Count files of the Total the report lists run again.
	Count int `json:"rerun"`
	Total int `json:"total"`
	// Elsewhere counts the files run again that today's split puts in
	// another shard (newer timings moved them).
	Elsewhere int `json:"elsewhere"`
	// PlanChanged is set when the report was run on another plan than
	// today's: tests moved between shards, and each shard reruns what its
	// own report lists (see Plan.restrictToRerun).
	PlanChanged bool `json:"plan_changed"`
}

// IDError is a shard ID outside the suite's configured shard count.
type IDError struct{ ID, Size int }

func (e *IDError) Error() string {
	return fmt.Sprintf("--id must be in range [0, %d) (the suite's shard count), but got %d", e.Size, e.ID)
}

// Select decides in's stage job, with errors in the order of the Python
// runner's: the suite's (a *config.UnknownSuiteError), then the shard ID's
// (an *IDError) and the split's (a *shard.SizeError), then the earlier
// report's (see report.SelectRerun).
func Select(cfg *config.Config, regs []registry.Registration, in Inputs) (*Plan, error) {
	s, err := cfg.FindSuite(in.Suite, in.Backend)
	if err != nil {
		return nil, err
	}
	p := &Plan{Backend: in.Backend, Suite: s, Policy: in.Policy, ID: AllShards,
		ContinueOnError: in.ContinueOnError || in.Policy.Bypass}
	if p.Backend == "" {
		p.Backend = s.Backend
	}
	p.Enabled, p.Skipped = pick(regs, p.Backend, s.Name, in.Policy)
	if len(p.Enabled) == 0 {
		p.Dropped = dropped(regs, p.Backend, s.Name, in.Policy)
	}
	p.Tests = p.Enabled
	p.Quarantine = quarantine.For(cfg, s.Name, in.Policy.Cadence, in.NoQuarantine)

	p.Size = in.Shards
	if p.Size == SizedShards && s.TargetMinutes > 0 {
		var measured timings.Timings
		if in.Timings != nil {
			measured = in.Timings.Seconds
		}
		p.Size, p.Sized = shard.Fewest(p.Enabled, max(s.Shards, 1), measured, s.ShardBudget()), true
	}
	if in.Shards == SuiteShards || in.Shards == SizedShards {
		if !p.Sized {
			p.Size = max(s.Shards, 1)
		}
		if in.ID >= p.Size {
			return nil, &IDError{ID: in.ID, Size: p.Size}
		}
	}
	if p.Size > 0 {
		if err := p.split(in); err != nil {
			return nil, err
		}
	}
	if in.Previous != nil {
		if err := p.restrictToRerun(regs, in.Previous); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// split divides the enabled tests into p.Size shards and keeps shard in.ID
// (or all of them).
func (p *Plan) split(in Inputs) error {
	var err error
	if in.Timings != nil {
		p.Shards, err = shard.PartitionTimed(p.Enabled, p.Size, in.Timings.Seconds)
		p.Basis = &Basis{Path: in.Timings.Path, Measured: shard.Measured(p.Enabled, in.Timings.Seconds),
			Total: len(p.Enabled), Timings: in.Timings.Seconds}
	} else {
		p.Shards, err = shard.Partition(p.Enabled, p.Size)
	}
	if err != nil {
		return err
	}
	p.whole, p.Digest = p.Shards, digest(p.Shards)
	if in.ID >= p.Size {
		return &IDError{ID: in.ID, Size: p.Size}
	}
	if in.ID != AllShards {
		p.ID = in.ID
		p.Shards = p.Shards[in.ID : in.ID+1]
		p.Tests = p.Shards[0].Tests
	}
	return nil
}

// restrictToRerun makes the tests p runs those of the suite whose file prev
// does not show passed (see report.SelectRerun), wherever today's split
// puts them: a failed file that newer timings moved to another shard is
// rerun by the shard whose report lists it, and not by the shard it moved
// to (whose report does not list it). So a report run on another plan than
// today's (the same shard of the same count: a rerun attempt of the same
// workflow run has the same commit and labels, but may be given newer
// timings) is taken, and each shard's rerun covers what its own report
// ran. The policy does not narrow the tests either: prev is what an
// earlier run of this stage job ran. A report that is not this job's (see
// report.CheckRerunOf), a listed file that did not pass and that this
// suite no longer runs (unregistered or disabled since), and a report that
// lists no file while this shard selects tests today are errors before
// anything runs: each would turn a failure, or tests that never ran, into
// a green job.
func (p *Plan) restrictToRerun(regs []registry.Registration, prev *report.Report) error {
	if err := prev.CheckRerunOf(p.Suite.Name, string(p.Backend), p.Partition()); err != nil {
		return err
	}
	sel, err := report.SelectRerun(prev)
	if err != nil {
		return err
	}
	if sel.Listed == 0 && len(p.Tests) > 0 {
		// No run of tests writes this (a run with nothing to run writes no
		// report): it covers nothing of the plan.
		return &UncoveredError{Path: prev.Path(), Planned: len(p.Tests)}
	}
	// The files run in the report's order, the order they ran in before;
	// a file registered twice runs twice, in registry order.
	byFile := make(map[string][]registry.Registration, len(sel.Files))
	for _, f := range sel.Files {
		byFile[f] = nil
	}
	for _, r := range regs {
		if _, ok := byFile[r.File]; ok && r.Backend == p.Backend && r.Suite == p.Suite.Name {
			byFile[r.File] = append(byFile[r.File], r)
		}
	}
	var tests []registry.Registration
	for _, f := range sel.Files {
		found := byFile[f]
		if len(found) == 0 {
			return &RerunFileError{Path: prev.Path(), File: f, Suite: p.Suite.Name}
		}
		n := len(tests)
		for _, r := range found {
			if r.Enabled() {
				tests = append(tests, r)
			}
		}
		if len(tests) == n {
			return &RerunFileError{Path: prev.Path(), File: f, Suite: p.Suite.Name, Disabled: found[0].Disabled}
		}
	}
	p.Rerun = &Rerun{Path: prev.Path(), Count: len(sel.Files), Total: sel.Listed, PlanChanged: prev.Plan != p.Digest}
	if p.ID != AllShards {
		here := map[string]bool{}
		for _, r := range p.Tests {
			here[r.File] = true
		}
		for _, f := range sel.Files {
			if !here[f] {
				p.Rerun.Elsewhere++
			}
		}
	}
	p.Tests = tests
	return nil
}

// RerunFileError is a file an earlier report shows not passed that the
// suite no longer runs: it is not registered in the suite any more, or
// (Disabled set) every registration of it is disabled.
type RerunFileError struct {
	Path, File, Suite string
	Disabled          *string // the reason, when disabled
}

func (e *RerunFileError) Error() string {
	why := "is no longer registered in suite " + e.Suite
	if e.Disabled != nil {
		why = "is disabled in suite " + e.Suite
		if *e.Disabled != "" {
			why += fmt.Sprintf(" (%q)", *e.Disabled)
		}
	}
	// Quoted: the name comes from the report, the reason from a test
	// file; neither may break the line.
	return fmt.Sprintf("report %q shows %q did not pass, but it %s; rerun the whole shard without --rerun-failed", e.Path, e.File, why)
}

// UncoveredError is a report that lists no file given to a run that
// selects tests: a run of tests lists them all, and a run with nothing to
// run writes no report, so it is the report of another shard or none at
// all. Trusting it would pass tests that never ran.
type UncoveredError struct {
	Path    string
	Planned int
}

func (e *UncoveredError) Error() string {
	return fmt.Sprintf("report %q lists no file, but this run selects %d; is it the report of another shard? Rerun without --rerun-failed", e.Path, e.Planned)
}

// pick keeps the registrations of backend's suite that pol selects and
// divides them into enabled and skipped (disabled) ones, both in registry
// order.
func pick(regs []registry.Registration, backend config.Backend, suite string, pol policy.Policy) (enabled, skipped []registry.Registration) {
	for _, r := range regs {
		if r.Backend != backend || r.Suite != suite || !pol.Selects(r.Labels, r.Nightly) {
			continue
		}
		if r.Enabled() {
			enabled = append(enabled, r)
		} else {
			skipped = append(skipped, r)
		}
	}
	return enabled, skipped
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
