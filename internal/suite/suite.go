// Package suite decides what one CI stage job runs: which of a suite's
// registrations its policy selects, which of those are enabled, how they
// split into shards (on est_time, or on measured seconds), and, for a
// rerun, which of its shard's tests did not pass before. Select is the one
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
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/shard"
	"github.com/radixark/miles-ci/internal/timings"
)

// SuiteShards asks for the suite's configured shard count (Inputs.Shards).
const SuiteShards = -1

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
	// takes the suite's configured count.
	Shards int
	// ID is the one shard wanted, or AllShards.
	ID int
	// Timings, when set, balances the shards on measured seconds instead
	// of est_time alone.
	Timings *Timings
	// Previous, when set, is an earlier run's report of this shard: only
	// the tests it does not show passed run again.
	Previous *report.Report
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
	// enabled ones), less what a rerun leaves out.
	Tests []registry.Registration
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
}

// Partition names one shard of a partitioned run.
type Partition struct {
	ID   int `json:"id"`
	Size int `json:"size"`
}

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

// Rerun says that an earlier report kept only some of the shard's tests.
type Rerun struct {
	Path string `json:"report"` // the report, as given
	// Count files of Total (what the shard selects today) run again.
	Count int `json:"rerun"`
	Total int `json:"total"`
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

	p.Size = in.Shards
	if p.Size == SuiteShards {
		p.Size = max(s.Shards, 1)
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
		if err := p.restrictToRerun(in.Previous); err != nil {
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

// restrictToRerun keeps, of the tests p runs, those that did not pass in
// prev (see report.SelectRerun). A report of another suite, backend or
// shard is an error before anything runs.
func (p *Plan) restrictToRerun(prev *report.Report) error {
	if err := prev.CheckSuite(p.Suite.Name, string(p.Backend)); err != nil {
		return err
	}
	files := make([]string, len(p.Tests))
	for i, r := range p.Tests {
		files[i] = r.File
	}
	sel, err := report.SelectRerun(prev, files)
	if err != nil {
		return err
	}
	kept := p.Tests[:0:0]
	for i, r := range p.Tests {
		if sel.Keep[i] {
			kept = append(kept, r)
		}
	}
	p.Rerun = &Rerun{Path: prev.Path(), Count: sel.Count, Total: len(files)}
	p.Tests = kept
	return nil
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
