package report

import (
	"fmt"
	"strconv"
	"strings"
)

// Rerun is what `run --rerun-failed` takes from a report: the files it does
// not show passed.
type Rerun struct {
	// Files are the files r lists as failed, timed out, interrupted or
	// not run, each once, in the report's order.
	Files []string
	// Listed counts the files r lists, each once.
	Listed int
}

// SelectRerun returns the files r does not show passed: failed, timed out,
// interrupted or not run. A file listed several times (registered twice)
// runs again when any of its listings did not pass. A file r does not list
// is not among them: the report of a rerun lists only what it reran, and
// the next rerun must not repeat what passed before it.
//
// A report that did not pass must leave something to rerun, or the rerun
// would turn a failure into a green job: one that lists no file is an
// *EmptyFailedError, one whose every file passed a *NothingFailedError.
func SelectRerun(r *Report) (Rerun, error) {
	passed := map[string]bool{}
	var order []string
	for _, f := range r.Files {
		ok, seen := passed[f.File]
		if !seen {
			order = append(order, f.File)
		}
		passed[f.File] = f.Status == Pass && (ok || !seen)
	}
	sel := Rerun{Listed: len(order)}
	for _, file := range order {
		if !passed[file] {
			sel.Files = append(sel.Files, file)
		}
	}
	switch {
	case r.Passed || len(sel.Files) > 0:
		return sel, nil
	case len(r.Files) == 0:
		// It stopped before its plan, or was cut: it says nothing of what
		// passed.
		return Rerun{}, &EmptyFailedError{Path: r.path}
	default:
		return Rerun{}, &NothingFailedError{Path: r.path, Listed: sel.Listed}
	}
}

// EmptyFailedError is a report that lists no file yet did not pass.
type EmptyFailedError struct{ Path string }

func (e *EmptyFailedError) Error() string {
	return fmt.Sprintf("report %q lists no file but did not pass; rerun the whole shard without --rerun-failed", e.Path)
}

// NothingFailedError is a report that did not pass although every file it
// lists passed (written by hand, or cut between two files).
type NothingFailedError struct {
	Path   string
	Listed int
}

func (e *NothingFailedError) Error() string {
	return fmt.Sprintf("report %q did not pass but shows all %d file(s) it lists passed; rerun the whole shard without --rerun-failed", e.Path, e.Listed)
}

// RerunMismatchError is a report given to `run --rerun-failed` that is not
// an earlier report of the job: of another suite or backend, of another
// shard, of another shard count, a merge of several shards, or one that
// does not say. Trusting it would rerun the wrong tests, or none (another
// shard's report that passed turns this shard's failure into a green
// job).
type RerunMismatchError struct {
	Path string
	// What says how the report differs from the job, Want what to give.
	What, Want string
}

func (e *RerunMismatchError) Error() string {
	return fmt.Sprintf("report %q %s: give %s, or rerun the whole shard without --rerun-failed", e.Path, e.What, e.Want)
}

// CheckRerunOf returns a *RerunMismatchError unless r is a report that
// run --rerun-failed may take for a run of shard part (nil: the whole
// suite) of suite on backend: a report of that suite and backend and of
// that same shard of the same count, or, for a run of the whole suite, one
// of the whole suite or a merge of every shard of it. The plan digest may
// differ (see suite.Plan's rerun).
func (r *Report) CheckRerunOf(suite, backend string, part *Partition) error {
	e := &RerunMismatchError{Path: r.path, Want: "the report this job wrote in its previous attempt"}
	if part != nil {
		e.Want = fmt.Sprintf("the report of shard %d of %d of %s", part.ID, part.Size, suite)
	}
	switch {
	case r.Suite != suite || r.Backend != backend:
		e.What = fmt.Sprintf("is of suite %q (%s), but this run is of %q (%s)", r.Suite, r.Backend, suite, backend)
	case r.unscoped:
		e.What = `does not say which shard it covers (no "partition": an older miles-ci wrote it, or it merges such a report)`
	case r.Shards != nil && part != nil:
		e.What = fmt.Sprintf("merges the reports of several shards, but this run is shard %d of %d", part.ID, part.Size)
	case r.Shards != nil && len(r.Shards.Missing) > 0:
		e.What = fmt.Sprintf("lacks shard(s) %s of %d, whose failures it cannot show", joinInts(r.Shards.Missing), r.Shards.Size)
	case r.Partition == nil && part != nil:
		e.What = fmt.Sprintf("is of the whole suite, but this run is shard %d of %d", part.ID, part.Size)
	case r.Partition != nil && part == nil:
		e.What = fmt.Sprintf("is of shard %d of %d, but this run is of the whole suite", r.Partition.ID, r.Partition.Size)
	case r.Partition != nil && *r.Partition != *part:
		e.What = fmt.Sprintf("is of shard %d of %d, but this run is shard %d of %d", r.Partition.ID, r.Partition.Size, part.ID, part.Size)
	default:
		return nil
	}
	return e
}

// joinInts writes ids as "1, 3".
func joinInts(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ", ")
}
