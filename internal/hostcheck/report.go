package hostcheck

import (
	"path/filepath"
	"strconv"

	"github.com/radixark/miles-ci/internal/report"
)

// Unattributable is a report whose tests cannot be placed on a host: it
// names none (written before reports did), or several (a merge of shard
// reports, which does not say which shard's host ran which file).
type Unattributable struct{ Reason string }

func (e *Unattributable) Error() string { return e.Reason }

// JobOf returns the job a report is the run of; path stands in for the
// run id of a report written outside GitHub Actions. The error is an
// *Unattributable for a report that names no one host.
func JobOf(r *report.Report, path string) (Job, Host, error) {
	switch {
	case len(r.Hosts) > 0 || r.Shards != nil:
		return Job{}, Host{}, &Unattributable{"a merged report: it does not say which host ran which file (give the shards' own reports)"}
	case r.Host == nil:
		return Job{}, Host{}, &Unattributable{`no "host" (an older miles-ci wrote it)`}
	case r.Host.Runner == "" && r.Host.Hostname == "":
		return Job{}, Host{}, &Unattributable{"its host has neither a runner name nor a hostname"}
	}
	h := r.Host
	job := Job{Repository: h.Repository, RunID: h.RunID, RunAttempt: h.RunAttempt, Name: h.Job, Suite: r.Suite, Started: r.Started}
	if p := r.Partition; p != nil {
		job.Partition = strconv.Itoa(p.ID) + "/" + strconv.Itoa(p.Size)
	}
	if job.RunID == "" {
		// The same file given as runs/a.json and ./runs/a.json is one.
		job.Source = path
		if abs, err := filepath.Abs(path); err == nil {
			job.Source = abs
		}
	}
	return job, Host{Runner: h.Runner, Hostname: h.Hostname}, nil
}

// Rows calls add with the rows of a report, job being JobOf's: one per
// attempt of each file, one with Attempt 0 for a file that never ran, and
// one with no file for a report that lists none.
func Rows(r *report.Report, job Job, host Host, add func(Row)) {
	base := Row{Host: host, Job: job, SHA: r.Host.SHA, HostNotReady: r.HostNotReady}
	if len(r.Files) == 0 {
		add(base)
		return
	}
	for i := range r.Files {
		f := &r.Files[i]
		row := base
		row.File = f.File
		if len(f.AttemptsDetail) == 0 {
			// Never ran; or a hand-written report that gives the last
			// attempt only.
			row.Attempt, row.Status, row.Cause = f.Attempts, f.Status, f.Cause
			if f.Attempts == 0 {
				row.Status = report.NotRun
			}
			add(row)
			continue
		}
		for j, a := range f.AttemptsDetail {
			row.Attempt, row.Status, row.Cause, row.Fingerprint = a.Attempt, a.Status, a.Cause, a.Fingerprint
			if row.Attempt < 1 {
				row.Attempt = j + 1 // a report that did not number them
			}
			add(row)
		}
	}
}
