package history

import (
	"slices"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
)

// ReleaseAnswer tells, for each entry of a configuration's quarantine,
// whether the latest runs of its file (in the entry's suites, or in any
// suite when it names none) were all clean: every attempt passed, so the
// file passed at the first attempt. Such an entry protects nothing the
// file needs, and can be deleted (history flaky --release). A run
// interrupted before the file failed or passed says nothing of the test
// and is not counted. A pass on a retry is a flaky run, not a clean one.
// An entry past its until at At protects nothing: it is expired, to
// delete or renew whatever its runs say, and never released. Its memory
// is CleanRuns runs per entry.
type ReleaseAnswer struct {
	// Entries are the quarantine's entries; CleanRuns how many of the
	// latest runs must be clean.
	Entries   []config.QuarantineEntry
	CleanRuns int
	// At is the time the entries' until is judged at (the zero time
	// finds none expired).
	At time.Time

	files  map[string]bool
	latest [][]releaseRun // per entry: its latest runs, latest first, at most CleanRuns
	seen   []int          // per entry: the runs counted
	cur    releaseCur
}

// releaseRun is one run of an entry's file: when it started, the report's
// identity (the tie-break between runs that started together) and whether
// it was clean.
type releaseRun struct {
	started time.Time
	id      string
	clean   bool
}

// releaseCur is the file of one run whose attempts are coming in.
type releaseCur struct {
	open   bool
	run    Run
	file   string
	failed bool
	last   int
	pass   bool // the last attempt passed
}

var _ Answer = (*ReleaseAnswer)(nil)

// Filter reads every attempt, each file's attempts of one run together.
func (a *ReleaseAnswer) Filter(f Filter) Filter { return FlakyFilter(f) }

// Add takes one row; rows of files no entry names are let go at once.
func (a *ReleaseAnswer) Add(r *Row) error {
	if a.files == nil {
		a.files = map[string]bool{}
		for _, e := range a.Entries {
			a.files[e.File] = true
		}
		a.latest, a.seen = make([][]releaseRun, len(a.Entries)), make([]int, len(a.Entries))
	}
	if !a.files[r.File] {
		return nil
	}
	if !a.cur.open || a.cur.file != r.File || !sameReport(&a.cur.run, &r.Run) {
		a.finish()
		a.cur = releaseCur{open: true, run: r.Run, file: r.File}
	}
	if r.Status.Failed() {
		a.cur.failed = true
	}
	if r.Attempt >= a.cur.last {
		a.cur.last, a.cur.pass = r.Attempt, r.Status == report.Pass
	}
	return nil
}

// finish counts the run whose attempts have all come, for every entry
// that covers it.
func (a *ReleaseAnswer) finish() {
	c := a.cur
	a.cur.open = false
	if !c.open || !c.failed && !c.pass {
		return
	}
	run := releaseRun{started: c.run.Started, id: c.run.report(), clean: !c.failed && c.pass}
	for i, e := range a.Entries {
		if !e.AppliesTo(c.file, c.run.Suite) {
			continue
		}
		a.seen[i]++
		l := a.latest[i]
		at, _ := slices.BinarySearchFunc(l, run, laterFirst)
		if at >= a.CleanRuns {
			continue
		}
		l = slices.Insert(l, at, run)
		if len(l) > a.CleanRuns {
			l = l[:a.CleanRuns]
		}
		a.latest[i] = l
	}
}

// laterFirst orders runs latest first, ties broken by the greater
// identity, so that the latest runs are the same whatever order a store
// gives them in.
func laterFirst(x, y releaseRun) int {
	if c := y.started.Compare(x.started); c != 0 {
		return c
	}
	return strings.Compare(y.id, x.id)
}

// Release is what the history says of one quarantine entry.
type Release struct {
	Entry config.QuarantineEntry
	// Runs counts the runs of its file the history holds (under the
	// filter), Latest those of them considered: at most CleanRuns.
	Runs, Latest int
	// Dirty counts the latest runs that failed or passed only on a retry.
	Dirty int
	// Since is when the earliest of the latest runs started (zero when
	// there is none).
	Since time.Time
	// Expired is true when the entry's until is over: it protects
	// nothing, whatever its runs say.
	Expired bool
	// Delete is true when the entry is not expired and the latest
	// CleanRuns runs were all clean.
	Delete bool
}

// Result gives each entry's release, in the configuration's order.
func (a *ReleaseAnswer) Result() []Release {
	a.finish()
	out := make([]Release, len(a.Entries))
	for i, e := range a.Entries {
		r := Release{Entry: e}
		if a.latest != nil {
			l := a.latest[i]
			r.Runs, r.Latest = a.seen[i], len(l)
			for _, run := range l {
				if !run.clean {
					r.Dirty++
				}
			}
			if len(l) > 0 {
				r.Since = l[len(l)-1].started
			}
		}
		r.Expired = e.Expired(a.At)
		r.Delete = !r.Expired && r.Latest >= a.CleanRuns && r.Dirty == 0
		out[i] = r
	}
	return out
}
