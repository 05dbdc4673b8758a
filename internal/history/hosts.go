package history

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
)

// HostsFilter is the filter the hosts answer reads with: every attempt
// and every job's stop row (a GPU preflight found the host not ready),
// the rows of one job together, as hostcheck.Analyzer takes them.
func HostsFilter(f Filter) Filter {
	f.Statuses = nil
	f.Grouped = true
	f.Stops = true
	return f
}

// HostsAnswer is the hosts question asked of the history: the rows of a
// HostsFilter scan, each as package hostcheck counts it (HostRow), into
// an analyzer.
type HostsAnswer struct {
	*hostcheck.Analyzer
	// Rows counts the rows counted (attempts and stop rows); Hostless the
	// attempts of runs that name no host, which are left out (and so are
	// their stop rows).
	Rows, Hostless int
}

// NewHostsAnswer returns an answer whose verdict calls a host suspect at
// minContradicted contradicted failures.
func NewHostsAnswer(minContradicted int) *HostsAnswer {
	return &HostsAnswer{Analyzer: hostcheck.New(minContradicted)}
}

var _ Answer = (*HostsAnswer)(nil)

// Filter is HostsFilter.
func (a *HostsAnswer) Filter(f Filter) Filter { return HostsFilter(f) }

// Add counts one row.
func (a *HostsAnswer) Add(r *Row) error {
	row, ok := HostRow(r)
	if !ok {
		if !r.Stopped {
			a.Hostless++
		}
		return nil
	}
	a.Rows++
	a.Analyzer.Add(row)
	return nil
}

// hostJob is the job a run is counted as, read from a report (ReportHosts)
// or from the history's rows (HostRow) alike: the workflow run, its job,
// the suite and its shard, and when it started. Source is the caller's.
func hostJob(h *report.Host, suite, started string, p *report.Partition) hostcheck.Job {
	job := hostcheck.Job{Repository: h.Repository, RunID: h.RunID, RunAttempt: h.RunAttempt, Name: h.Job, Suite: suite, Started: started}
	if p != nil {
		job.Partition = strconv.Itoa(p.ID) + "/" + strconv.Itoa(p.Size)
	}
	return job
}

// HostRow is r as package hostcheck counts it, and false for a row of a
// run that named no host (neither a runner nor a hostname), which no host
// can be blamed for.
//
// A stop row (Row.Stopped) is the job's row with no file and
// HostNotReady set, as a report that a preflight stopped gives it. The
// history keeps attempts and stops, so it differs from the reports that
// `report hosts` reads (ReportHosts) in one way, documented in `help
// history`: a file a run listed but never ran has no row (a job counts the
// files it ran).
func HostRow(r *Row) (hostcheck.Row, bool) {
	host := hostcheck.Host{Runner: r.Runner, Hostname: r.Hostname}
	if host.Key() == "" {
		return hostcheck.Row{}, false
	}
	var p *report.Partition
	if r.ShardSize > 0 {
		p = &report.Partition{ID: r.ShardID, Size: r.ShardSize}
	}
	started := r.Started.Format(report.StartedLayout)
	job := hostJob(&report.Host{Repository: r.Repository, RunID: r.RunID, RunAttempt: r.RunAttempt, Job: r.Job}, r.Suite, started, p)
	if job.RunID == "" {
		// A run outside GitHub Actions: its start and host tell it from
		// another, in either store alike.
		job.Source = started + " " + host.Key()
	}
	if r.Stopped {
		return hostcheck.Row{Host: host, Job: job, SHA: r.SHA, HostNotReady: true}, true
	}
	return hostcheck.Row{Host: host, Job: job, SHA: r.SHA, File: r.File, Attempt: r.Attempt, Status: r.Status,
		Cause: r.Cause, Fingerprint: r.Fingerprint}, true
}

// Unattributable is a report whose tests cannot be placed on a host: it
// names none (written before reports did), or several (a merge of shard
// reports, which does not say which shard's host ran which file).
type Unattributable struct{ Reason string }

func (e *Unattributable) Error() string { return e.Reason }

// HostRowsOf calls add with the rows of a report as package hostcheck
// counts them: one per attempt of each file, one with Attempt 0 for a
// file that never ran, and one with no file for a report that lists none.
// path stands in for the run id of a report written outside GitHub
// Actions. The error is an *Unattributable for a report that names no
// one host, and nothing is added.
//
// Unlike the history's rows (HostRow), a report holds its files never
// run, and it needs no "started".
func HostRowsOf(r *report.Report, path string, add func(hostcheck.Row)) error {
	job, err := reportJob(r, path)
	if err != nil {
		return err
	}
	base := hostcheck.Row{Host: hostcheck.Host{Runner: r.Host.Runner, Hostname: r.Host.Hostname}, Job: job, SHA: r.Host.SHA,
		HostNotReady: r.HostNotReady}
	if len(r.Files) == 0 {
		add(base)
		return nil
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
	return nil
}

// reportJob is the job a report is the run of (see HostRowsOf).
func reportJob(r *report.Report, path string) (hostcheck.Job, error) {
	switch {
	case len(r.Hosts) > 0 || r.Shards != nil:
		return hostcheck.Job{}, &Unattributable{"a merged report: it does not say which host ran which file (give the shards' own reports)"}
	case r.Host == nil:
		return hostcheck.Job{}, &Unattributable{`no "host" (an older miles-ci wrote it)`}
	case r.Host.Runner == "" && r.Host.Hostname == "":
		return hostcheck.Job{}, &Unattributable{"its host has neither a runner name nor a hostname"}
	}
	job := hostJob(r.Host, r.Suite, r.Started, r.Partition)
	if job.RunID == "" {
		// The same file given as runs/a.json and ./runs/a.json is one.
		job.Source = path
		if abs, err := filepath.Abs(path); err == nil {
			job.Source = abs
		}
	}
	return job, nil
}

// ReportHosts is `report hosts`' reader: the hosts answer's rows read
// from run reports themselves (HostRowsOf), files and directories walked
// as the history's directory reader walks them (ReportFiles). A report
// that cannot be placed on a host, a JSON file in a directory that is no
// run report, a second report of a job read before and a link found in
// a directory are skipped and counted in Skipped; a file named that is no
// run report is an error.
type ReportHosts struct {
	Paths []string
	// Skipped is what the last Scan left out; Reports counts the reports
	// it read.
	Skipped HostSkips
	Reports int
}

// Scan calls add with the rows of every report, one report's rows
// together, the reports in order: each path in turn, a directory's files
// by their whole path (byte order).
func (h *ReportHosts) Scan(add func(hostcheck.Row)) error {
	h.Skipped, h.Reports = HostSkips{}, 0
	seen := map[hostcheck.Job]bool{}
	read := func(path string, named bool) error {
		r, err := report.ReadWithoutOutput(path)
		if err != nil {
			if named {
				return err
			}
			// A download holds other JSON files (timings, anything a
			// workflow uploads): they are not runs, and say so once.
			h.Skipped.add("not a run report ("+ReportProblem(err)+")", path)
			return nil
		}
		job, err := reportJob(r, path)
		var un *Unattributable
		if errors.As(err, &un) {
			h.Skipped.add("cannot be placed on a host: "+un.Reason, path)
			return nil
		}
		if seen[job] {
			h.Skipped.add("repeats a job read before (same run, attempt, job, suite and shard); counted once", path)
			return nil
		}
		seen[job] = true
		h.Reports++
		return HostRowsOf(r, path, add)
	}
	for _, root := range h.Paths {
		at, err := ReportFiles(root)
		if !at.Dir {
			// A path that cannot be stat'ed is read as a file, so that the
			// error says what reading it found.
			if err := read(root, true); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return fmt.Errorf("read directory %q: %w", pe.Path, pe.Err)
			}
			return fmt.Errorf("read directory %q: %w", root, err)
		}
		for _, l := range at.Links {
			h.Skipped.add("a link found in a directory (only a link named on the command line is followed)", l)
		}
		// By whole path, as report hosts always read them: the walk's
		// order differs where a name holds a byte below '/' (run-2/ and
		// run/), and the order picks which copy of a job counts.
		files := at.Files
		sort.Strings(files)
		for _, p := range files {
			if err := read(p, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// HostSkips is what ReportHosts left out: a Skip (its count and first
// file) for each reason, in the order the reasons first came. Its reasons
// carry the problem itself (each kind of broken file is a line of its
// own), where the directory reader's Skipped has a fixed few.
type HostSkips struct {
	reasons []string
	by      map[string]*Skip
}

func (s *HostSkips) add(reason, path string) {
	k := s.by[reason]
	if k == nil {
		if s.by == nil {
			s.by = map[string]*Skip{}
		}
		k = &Skip{}
		s.by[reason] = k
		s.reasons = append(s.reasons, reason)
	}
	k.add(path, "")
}

// Warnings returns one line per reason, naming the first file skipped
// for it and how many more.
func (s *HostSkips) Warnings() []string {
	var out []string
	for _, r := range s.reasons {
		k := s.by[r]
		which := strconv.Quote(k.First)
		if k.Count > 1 {
			which += fmt.Sprintf(" and %d more", k.Count-1)
		}
		out = append(out, fmt.Sprintf("skipped %s: %s", which, r))
	}
	return out
}
