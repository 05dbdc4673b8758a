// Package view renders what the deciding packages decided, as text and as
// JSON: a stage job's plan exactly as the Python runner prints it, the
// partition of a suite, the policy explanation, and the roster of suites.
// It decides nothing.
package view

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/quarantine"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/shard"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// basisLine says which basis the shards were balanced on, without a
// newline.
func basisLine(b *suite.Basis) string {
	return fmt.Sprintf("Sharded by measured timings from %s (%d of %d files measured)", textfmt.OneLine(b.Path), b.Measured, b.Total)
}

// jsonBasis is the "basis" key of the JSON documents, present only with
// --timings.
type jsonBasis struct {
	Kind     string `json:"kind"`
	Timings  string `json:"timings"`
	Measured int    `json:"measured"`
	Total    int    `json:"total"`
}

func basisJSON(b *suite.Basis) *jsonBasis {
	if b == nil {
		return nil
	}
	return &jsonBasis{Kind: "measured", Timings: b.Path, Measured: b.Measured, Total: b.Total}
}

// rerunLine says what a rerun runs, without a newline: the files its
// report lists that did not pass, and how many of them today's split puts
// in another shard.
func rerunLine(r *suite.Rerun) string {
	line := fmt.Sprintf("Rerunning the %d of %d file(s) listed in %s that did not pass", r.Count, r.Total, textfmt.OneLine(r.Path))
	if r.Elsewhere > 0 {
		line += fmt.Sprintf(" (%d now in another shard, rerun here all the same)", r.Elsewhere)
	}
	return line
}

// PolicyLine is the first line of a run, without its newline.
func PolicyLine(p policy.Policy) string {
	return fmt.Sprintf("Policy: cadence=%s bypass_fastfail=%s include_labels=%s",
		pyfmt.Repr(p.Cadence), pyfmt.Bool(p.Bypass), pyfmt.ReprList(p.IncludeLabels))
}

// NoTestsLine is printed after the plan when nothing is enabled.
const NoTestsLine = "No tests to run. Exiting with success."

var rule = strings.Repeat("=", 60)

// Plan writes the plan block of the tests p runs exactly as the Python
// runner prints it, including the blank line before it and the one after;
// a file marks names (quarantine.Marks) ends its line with its quarantine
// (quarantineSuffix), which the Python runner never has.
func Plan(w io.Writer, p *suite.Plan, marks map[string]quarantine.Mark) error {
	var b strings.Builder
	part := "full"
	if pt := p.Partition(); pt != nil {
		part = fmt.Sprintf("%d/%d (0-based id=%d)", pt.ID+1, pt.Size, pt.ID)
	}
	fmt.Fprintf(&b, "\n%s\n", rule)
	fmt.Fprintf(&b, "Hardware: %s  Suite: %s  Cadence: %s  Continue on error: %s  Partition: %s\n",
		p.Backend.Upper(), p.Suite.Name, p.Policy.Cadence, pyfmt.Bool(p.ContinueOnError), part)
	fmt.Fprintf(&b, "%s\n", rule)
	if p.Basis != nil {
		fmt.Fprintf(&b, "%s\n", basisLine(p.Basis))
	}
	if p.Rerun != nil {
		fmt.Fprintf(&b, "%s\n", rerunLine(p.Rerun))
		if p.Rerun.PlanChanged {
			b.WriteString("Its plan is not today's: tests moved between shards since, and each shard reruns what its own report lists\n")
		}
	}

	if len(p.Skipped) > 0 {
		fmt.Fprintf(&b, "Skipped %d test(s):\n", len(p.Skipped))
		for _, t := range p.Skipped {
			fmt.Fprintf(&b, "  - %s (reason: %s)\n", textfmt.OneLine(t.File), skipReason(t))
		}
		b.WriteString("\n")
	}

	switch {
	case len(p.Tests) == 0 && p.Rerun != nil && p.Rerun.Total > 0:
		fmt.Fprintf(&b, "Nothing to rerun: every file %s lists passed\n", textfmt.OneLine(p.Rerun.Path))
	case len(p.Tests) == 0:
		fmt.Fprintf(&b, "No tests found for hw=%s, suite=%s, cadence=%s\n", p.Backend.Upper(), p.Suite.Name, p.Policy.Cadence)
		b.WriteString("This is expected during incremental migration. Skipping.\n")
	default:
		fmt.Fprintf(&b, "Enabled %d test(s) (est total %ss):\n", len(p.Tests), Seconds(EstTotal(p.Tests)))
		for _, t := range p.Tests {
			suffix := ""
			if t.Implicit {
				suffix = " [implicit]"
			}
			suffix += quarantineSuffix(marks, t.File)
			fmt.Fprintf(&b, "  - %s (est_time=%ss)%s\n", textfmt.OneLine(t.File), pyfmt.Float(t.EstTime), suffix)
		}
	}
	// The Python runner prints the block with print(), which adds one more
	// newline after the block's own.
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// quarantineSuffix is the end of a listed file's line when an entry of
// the run's quarantine concerns it: " [quarantined until DATE]", or, for
// an entry past its until, which protects nothing, " [quarantine expired
// after DATE: not applied]"; "" when none does, so that a listing without
// a quarantine is the Python runner's byte for byte.
func quarantineSuffix(marks map[string]quarantine.Mark, file string) string {
	m, ok := marks[file]
	switch {
	case !ok:
		return ""
	case m.Expired:
		return " [quarantine expired after " + m.Entry.UntilText() + ": not applied]"
	default:
		return " [quarantined until " + m.Entry.UntilText() + "]"
	}
}

// EstTotal sums the est_time of regs in order, as Python's sum() does.
func EstTotal(regs []registry.Registration) float64 {
	var total float64
	for _, r := range regs {
		total += r.EstTime
	}
	return total
}

// Seconds writes f as Python's "%.0f" does: rounded half to even, and inf
// and nan spelled as Python spells them.
func Seconds(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	// Go's %.0f rounds the exact binary value half to even, like C's printf.
	return fmt.Sprintf("%.0f", f)
}

// tenths writes seconds with one decimal for the partition view, where
// small tests would otherwise round to nothing.
func tenths(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return Seconds(f)
	}
	return fmt.Sprintf("%.1f", f)
}

// jsonPlan is the `run --list-only --json` document (SPEC §7).
type jsonPlan struct {
	HW              config.Backend          `json:"hw"`
	Suite           string                  `json:"suite"`
	Policy          policy.Policy           `json:"policy"`
	ContinueOnError bool                    `json:"continue_on_error"`
	Partition       *suite.Partition        `json:"partition"`
	Basis           *jsonBasis              `json:"basis,omitempty"`
	Rerun           *suite.Rerun            `json:"rerun,omitempty"`
	Enabled         []registry.Registration `json:"enabled"`
	Skipped         []registry.Registration `json:"skipped"`
	// Quarantined is present only when an entry of the run's quarantine
	// concerns an enabled file (see quarantineSuffix).
	Quarantined []jsonQuarantined `json:"quarantined,omitempty"`
}

// jsonQuarantined is an enabled file of the plan an entry of the
// quarantine concerns: the entry, and whether it expired (then it is not
// applied).
type jsonQuarantined struct {
	File    string `json:"file"`
	Reason  string `json:"reason"`
	Until   string `json:"until"`
	Owner   string `json:"owner"`
	Expired bool   `json:"expired"`
}

// PlanJSON writes the plan as the JSON document of `run --list-only --json`,
// followed by a newline; the files marks names are listed under
// "quarantined", in the plan's order.
func PlanJSON(w io.Writer, p *suite.Plan, marks map[string]quarantine.Mark) error {
	pol := p.Policy
	pol.IncludeLabels = nonNil(pol.IncludeLabels)
	var quarantined []jsonQuarantined
	for _, t := range p.Tests {
		if m, ok := marks[t.File]; ok {
			e := m.Entry
			quarantined = append(quarantined, jsonQuarantined{File: t.File, Reason: e.Reason, Until: e.UntilText(), Owner: e.Owner, Expired: m.Expired})
		}
	}
	return writeJSON(w, jsonPlan{
		HW:              p.Backend,
		Suite:           p.Suite.Name,
		Policy:          pol,
		ContinueOnError: p.ContinueOnError,
		Partition:       p.Partition(),
		Basis:           basisJSON(p.Basis),
		Rerun:           p.Rerun,
		Enabled:         jsonRegs(p.Tests),
		Skipped:         jsonRegs(p.Skipped),
		Quarantined:     quarantined,
	})
}

// jsonRegs returns regs ready for JSON: never null, labels never null.
func jsonRegs(regs []registry.Registration) []registry.Registration {
	out := make([]registry.Registration, len(regs))
	for i, r := range regs {
		r.Labels = nonNil(r.Labels)
		out[i] = r
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func writeJSON(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

type jsonShard struct {
	ID         int                     `json:"id"`
	EstTotal   pyfmt.JSONFloat         `json:"est_total"`
	TimedTotal *pyfmt.JSONFloat        `json:"timed_total,omitempty"`
	Tests      []registry.Registration `json:"tests"`
}

type jsonView struct {
	Suite string `json:"suite"`
	Size  int    `json:"size"`
	// TargetMinutes is set when Size is the count a pull request books
	// for the suite's target_minutes.
	TargetMinutes float64 `json:"target_minutes,omitempty"`
	// SetupMinutes is the setup the sizing counted in every shard's
	// target, set with TargetMinutes when the suite has one.
	SetupMinutes float64     `json:"setup_minutes,omitempty"`
	Basis        *jsonBasis  `json:"basis,omitempty"`
	Shards       []jsonShard `json:"shards"`
}

// PartitionJSON writes the shards of p as the JSON document of
// `partition --json`.
func PartitionJSON(w io.Writer, v *suite.Plan) error {
	doc := jsonView{Suite: v.Suite.Name, Size: v.Size, Basis: basisJSON(v.Basis), Shards: make([]jsonShard, len(v.Shards))}
	if v.Sized {
		doc.TargetMinutes, doc.SetupMinutes = v.Suite.TargetMinutes, v.Suite.SetupMinutes
	}
	for i, s := range v.Shards {
		doc.Shards[i] = jsonShard{ID: s.ID, EstTotal: pyfmt.JSONFloat(s.EstTotal), Tests: jsonRegs(s.Tests)}
		if v.Basis != nil {
			timed := pyfmt.JSONFloat(s.TimedTotal)
			doc.Shards[i].TimedTotal = &timed
		}
	}
	return writeJSON(w, doc)
}

// PartitionFiles writes the file of every test of every shard of p, one
// per line, in run order.
func PartitionFiles(w io.Writer, v *suite.Plan) error {
	var b strings.Builder
	for _, s := range v.Shards {
		for _, t := range s.Tests {
			b.WriteString(textfmt.OneLine(t.File))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Stats summarises how well a partition is balanced.
type Stats struct {
	Tests    int
	Total    float64
	Makespan float64 // the largest shard total
	Mean     float64 // total / number of shards
	// Imbalance is makespan / mean: 1 is perfect; 0 when nothing is sharded.
	Imbalance float64
}

// ComputeStats returns the balance of shards on their EstTotal.
func ComputeStats(shards []shard.Shard) Stats {
	return computeStats(shards, func(s *shard.Shard) float64 { return s.EstTotal })
}

// ComputeTimedStats returns the balance of shards on their TimedTotal, the
// basis of shard.PartitionTimed.
func ComputeTimedStats(shards []shard.Shard) Stats {
	return computeStats(shards, func(s *shard.Shard) float64 { return s.TimedTotal })
}

func computeStats(shards []shard.Shard, total func(*shard.Shard) float64) Stats {
	var st Stats
	for i := range shards {
		t := total(&shards[i])
		st.Tests += len(shards[i].Tests)
		st.Total += t
		st.Makespan = max(st.Makespan, t)
	}
	if len(shards) > 0 {
		st.Mean = st.Total / float64(len(shards))
	}
	if st.Mean > 0 {
		st.Imbalance = st.Makespan / st.Mean
	}
	return st
}

// Partition writes the readable partition of p: a header, every shard with
// its tests and total (a file marks names with its quarantine, as Plan
// writes it), the skipped tests, and the balance.
func Partition(w io.Writer, v *suite.Plan, marks map[string]quarantine.Mark) error {
	var b strings.Builder
	est := ComputeStats(v.Shards)
	st := est
	if v.Basis != nil {
		st = ComputeTimedStats(v.Shards)
	}
	fmt.Fprintf(&b, "Suite %s (%s): %d enabled test(s), est total %ss, in %d shard(s)\n",
		v.Suite.Name, v.Backend, est.Tests, tenths(est.Total), v.Size)
	if v.Sized {
		setup := ""
		if v.Suite.SetupMinutes > 0 {
			setup = fmt.Sprintf(" less setup_minutes %s per shard (%s minutes of tests)",
				pyfmt.Float(v.Suite.SetupMinutes), pyfmt.Float(v.Suite.ShardBudget()/60))
		}
		fmt.Fprintf(&b, "Sized for target_minutes %s%s: the fewest of at most %d shard(s) whose longest fits, as a pull request's shard_matrix books them (a schedule books all %d)\n",
			pyfmt.Float(v.Suite.TargetMinutes), setup, max(v.Suite.Shards, 1), max(v.Suite.Shards, 1))
	}
	fmt.Fprintf(&b, "%s\n", PolicyLine(v.Policy))
	if v.Basis != nil {
		fmt.Fprintf(&b, "%s\n", basisLine(v.Basis))
	}
	for _, s := range v.Shards {
		timed := ""
		if v.Basis != nil {
			timed = fmt.Sprintf(", measured-basis total %ss", tenths(s.TimedTotal))
		}
		fmt.Fprintf(&b, "\nShard %d/%d (0-based id=%d): %d test(s), est total %ss%s\n",
			s.ID+1, v.Size, s.ID, len(s.Tests), tenths(s.EstTotal), timed)
		for _, t := range s.Tests {
			suffix := ""
			if v.Basis != nil {
				if m, ok := v.Basis.Timings[t.File]; ok {
					suffix = fmt.Sprintf(" measured=%ss", tenths(m))
				}
			}
			if t.Implicit {
				suffix += " [implicit]"
			}
			suffix += quarantineSuffix(marks, t.File)
			fmt.Fprintf(&b, "  - %s (est_time=%ss)%s\n", textfmt.OneLine(t.File), pyfmt.Float(t.EstTime), suffix)
		}
	}
	if len(v.Skipped) > 0 {
		fmt.Fprintf(&b, "\nSkipped %d test(s), reported by every shard:\n", len(v.Skipped))
		for _, t := range v.Skipped {
			fmt.Fprintf(&b, "  - %s (reason: %s)\n", textfmt.OneLine(t.File), skipReason(t))
		}
	}
	imbalance := "n/a"
	if st.Imbalance > 0 {
		imbalance = fmt.Sprintf("%.2f", st.Imbalance)
	}
	basis := ""
	if v.Basis != nil {
		basis = ", on measured-basis totals"
	}
	fmt.Fprintf(&b, "\nMakespan: %ss  Mean: %ss  Imbalance: %s (largest shard / mean%s)\n",
		tenths(st.Makespan), tenths(st.Mean), imbalance, basis)
	_, err := io.WriteString(w, b.String())
	return err
}

// skipReason is what the plan says about a skipped registration: its
// disabled reason, or "disabled" when it gives none.
func skipReason(r registry.Registration) string {
	if r.Disabled == nil || *r.Disabled == "" {
		return "disabled"
	}
	// Text a test file chooses: its line breaks are escaped as the
	// file's name is, so it cannot start a line of its own.
	return textfmt.OneLine(*r.Disabled)
}
