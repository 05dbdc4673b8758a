package report

import "fmt"

// Rerun is what `run --rerun-failed` keeps of today's plan: the planned
// files that did not pass in a report.
type Rerun struct {
	// Keep tells, for each planned file in order, whether it runs again.
	Keep []bool
	// Count is the number of files kept.
	Count int
}

// SelectRerun keeps the planned files (in plan order) that r lists as not
// passed: failed, timed out, interrupted or not run. A file listed several
// times (registered twice) runs again when any of its listings did not
// pass. A file r does not list is not run: the report of a rerun lists only
// what it reran, and the next rerun must not repeat what passed before it.
//
// A report that lists files but none of the planned ones is a
// *ForeignShardError: it belongs to another shard (or the split moved),
// and trusting it would pass tests that never ran.
func SelectRerun(r *Report, planned []string) (Rerun, error) {
	passed := map[string]bool{}
	for _, f := range r.Files {
		ok, seen := passed[f.File]
		passed[f.File] = f.Status == Pass && (ok || !seen)
	}
	sel := Rerun{Keep: make([]bool, len(planned))}
	listed := 0
	for i, file := range planned {
		ok, found := passed[file]
		if !found {
			continue
		}
		listed++
		if !ok {
			sel.Keep[i] = true
			sel.Count++
		}
	}
	if listed == 0 && len(planned) > 0 && len(r.Files) > 0 {
		return Rerun{}, &ForeignShardError{Path: r.path, Planned: len(planned)}
	}
	if len(r.Files) == 0 && !r.Passed {
		// A run that lists no file and did not pass says nothing of what
		// passed (it stopped before its plan, or was cut): rerunning
		// nothing would turn a failure into a green job.
		return Rerun{}, &EmptyFailedError{Path: r.path}
	}
	return sel, nil
}

// EmptyFailedError is a report that lists no file yet did not pass.
type EmptyFailedError struct{ Path string }

func (e *EmptyFailedError) Error() string {
	return fmt.Sprintf("report %q lists no file but did not pass; rerun the whole shard without --rerun-failed", e.Path)
}

// ForeignShardError is a report that shares no file with this run's plan.
type ForeignShardError struct {
	Path    string
	Planned int
}

func (e *ForeignShardError) Error() string {
	return fmt.Sprintf("report %q lists none of the %d file(s) this run selects; is it the report of another shard?", e.Path, e.Planned)
}
