package history

import (
	"strconv"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
)

// HostsFilter is the filter the hosts answer reads with: every attempt,
// the rows of one job together, as hostcheck.Analyzer takes them.
func HostsFilter(f Filter) Filter {
	f.Statuses = nil
	f.Grouped = true
	return f
}

// HostRow is r as package hostcheck counts it, and false for a row of a
// run that named no host (neither a runner nor a hostname), which no host
// can be blamed for.
//
// The history keeps attempts only, so it differs from the reports that
// `report hosts` reads in two ways, both documented in `help history`: a
// file a run listed but never ran has no row (a job counts the files it
// ran), and whether a GPU preflight stopped the run is not kept (a run
// stopped after an infra failure still shows that failure, which is
// evidence enough; one stopped before its first file has no row at all).
func HostRow(r *Row) (hostcheck.Row, bool) {
	host := hostcheck.Host{Runner: r.Runner, Hostname: r.Hostname}
	if host.Key() == "" {
		return hostcheck.Row{}, false
	}
	job := hostcheck.Job{Repository: r.Repository, RunID: r.RunID, RunAttempt: r.RunAttempt, Name: r.Job, Suite: r.Suite,
		Started: r.Started.Format(report.StartedLayout)}
	if r.ShardSize > 0 {
		job.Partition = strconv.Itoa(r.ShardID) + "/" + strconv.Itoa(r.ShardSize)
	}
	if job.RunID == "" {
		// A run outside GitHub Actions: its start and host tell it from
		// another, in either store alike.
		job.Source = r.Started.Format(report.StartedLayout) + " " + host.Key()
	}
	return hostcheck.Row{Host: host, Job: job, SHA: r.SHA, File: r.File, Attempt: r.Attempt, Status: r.Status,
		Cause: r.Cause, Fingerprint: r.Fingerprint}, true
}
