// Package plan writes what `miles-ci run` and `miles-ci partition` decided:
// the run plan exactly as the Python runner prints it, the partition view,
// and the JSON forms of both. It only formats; it decides nothing.
package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/shard"
)

// Partition names one shard of a partitioned run.
type Partition struct {
	ID   int `json:"id"`
	Size int `json:"size"`
}

// Basis says that a partition was balanced on measured timings (the
// --timings file) rather than on the declared est_time alone. Nil means the
// default basis, est_time, and then nothing about it is printed.
type Basis struct {
	Path string // the timings file, as given
	// Measured counts the suite's enabled tests whose file the timings
	// file lists; Total counts the suite's enabled tests (every shard's).
	Measured int
	Total    int
	// Timings are the measured seconds by file.
	Timings map[string]float64
}

// Line says which basis the shards were balanced on, without a newline.
func (b *Basis) Line() string {
	return fmt.Sprintf("Sharded by measured timings from %s (%d of %d files measured)", b.Path, b.Measured, b.Total)
}

// jsonBasis is the "basis" key of the JSON documents, present only with
// --timings.
type jsonBasis struct {
	Kind     string `json:"kind"`
	Timings  string `json:"timings"`
	Measured int    `json:"measured"`
	Total    int    `json:"total"`
}

func (b *Basis) json() *jsonBasis {
	if b == nil {
		return nil
	}
	return &jsonBasis{Kind: "measured", Timings: b.Path, Measured: b.Measured, Total: b.Total}
}

// Rerun says that `run --rerun-failed` restricted the plan to the files
// that did not pass in an earlier run's report. Nil means a plain run, and
// then nothing about it is printed.
// Its JSON is the "rerun" key of the plan's JSON.
type Rerun struct {
	Path string `json:"report"` // the report, as given
	// Count files of Total (what the shard selects today) run again.
	Count int `json:"rerun"`
	Total int `json:"total"`
}

// Line says what the rerun keeps, without a newline.
func (r *Rerun) Line() string {
	return fmt.Sprintf("Rerunning %d of %d file(s) that did not pass in %s", r.Count, r.Total, r.Path)
}

// Plan is one suite's run under one policy.
type Plan struct {
	Backend         config.Backend
	Suite           string
	Policy          policy.Policy // include labels as finally used
	ContinueOnError bool
	Partition       *Partition // nil: the full suite
	// Basis is set when the partition was balanced on measured timings;
	// est_time and timeouts stay the declared ones either way.
	Basis *Basis
	// Rerun is set when --rerun-failed kept only some of the shard's tests
	// (Enabled holds those).
	Rerun   *Rerun
	Enabled []registry.Registration
	Skipped []registry.Registration
}

// PolicyLine is the first line of a run, without its newline.
func PolicyLine(p policy.Policy) string {
	return fmt.Sprintf("Policy: cadence=%s bypass_fastfail=%s include_labels=%s",
		pyfmt.Repr(p.Cadence), pyfmt.Bool(p.Bypass), pyfmt.ReprList(p.IncludeLabels))
}

// NoTestsLine is printed after the plan when nothing is enabled.
const NoTestsLine = "No tests to run. Exiting with success."

var rule = strings.Repeat("=", 60)

// WriteText writes the plan block exactly as the Python runner prints it,
// including the blank line before it and the one after.
func (p *Plan) WriteText(w io.Writer) error {
	var b strings.Builder
	part := "full"
	if p.Partition != nil {
		part = fmt.Sprintf("%d/%d (0-based id=%d)", p.Partition.ID+1, p.Partition.Size, p.Partition.ID)
	}
	fmt.Fprintf(&b, "\n%s\n", rule)
	fmt.Fprintf(&b, "Hardware: %s  Suite: %s  Cadence: %s  Continue on error: %s  Partition: %s\n",
		p.Backend.Upper(), p.Suite, p.Policy.Cadence, pyfmt.Bool(p.ContinueOnError), part)
	fmt.Fprintf(&b, "%s\n", rule)
	if p.Basis != nil {
		fmt.Fprintf(&b, "%s\n", p.Basis.Line())
	}
	if p.Rerun != nil {
		fmt.Fprintf(&b, "%s\n", p.Rerun.Line())
	}

	if len(p.Skipped) > 0 {
		fmt.Fprintf(&b, "Skipped %d test(s):\n", len(p.Skipped))
		for _, t := range p.Skipped {
			fmt.Fprintf(&b, "  - %s (reason: %s)\n", t.File, skipReason(t))
		}
		b.WriteString("\n")
	}

	switch {
	case len(p.Enabled) == 0 && p.Rerun != nil && p.Rerun.Total > 0:
		fmt.Fprintf(&b, "Nothing to rerun: every selected test passed in %s\n", p.Rerun.Path)
	case len(p.Enabled) == 0:
		fmt.Fprintf(&b, "No tests found for hw=%s, suite=%s, cadence=%s\n", p.Backend.Upper(), p.Suite, p.Policy.Cadence)
		b.WriteString("This is expected during incremental migration. Skipping.\n")
	default:
		fmt.Fprintf(&b, "Enabled %d test(s) (est total %ss):\n", len(p.Enabled), Seconds(EstTotal(p.Enabled)))
		for _, t := range p.Enabled {
			suffix := ""
			if t.Implicit {
				suffix = " [implicit]"
			}
			fmt.Fprintf(&b, "  - %s (est_time=%ss)%s\n", t.File, pyfmt.Float(t.EstTime), suffix)
		}
	}
	// The Python runner prints the block with print(), which adds one more
	// newline after the block's own.
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
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
	Partition       *Partition              `json:"partition"`
	Basis           *jsonBasis              `json:"basis,omitempty"`
	Rerun           *Rerun                  `json:"rerun,omitempty"`
	Enabled         []registry.Registration `json:"enabled"`
	Skipped         []registry.Registration `json:"skipped"`
}

// WriteJSON writes the plan as the JSON document of `run --list-only --json`,
// followed by a newline.
func (p *Plan) WriteJSON(w io.Writer) error {
	pol := p.Policy
	pol.IncludeLabels = nonNil(pol.IncludeLabels)
	return writeJSON(w, jsonPlan{
		HW:              p.Backend,
		Suite:           p.Suite,
		Policy:          pol,
		ContinueOnError: p.ContinueOnError,
		Partition:       p.Partition,
		Basis:           p.Basis.json(),
		Rerun:           p.Rerun,
		Enabled:         jsonRegs(p.Enabled),
		Skipped:         jsonRegs(p.Skipped),
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

// View is the partition of one suite into shards.
type View struct {
	Backend config.Backend
	Suite   string
	Policy  policy.Policy
	Size    int
	Shards  []shard.Shard // every shard, or only the one asked for
	// Skipped are the disabled selected tests; they are in no shard.
	Skipped []registry.Registration
	// Basis is set when the shards were balanced on measured timings
	// (shard.PartitionTimed); the balance is then that of their TimedTotal.
	Basis *Basis
}

type jsonShard struct {
	ID         int                     `json:"id"`
	EstTotal   pyfmt.JSONFloat         `json:"est_total"`
	TimedTotal *pyfmt.JSONFloat        `json:"timed_total,omitempty"`
	Tests      []registry.Registration `json:"tests"`
}

type jsonView struct {
	Suite  string      `json:"suite"`
	Size   int         `json:"size"`
	Basis  *jsonBasis  `json:"basis,omitempty"`
	Shards []jsonShard `json:"shards"`
}

// WriteJSON writes the view as the JSON document of `partition --json`.
func (v *View) WriteJSON(w io.Writer) error {
	doc := jsonView{Suite: v.Suite, Size: v.Size, Basis: v.Basis.json(), Shards: make([]jsonShard, len(v.Shards))}
	for i, s := range v.Shards {
		doc.Shards[i] = jsonShard{ID: s.ID, EstTotal: pyfmt.JSONFloat(s.EstTotal), Tests: jsonRegs(s.Tests)}
		if v.Basis != nil {
			timed := pyfmt.JSONFloat(s.TimedTotal)
			doc.Shards[i].TimedTotal = &timed
		}
	}
	return writeJSON(w, doc)
}

// NoTests reports whether no shard of the view holds a test.
func (v *View) NoTests() bool {
	for _, s := range v.Shards {
		if len(s.Tests) > 0 {
			return false
		}
	}
	return true
}

// WriteFiles writes the file of every test of every shard in the view, one
// per line, in run order.
func (v *View) WriteFiles(w io.Writer) error {
	var b strings.Builder
	for _, s := range v.Shards {
		for _, t := range s.Tests {
			b.WriteString(t.File)
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

// WriteText writes the readable view: a header, every shard with its tests
// and total, the skipped tests, and the balance.
func (v *View) WriteText(w io.Writer) error {
	var b strings.Builder
	est := ComputeStats(v.Shards)
	st := est
	if v.Basis != nil {
		st = ComputeTimedStats(v.Shards)
	}
	fmt.Fprintf(&b, "Suite %s (%s): %d enabled test(s), est total %ss, in %d shard(s)\n",
		v.Suite, v.Backend, est.Tests, tenths(est.Total), v.Size)
	fmt.Fprintf(&b, "%s\n", PolicyLine(v.Policy))
	if v.Basis != nil {
		fmt.Fprintf(&b, "%s\n", v.Basis.Line())
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
			fmt.Fprintf(&b, "  - %s (est_time=%ss)%s\n", t.File, pyfmt.Float(t.EstTime), suffix)
		}
	}
	if len(v.Skipped) > 0 {
		fmt.Fprintf(&b, "\nSkipped %d test(s), reported by every shard:\n", len(v.Skipped))
		for _, t := range v.Skipped {
			fmt.Fprintf(&b, "  - %s (reason: %s)\n", t.File, skipReason(t))
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

// reasonEscaper escapes the line breaks of a disabled reason, text that a
// test file chooses: one could otherwise start a line of its own in the
// plan, such as a forged GitHub workflow command ("::error ..."). Nothing
// else is escaped, so every other reason prints as Python prints it.
var reasonEscaper = strings.NewReplacer("\n", `\n`, "\r", `\r`)

// skipReason is what the plan says about a skipped registration: its
// disabled reason, or "disabled" when it gives none.
func skipReason(r registry.Registration) string {
	if r.Disabled == nil || *r.Disabled == "" {
		return "disabled"
	}
	return reasonEscaper.Replace(*r.Disabled)
}
