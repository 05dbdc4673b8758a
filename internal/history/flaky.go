package history

import (
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
)

// FlakyFilter is the filter the flaky answer reads with: every attempt,
// each file's attempts in one run together (Filter.Grouped).
func FlakyFilter(f Filter) Filter {
	f.Statuses = nil
	f.Grouped = true
	return f
}

// FlakyFile is how one test file fared in the runs of one suite that ran
// it. A run is one report's entry for the file: a job's run of the suite
// or of one shard of it.
type FlakyFile struct {
	File  string `json:"file"`
	Suite string `json:"suite"`
	// Runs counts the runs that ran the file (one attempt or more).
	Runs int `json:"runs"`
	// Failures counts the runs whose last attempt failed (FAIL or
	// TIMEOUT); PassedOnRetry those whose last attempt passed after one
	// that failed.
	Failures      int `json:"failures"`
	PassedOnRetry int `json:"passed_on_retry"`
	// PassedSameCommit counts the failures at a commit where another run
	// of the file in the suite passed: the code was the same, the test
	// went both ways.
	PassedSameCommit int `json:"passed_same_commit"`
	// Rate is (Failures + PassedOnRetry) / Runs: how often the file did
	// not simply pass.
	Rate float64 `json:"rate"`
	// OnlyOn names the host (hostcheck.Host.Key) when the file failed
	// in two runs or more (failures or retried passes), every failed
	// attempt ran there, and the file passed on another host: a host to
	// look at (history hosts) before the test. "" otherwise.
	OnlyOn string `json:"only_on"`

	failedOn hostSet // the hosts of its failed attempts, up to two
	passedOn hostSet // the hosts of its passing runs, up to two
}

// hostSet keeps the first two distinct host keys: enough to tell "one
// host" from "more than one", in constant memory.
type hostSet struct{ keys []string }

func (s *hostSet) add(k string) {
	if len(s.keys) < 2 && !slices.Contains(s.keys, k) {
		s.keys = append(s.keys, k)
	}
}

// FlakyAnswer gathers the rows of a grouped scan (FlakyFilter) into how
// each file fared. Its memory is that of the answer: counters per file
// and suite, two per (commit, file, suite), and the attempts of the one
// file of one run being read.
type FlakyAnswer struct {
	files map[flakyKey]*FlakyFile
	// commits counts, per commit, file and suite, the runs that failed
	// and those that passed.
	commits map[commitKey]*commitCount
	cur     flakyRun // the run being read, when cur.open
	rows    int      // the rows added
}

type flakyKey struct{ file, suite string }

type commitKey struct{ sha, file, suite string }

type commitCount struct{ failed, passed int }

// flakyRun is the file of one run whose attempts are coming in.
type flakyRun struct {
	open    bool
	run     Run // the report's identity (see sameReport)
	key     flakyKey
	sha     string
	host    string
	failed  bool // an attempt failed
	last    int  // the greatest attempt seen
	lastSay report.Status
}

var _ Answer = (*FlakyAnswer)(nil)

// Filter is FlakyFilter.
func (a *FlakyAnswer) Filter(f Filter) Filter { return FlakyFilter(f) }

// Rows counts the rows added: none is no attempt in the history.
func (a *FlakyAnswer) Rows() int { return a.rows }

// Add counts one row. The attempts of one file in one run come together
// (Filter.Grouped); a file seen again after another one starts another
// run of it.
func (a *FlakyAnswer) Add(r *Row) error {
	a.rows++
	if !a.cur.open || a.cur.key.file != r.File || !sameReport(&a.cur.run, &r.Run) {
		a.finish()
		a.cur = flakyRun{open: true, run: r.Run, key: flakyKey{r.File, r.Suite}, sha: r.SHA,
			host: hostcheck.Host{Runner: r.Runner, Hostname: r.Hostname}.Key()}
	}
	c := &a.cur
	if r.Status.Failed() {
		c.failed = true
	}
	if r.Attempt >= c.last {
		c.last, c.lastSay = r.Attempt, r.Status
	}
	return nil
}

// finish counts the run of a file whose attempts have all come.
func (a *FlakyAnswer) finish() {
	if !a.cur.open {
		return
	}
	c := a.cur
	a.cur.open = false
	if a.files == nil {
		a.files, a.commits = map[flakyKey]*FlakyFile{}, map[commitKey]*commitCount{}
	}
	f := a.files[c.key]
	if f == nil {
		f = &FlakyFile{File: c.key.file, Suite: c.key.suite}
		a.files[c.key] = f
	}
	f.Runs++
	if c.failed {
		f.failedOn.add(c.host)
	}
	var cc *commitCount
	if c.sha != "" {
		k := commitKey{c.sha, c.key.file, c.key.suite}
		if cc = a.commits[k]; cc == nil {
			cc = &commitCount{}
			a.commits[k] = cc
		}
	}
	switch {
	case c.lastSay.Failed():
		f.Failures++
		if cc != nil {
			cc.failed++
		}
	case c.lastSay == report.Pass:
		if c.failed {
			f.PassedOnRetry++
		}
		f.passedOn.add(c.host)
		if cc != nil {
			cc.passed++
		}
	}
}

// Flaky is the whole answer: the files that failed or passed only on a
// retry, and how many ran without either.
type Flaky struct {
	// Files are ordered by Rate (greatest first), then file, then suite.
	Files []*FlakyFile
	// Clean counts the files (of a suite) that ran and always passed at
	// the first attempt.
	Clean int
}

// Result counts the last run and gives the answer.
func (a *FlakyAnswer) Result() *Flaky {
	a.finish()
	for k, cc := range a.commits {
		if cc.passed > 0 && cc.failed > 0 {
			a.files[flakyKey{k.file, k.suite}].PassedSameCommit += cc.failed
		}
	}
	out := &Flaky{}
	for _, f := range a.files {
		if f.Failures == 0 && f.PassedOnRetry == 0 {
			out.Clean++
			continue
		}
		f.Rate = float64(f.Failures+f.PassedOnRetry) / float64(f.Runs)
		// One failure is on one host whatever caused it: it takes two
		// (as a suspect host takes two contradicted failures).
		if f.Failures+f.PassedOnRetry >= 2 && len(f.failedOn.keys) == 1 && f.failedOn.keys[0] != "" {
			h := f.failedOn.keys[0]
			for _, p := range f.passedOn.keys {
				if p != h {
					f.OnlyOn = h
				}
			}
		}
		out.Files = append(out.Files, f)
	}
	slices.SortFunc(out.Files, func(x, y *FlakyFile) int {
		// The rates compared exactly: (fx/rx > fy/ry) as fx*ry > fy*rx.
		if c := (y.Failures+y.PassedOnRetry)*x.Runs - (x.Failures+x.PassedOnRetry)*y.Runs; c != 0 {
			return c
		}
		if c := strings.Compare(x.File, y.File); c != 0 {
			return c
		}
		return strings.Compare(x.Suite, y.Suite)
	})
	return out
}

// sameReport reports whether two rows' runs are the same report: Run.report
// compared field by field, which costs no allocation per row.
func sameReport(x, y *Run) bool {
	return x.Repository == y.Repository && x.RunID == y.RunID && x.RunAttempt == y.RunAttempt && x.Job == y.Job &&
		x.Started.Equal(y.Started) && x.Suite == y.Suite && x.Backend == y.Backend &&
		x.ShardID == y.ShardID && x.ShardSize == y.ShardSize
}
