package report

import "fmt"

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
