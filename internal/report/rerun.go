package report

// Rerun is what `run --rerun-failed` keeps of today's plan: the planned
// files that did not pass in a report.
type Rerun struct {
	// Keep tells, for each planned file in order, whether it runs again.
	Keep []bool
	// Count is the number of files kept; Unlisted counts those among them
	// that the report does not list at all.
	Count    int
	Unlisted int
}

// SelectRerun keeps the planned files (in plan order) that did not pass in
// r: it lists them as failed, timed out, interrupted or not run. A planned
// file that r does not list runs as well: r never saw it pass, which is
// the case when r is a report of another shard, or when the split moved
// since r was written, and skipping such a file would pass a test that
// never ran. A file listed several times (registered twice) runs again
// when any of its listings did not pass.
func SelectRerun(r *Report, planned []string) Rerun {
	passed := map[string]bool{}
	for _, f := range r.Files {
		ok, seen := passed[f.File]
		passed[f.File] = f.Status == Pass && (ok || !seen)
	}
	sel := Rerun{Keep: make([]bool, len(planned))}
	for i, file := range planned {
		ok, listed := passed[file]
		if ok {
			continue
		}
		sel.Keep[i] = true
		sel.Count++
		if !listed {
			sel.Unlisted++
		}
	}
	return sel
}
