package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/shard"
	"github.com/radixark/miles-ci/internal/timings"
)

// Entry is one shard job of a stage's GitHub Actions matrix: the flags
// its `run` gets (--auto-partition-id, --auto-partition-size and
// --expect-plan).
type Entry struct {
	PartitionID   int    `json:"partition_id"`
	PartitionSize int    `json:"partition_size"`
	Plan          string `json:"plan"`
}

// Matrix is a stage job's `strategy.matrix`: GitHub Actions runs one job
// per entry of Include. It is never empty, since GitHub refuses an empty
// matrix.
type Matrix struct {
	Include []Entry `json:"include"`
}

// Full is the matrix of every shard of a size-shard stage, with no plan to
// check: what a run that may check out another ref than the policy job's
// (a schedule, a dispatch, a workflow_call) must book.
func Full(size int) Matrix {
	m := Matrix{Include: make([]Entry, max(size, 1))}
	for i := range m.Include {
		m.Include[i] = Entry{PartitionID: i, PartitionSize: max(size, 1)}
	}
	return m
}

// Pruned is the matrix of p, a plan of every shard: only the shards that
// hold a test, each carrying p's digest, so that a test job that sees
// another split stops instead of skipping a test. A stage with nothing to
// run keeps shard 0, which runs nothing and says so.
func Pruned(p *Plan) Matrix {
	var m Matrix
	for _, s := range p.Shards {
		if len(s.Tests) > 0 {
			m.Include = append(m.Include, Entry{PartitionID: s.ID, PartitionSize: p.Size, Plan: p.Digest})
		}
	}
	if len(m.Include) == 0 {
		m.Include = []Entry{{PartitionID: 0, PartitionSize: p.Size, Plan: p.Digest}}
	}
	return m
}

// StageMatrix is the matrix of one stage job.
type StageMatrix struct {
	Suite  config.Suite
	Matrix Matrix
	// Plan is the stage's plan of every shard in the pull-request form,
	// nil where every roster shard is listed.
	Plan *Plan
}

// Matrices returns the matrix of every in-repository GPU stage of the
// roster, in order of their names. pruned asks for the pull-request form:
// each stage's tests are selected under pol, as `run` selects them, and
// split as the roster says (on t when it is set; into fewer shards for a
// suite with a target_minutes, see sized); otherwise every stage gets every
// roster shard.
func Matrices(cfg *config.Config, regs []registry.Registration, pol policy.Policy, t *Timings, pruned bool) ([]StageMatrix, error) {
	var out []StageMatrix
	for _, name := range cfg.PRGPUStages() {
		s, _ := cfg.Suite(name)
		if !pruned {
			out = append(out, StageMatrix{Suite: s, Matrix: Full(s.Shards)})
			continue
		}
		p, err := sized(cfg, regs, s, pol, t)
		if err != nil {
			return nil, err
		}
		out = append(out, StageMatrix{Suite: s, Matrix: Pruned(p), Plan: p})
	}
	return out, nil
}

// sized is the plan of every shard of s under pol. A suite with a
// target_minutes splits into the fewest shards, at most its roster count,
// whose longest shard (on the measured seconds where t has them, else
// est_time) takes at most that long; fewer runners then work longer.
func sized(cfg *config.Config, regs []registry.Registration, s config.Suite, pol policy.Policy, t *Timings) (*Plan, error) {
	in := Inputs{Suite: s.Name, Policy: pol, Shards: SuiteShards, ID: AllShards, Timings: t}
	if s.TargetMinutes <= 0 {
		return Select(cfg, regs, in)
	}
	// The whole suite's enabled tests, which every count splits.
	whole := in
	whole.Shards, whole.Timings = 0, nil
	all, err := Select(cfg, regs, whole)
	if err != nil {
		return nil, err
	}
	var measured timings.Timings
	if t != nil {
		measured = t.Seconds
	}
	in.Shards = shard.Fewest(all.Enabled, max(s.Shards, 1), measured, s.TargetMinutes*60)
	return Select(cfg, regs, in)
}

// Longest is the seconds of p's longest shard: measured where p was split
// on timings, else est_time.
func Longest(p *Plan) float64 {
	longest := 0.0
	for _, sh := range p.Shards {
		if p.Basis != nil {
			longest = max(longest, sh.TimedTotal)
		} else {
			longest = max(longest, sh.EstTotal)
		}
	}
	return longest
}

// digestVersion starts every digest, so that a later change of what a
// digest covers reads as a mismatch of kind, not of plan.
const digestVersion = "p1"

// digest is the plan of a split: the version, the shard count, then for
// each shard the first 8 hex digits of the SHA-256 of its files, sorted
// (a test's place within its shard does not change what the shard runs).
// Per-shard parts let a test job name the shards that differ.
func digest(shards []shard.Shard) string {
	var b strings.Builder
	b.WriteString(digestVersion)
	b.WriteByte('.')
	b.WriteString(strconv.Itoa(len(shards)))
	for _, s := range shards {
		b.WriteByte('.')
		b.WriteString(shardHash(s))
	}
	return b.String()
}

func shardHash(s shard.Shard) string {
	files := make([]string, len(s.Tests))
	for i, t := range s.Tests {
		files[i] = t.File
	}
	slices.Sort(files)
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// PlanMismatchError is a test job whose stage plan is not the one the
// policy job planned its matrix on: they saw different trees, labels or
// timings, and a pruned matrix may have left out a shard that now holds a
// test.
type PlanMismatchError struct {
	Suite string
	Want  string
	Got   string
	// Size is set when the shard counts differ: the planned one.
	Size int
	// Shards are the shards whose tests differ, with the tests they now
	// hold.
	Shards []shard.Shard
}

func (e *PlanMismatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "the plan of %s is not the one the policy job planned (--expect-plan %s, now %s)", e.Suite, e.Want, e.Got)
	if e.Size > 0 {
		fmt.Fprintf(&b, ": it planned %d shards", e.Size)
	}
	for i, s := range e.Shards {
		if i == 0 && e.Size == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		files := make([]string, len(s.Tests))
		for j, t := range s.Tests {
			files[j] = t.File
		}
		if len(files) == 0 {
			fmt.Fprintf(&b, "shard %d now holds no test", s.ID)
		} else {
			fmt.Fprintf(&b, "shard %d now holds %s", s.ID, strings.Join(files, ", "))
		}
	}
	b.WriteString("; the policy job and this job saw different test files, labels or timings: rerun the workflow")
	return b.String()
}

// CheckDigest returns a *PlanMismatchError unless want, the digest the
// policy job computed, is p's. An empty want checks nothing.
func (p *Plan) CheckDigest(want string) error {
	if want == "" || want == p.Digest {
		return nil
	}
	e := &PlanMismatchError{Suite: p.Suite.Name, Want: want, Got: p.Digest}
	parts := strings.Split(want, ".")
	if len(parts) < 2 || parts[0] != digestVersion || parts[1] != strconv.Itoa(len(p.whole)) || len(parts) != 2+len(p.whole) {
		if n, err := strconv.Atoi(parts[min(1, len(parts)-1)]); err == nil && n != len(p.whole) {
			e.Size = n
		}
		return e
	}
	for i, s := range p.whole {
		if parts[2+i] != shardHash(s) {
			e.Shards = append(e.Shards, s)
		}
	}
	return e
}
