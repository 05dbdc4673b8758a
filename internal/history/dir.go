package history

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/report"
)

// Dir is the embedded store: run reports (`run --json-report`) in
// directories and files, such as `gh run download` leaves them or a folder
// CI keeps, read with no server. Every *.json file below a directory is
// read, in lexical order, one at a time; a file that is no run report
// (a timings file, a broken or foreign one), a merged report, a report
// written before reports said when their run started, and a second copy
// of a report already read are skipped, and counted in Skipped. A path
// given that is a link is followed; a link found below one is skipped.
type Dir struct {
	Paths []string
	// Skipped counts what the last Scan left out, by reason, and Reports
	// the run reports it read.
	Skipped Skipped
	Reports int
}

// Skipped is what a directory scan left out: how many files for each
// reason, and the first one's path and problem, for the warning.
type Skipped struct {
	NotReport Skip // not a run report miles-ci can read
	Merged    Skip // report merge's output
	NoStart   Skip // written before reports had "started"
	Duplicate Skip // a copy of a report read before it
	Link      Skip // a link found in a directory, not followed
	// NoFiles says that no path given held a *.json file.
	NoFiles bool
}

// Skip counts one reason.
type Skip struct {
	Count int
	First string // the path of the first
	Why   string // the first one's problem
}

func (s *Skip) add(path, why string) {
	if s.Count == 0 {
		s.First, s.Why = path, why
	}
	s.Count++
}

// Warnings returns one line per reason that skipped a file, naming the
// first such file.
func (s *Skipped) Warnings() []string {
	var out []string
	for _, k := range []struct {
		skip *Skip
		what string
	}{
		{&s.NotReport, "file(s) that are not run reports"},
		{&s.Merged, "merged report(s) (report merge's; their shards' reports hold the same attempts)"},
		{&s.NoStart, `report(s) without "started" (written before reports said when their run began)`},
		{&s.Duplicate, "copies of reports read before them"},
		{&s.Link, "link(s) found in a directory (only a link named on the command line is followed)"},
	} {
		if k.skip.Count == 0 {
			continue
		}
		line := strings.Join([]string{"skipped", strconv.Itoa(k.skip.Count), k.what + ";", "the first:", strconv.Quote(k.skip.First)}, " ")
		if k.skip.Why != "" {
			line += ": " + k.skip.Why
		}
		out = append(out, line)
	}
	return out
}

// Scan implements Reader. With LastRuns it reads the reports once for
// the runs and their starts, then again only the reports of the latest
// runs.
func (d *Dir) Scan(ctx context.Context, f Filter, fn func(*Row) error) error {
	emit := func(run *Run, r *report.Report) error {
		listed := make(map[string]bool, len(r.Files))
		for i := range r.Files {
			if listed[r.Files[i].File] {
				// The database keeps one listing of a file a suite
				// registers twice (its key has no listing): so does
				// the directory, so that both answer alike.
				continue
			}
			listed[r.Files[i].File] = true
			for _, row := range run.Rows(&r.Files[i]) {
				if f.keepsStatus(row.Status) {
					if err := fn(&row); err != nil {
						return err
					}
				}
			}
		}
		if stop, ok := run.StopRow(r); ok && f.Stops && f.keepsStatus(stop.Status) {
			return fn(&stop)
		}
		return nil
	}
	if f.LastRuns <= 0 {
		return d.each(ctx, d.Paths, func(path string, run *Run, r *report.Report) error {
			if !f.keepsRun(run) {
				return nil
			}
			return emit(run, r)
		})
	}
	// A run counts when a report of it that the filter keeps has an
	// attempt: the database, which holds rows, counts the same runs (by
	// their rows other than stop rows). A report of a job a preflight
	// stopped before its first test makes no run count, but its stop row
	// is read with the others of a run that does.
	first := map[string]time.Time{}
	var kept []string // the reports to read again, in order
	var keys []string // and their runs
	err := d.each(ctx, d.Paths, func(path string, run *Run, r *report.Report) error {
		if !f.keepsRun(run) {
			return nil
		}
		k := run.Key()
		if hasAttempts(r) {
			if t, ok := first[k]; !ok || run.Started.Before(t) {
				first[k] = run.Started
			}
		} else if !f.Stops || !r.HostNotReady {
			return nil
		}
		kept, keys = append(kept, path), append(keys, k)
		return nil
	})
	if err != nil {
		return err
	}
	latest := latest(first, f.LastRuns)
	var again []string
	for i, path := range kept {
		if latest[keys[i]] {
			again = append(again, path)
		}
	}
	skipped, reports := d.Skipped, d.Reports
	defer func() { d.Skipped, d.Reports = skipped, reports }()
	return d.each(ctx, again, func(_ string, run *Run, r *report.Report) error { return emit(run, r) })
}

// hasAttempts reports whether a report lists an attempt.
func hasAttempts(r *report.Report) bool {
	for i := range r.Files {
		if len(r.Files[i].AttemptsDetail) > 0 {
			return true
		}
	}
	return false
}

// Close implements Reader; a directory holds nothing open between scans.
func (d *Dir) Close() error { return nil }

// each reads every run report below paths, once each, in order, and
// calls fn with its path and run; the counts of what it skipped start
// afresh.
func (d *Dir) each(ctx context.Context, paths []string, fn func(string, *Run, *report.Report) error) error {
	d.Skipped, d.Reports = Skipped{}, 0
	seen := map[string]bool{}
	found := false
	for _, root := range paths {
		at, err := ReportFiles(root)
		for _, l := range at.Links {
			d.Skipped.Link.add(l, "")
		}
		if err != nil {
			return err
		}
		for _, path := range at.Files {
			if err := ctx.Err(); err != nil {
				return err
			}
			found = true
			r, err := report.ReadWithoutOutput(path)
			if err != nil {
				d.Skipped.NotReport.add(path, ReportProblem(err))
				continue
			}
			run, err := RunOf(r)
			switch {
			case errors.Is(err, errMerged):
				d.Skipped.Merged.add(path, "")
				continue
			case errors.Is(err, errNoStart):
				d.Skipped.NoStart.add(path, "")
				continue
			case err != nil:
				d.Skipped.NotReport.add(path, err.Error())
				continue
			}
			if id := run.report(); seen[id] {
				d.Skipped.Duplicate.add(path, "")
				continue
			} else {
				seen[id] = true
			}
			d.Reports++
			if err := fn(path, &run, r); err != nil {
				return err
			}
		}
	}
	d.Skipped.NoFiles = !found
	return nil
}

// sortRuns orders run keys as Filter.LastRuns counts them: the latest
// first start first, ties by the greater key (byte order).
func sortRuns(keys []string, first map[string]time.Time) {
	slices.SortFunc(keys, func(a, b string) int {
		if c := first[b].Compare(first[a]); c != 0 {
			return c
		}
		return strings.Compare(b, a)
	})
}
