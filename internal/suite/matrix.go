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
// hold a test, each carrying the plan its job checks (see EntryPlan), so
// that a test job that sees another split stops instead of skipping a
// test. A stage with nothing to run keeps shard 0, which runs nothing and
// says so.
func Pruned(p *Plan) Matrix {
	var m Matrix
	for _, s := range p.Shards {
		if len(s.Tests) > 0 {
			m.Include = append(m.Include, Entry{PartitionID: s.ID, PartitionSize: p.Size, Plan: p.EntryPlan(s.ID)})
		}
	}
	if len(m.Include) == 0 {
		m.Include = []Entry{{PartitionID: 0, PartitionSize: p.Size, Plan: p.EntryPlan(0)}}
	}
	return m
}

// entryDigestShards is the most shards of a stage whose matrix entries
// carry the stage digest itself. That digest grows with the shard count,
// and every entry carrying it makes the matrix grow with its square (256
// shards: 600 KB of GitHub's 1 MB of job outputs); a larger stage's entries
// carry a digest of constant length instead.
const entryDigestShards = 16

// EntryPlan is the plan the matrix entry of shard id of p, a plan of every
// shard, carries for `run --expect-plan`. Up to entryDigestShards shards it
// is p's Digest, so that a job that sees another plan names every shard
// that differs. Above, it is "p2.N.W.K.H": the shard count N, W the first
// 16 hex digits of the SHA-256 of the Digest (the whole plan, which the job
// checks), the shard id K and H its shard's hash (so that the job names
// its own shard when that is what differs).
func (p *Plan) EntryPlan(id int) string {
	if len(p.whole) <= entryDigestShards {
		return p.Digest
	}
	return fmt.Sprintf("%s.%d.%s.%d.%s", entryDigestVersion, len(p.whole), wholeHash(p.Digest), id, shardHash(p.whole[id]))
}

// entryDigestVersion starts the digest of one shard's entry.
const entryDigestVersion = "p2"

// wholeHash is the part of an entry's digest that stands for the whole
// plan.
func wholeHash(digest string) string {
	sum := sha256.Sum256([]byte(digest))
	return hex.EncodeToString(sum[:])[:16]
}

// MatrixJobsError is a stage whose matrix would hold more jobs than GitHub
// Actions runs of one matrix.
type MatrixJobsError struct {
	Suite string
	Jobs  int
}

func (e *MatrixJobsError) Error() string {
	return fmt.Sprintf("the matrix of %s would hold %d jobs, but GitHub Actions runs at most %d jobs of one matrix: give the suite at most %d shards in the roster",
		e.Suite, e.Jobs, config.MaxMatrixJobs, config.MaxMatrixJobs)
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
		// A roster that the configuration checked has no more; one built
		// otherwise must not make a matrix GitHub refuses, or a step
		// output of its size.
		if s.Shards > config.MaxMatrixJobs {
			return nil, &MatrixJobsError{Suite: s.Name, Jobs: s.Shards}
		}
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

// sized is the plan of every shard of s under pol, split into the count a
// pull request books (see SizedShards): for a suite with a target_minutes,
// the fewest shards, at most its roster count, whose longest shard (on the
// measured seconds where t has them, else est_time) takes at most that
// long less the suite's setup_minutes; fewer runners then work longer.
func sized(cfg *config.Config, regs []registry.Registration, s config.Suite, pol policy.Policy, t *Timings) (*Plan, error) {
	return Select(cfg, regs, Inputs{Suite: s.Name, Policy: pol, Shards: SizedShards, ID: AllShards, Timings: t})
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

// emptyShardHash is the hash of a shard without a test.
var emptyShardHash = shardHash(shard.Shard{})

// EmptyShards returns the shards that the plan digest leaves without a
// test, ascending; nil for a digest of another form.
func EmptyShards(digest string) []int {
	parts := strings.Split(digest, ".")
	if len(parts) < 2 || parts[0] != digestVersion || parts[1] != strconv.Itoa(len(parts)-2) {
		return nil
	}
	var empty []int
	for i, h := range parts[2:] {
		if h == emptyShardHash {
			empty = append(empty, i)
		}
	}
	return empty
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
	// Elsewhere is set when the entry's digest (p2) names only this job's
	// shard and that shard holds what it held: another shard differs.
	Elsewhere bool
	// EntryOf is set when the entry's digest is that of another shard
	// than this job's: the shard id it names, plus one.
	EntryOf int
}

func (e *PlanMismatchError) Error() string {
	var why []string
	if e.Size > 0 {
		why = append(why, fmt.Sprintf("it planned %d shards", e.Size))
	}
	if e.EntryOf > 0 {
		why = append(why, fmt.Sprintf("the digest is shard %d's entry, not this job's", e.EntryOf-1))
	}
	for _, s := range e.Shards {
		files := make([]string, len(s.Tests))
		for j, t := range s.Tests {
			files[j] = t.File
		}
		if len(files) == 0 {
			why = append(why, fmt.Sprintf("shard %d now holds no test", s.ID))
		} else {
			why = append(why, fmt.Sprintf("shard %d now holds %s", s.ID, strings.Join(files, ", ")))
		}
	}
	if e.Elsewhere {
		why = append(why, "this job's shard holds what it held, another shard's tests differ")
	}
	msg := fmt.Sprintf("the plan of %s is not the one the policy job planned (--expect-plan %s, now %s)", e.Suite, e.Want, e.Got)
	if len(why) > 0 {
		msg += ": " + strings.Join(why, "; ")
	}
	return msg + "; the policy job and this job saw different test files, labels or timings: rerun the workflow"
}

// CheckDigest returns a *PlanMismatchError unless want, the plan the policy
// job gave this job's matrix entry (EntryPlan), is p's. An empty want
// checks nothing.
func (p *Plan) CheckDigest(want string) error {
	if want == "" || want == p.Digest {
		return nil
	}
	e := &PlanMismatchError{Suite: p.Suite.Name, Want: want, Got: p.Digest}
	parts := strings.Split(want, ".")
	if parts[0] == entryDigestVersion {
		return p.checkEntryDigest(parts, e)
	}
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

// checkEntryDigest checks a p2 digest, "p2.N.W.K.H" (see EntryPlan), split
// at its dots, filling e when it is not p's.
func (p *Plan) checkEntryDigest(parts []string, e *PlanMismatchError) error {
	if len(parts) != 5 {
		return e
	}
	if n, err := strconv.Atoi(parts[1]); err != nil || n != len(p.whole) {
		if err == nil {
			e.Size = n
		}
		return e
	}
	k, err := strconv.Atoi(parts[3])
	switch {
	case err != nil || k < 0 || k >= len(p.whole):
		return e
	case p.ID != AllShards && k != p.ID:
		e.EntryOf = k + 1
		return e
	}
	e.Got = p.EntryPlan(k)
	if parts[2] == wholeHash(p.Digest) && parts[4] == shardHash(p.whole[k]) {
		return nil
	}
	if parts[4] != shardHash(p.whole[k]) {
		e.Shards = []shard.Shard{p.whole[k]}
	} else {
		e.Elsewhere = true
	}
	return e
}
