package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Merge combines reports of one suite (its shards, and their reruns) into
// the suite's report:
//
//   - files come in the order of the reports given, each report's in its
//     own (plan) order; a file listed by several reports keeps the place
//     of its first listing;
//   - a file listed by several reports takes its entry from the last one
//     given, so a shard's report followed by its --rerun-failed report
//     gives the final word; a NOT RUN entry never replaces one of a file
//     that ran, since it has nothing new to say about the test;
//   - the attempts of those entries add up, in the order given: a file
//     that failed in one job and passed in its rerun is flaky, and its
//     "attempts", "elapsed" and attempts_detail count both jobs;
//   - the merged report passed when every file passed; it was interrupted
//     when a file's final entry did not pass and comes from an interrupted
//     run; its elapsed time is the sum of the runs';
//   - its cadence is the reports' when they all name the same one, else
//     ""; its start is the earliest of theirs;
//   - an attempt's offset (Attempt.Offset) is moved onto that start, so
//     that every attempt of the merge is on one clock, and an attempt of a
//     shard's report that has one gets the shard (Attempt.Shard); an
//     attempt of a report with no start loses its offset, which says
//     nothing without one.
//
// A file registered twice in a suite is listed twice in its reports: its
// k-th listing in one report matches its k-th listing in another. Reports
// of different suites or backends are a *SuiteError, reports of different
// shard counts a *SplitError.
//
// The merged report says which shards of the split it covers (Shards): a
// shard that no report covers is missing, unless the plan of every report
// leaves it without a test (see Merger.EmptyShards); a merge that lacks
// one has not passed. A report that does not say what it covers (an
// unscoped one) makes the merge unscoped too: nothing is then known to be
// missing.
func Merge(reports ...*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("no report to merge")
	}
	var m Merger
	for _, r := range reports {
		if err := m.Add(r); err != nil {
			return nil, err
		}
	}
	return m.Report(), nil
}

// Merger merges reports as Merge does, one at a time, so that a caller
// reading them need hold only the one it adds and the merge so far.
type Merger struct {
	// EmptyShards, when set, returns the shards that a plan digest leaves
	// without a test (nil when it cannot tell): no report is expected of
	// them, since a run with nothing to run writes none.
	EmptyShards func(plan string) []int

	out   *Report
	first string // the path of the first report
	index map[mergeKey]int
	// fromInterrupted tells, for each file, whether its entry comes from
	// an interrupted run.
	fromInterrupted []bool
	// fromNotReady tells the same of a report whose host was not ready.
	fromNotReady []bool
	elapsed      float64
	cover        coverage
	// cadences are the distinct cadences of the reports added.
	cadences []string
	// clock is the start the offsets of out's attempts count from.
	clock clock
}

// clock is the start a merge's offsets count from so far: the start of
// the first report added with an offset, until Report moves them all onto
// the merge's own.
type clock struct {
	set   bool
	start time.Time
}

// coverage is what the reports added say of the part of the suite they
// cover.
type coverage struct {
	size     int    // the split's shard count, 0 until a report names one
	sizeFrom string // the report that named it
	covered  map[int]bool
	// unscoped is set by a report that does not say (unscopedPath is the
	// first one's path).
	unscoped     bool
	unscopedPath string
	plans        []string // the distinct plans, in order
}

type mergeKey struct {
	file string
	nth  int
}

// Add merges r into the reports added before it. It keeps r's file entries
// but nothing else of r.
func (m *Merger) Add(r *Report) error {
	if m.out == nil {
		m.out = &Report{Suite: r.Suite, Backend: r.Backend, Files: []File{}}
		m.first = r.path
		m.index = map[mergeKey]int{}
	}
	if err := r.CheckSuite(m.out.Suite, m.out.Backend); err != nil {
		var se *SuiteError
		if errors.As(err, &se) {
			se.Against = m.first
		}
		return err
	}
	if err := m.cover.add(r); err != nil {
		return err
	}
	m.elapsed += r.Elapsed
	if !slices.Contains(m.cadences, r.Cadence) {
		m.cadences = append(m.cadences, r.Cadence)
	}
	// The layout sorts as text: the earliest start is the least string.
	if r.Started != "" && (m.out.Started == "" || r.Started < m.out.Started) {
		m.out.Started = r.Started
	}
	if r.Host != nil {
		m.out.Hosts = append(m.out.Hosts, *r.Host)
	}
	m.out.Hosts = append(m.out.Hosts, r.Hosts...)
	files := m.clock.place(r)
	seen := map[string]int{}
	for _, f := range files {
		k := mergeKey{f.File, seen[f.File]}
		seen[f.File]++
		i, ok := m.index[k]
		if !ok {
			m.index[k] = len(m.out.Files)
			m.out.Files = append(m.out.Files, f)
			m.fromInterrupted = append(m.fromInterrupted, r.Interrupted)
			m.fromNotReady = append(m.fromNotReady, r.HostNotReady)
			continue
		}
		prev := &m.out.Files[i]
		if f.Status == NotRun && prev.Status != NotRun {
			continue
		}
		m.out.Files[i] = combine(prev, f)
		m.fromInterrupted[i] = r.Interrupted
		m.fromNotReady[i] = r.HostNotReady
	}
	return nil
}

// Report returns the merged report of the reports added, nil before the
// first.
func (m *Merger) Report() *Report {
	out := m.out
	if out == nil {
		return nil
	}
	m.clock.moveTo(out)
	out.Elapsed = Seconds(m.elapsed)
	out.Partition, out.Plan, out.Shards = nil, "", nil
	out.unscoped = m.cover.unscoped
	if len(m.cover.plans) == 1 {
		out.Plan = m.cover.plans[0]
	}
	out.Cadence = ""
	if len(m.cadences) == 1 {
		out.Cadence = m.cadences[0]
	}
	if !out.unscoped {
		out.Shards = &Shards{Size: m.cover.size, Missing: m.Missing()}
	}
	out.Interrupted, out.HostNotReady = false, false
	for i := range out.Files {
		if m.fromInterrupted[i] && out.Files[i].Status != Pass {
			out.Interrupted = true
		}
		// A host that was not ready left this file unrun, and no other
		// report ran it since: the merge still lacks its verdict for that
		// reason.
		if m.fromNotReady[i] && out.Files[i].Status == NotRun {
			out.HostNotReady = true
		}
	}
	out.Finish()
	return out
}

// Missing returns the shards of the split that no report added covers and
// that some report's plan gives a test (all of them when EmptyShards is
// nil), ascending: nil for a merge of no split (runs of the whole suite)
// or an unscoped one. A run of the whole suite among shards' reports
// covers no shard: it may be a run of one file (run --file).
func (m *Merger) Missing() []int {
	c := &m.cover
	if c.unscoped || c.size == 0 {
		return nil
	}
	empty := make([]int, c.size) // how many plans leave each shard empty
	if m.EmptyShards != nil {
		for _, p := range c.plans {
			for _, id := range m.EmptyShards(p) {
				if id >= 0 && id < c.size {
					empty[id]++
				}
			}
		}
	}
	var missing []int
	for id := range c.size {
		if !c.covered[id] && (len(c.plans) == 0 || empty[id] < len(c.plans)) {
			missing = append(missing, id)
		}
	}
	return missing
}

// Unscoped reports whether a report added does not say what part of the
// suite it covers, and the path of the first.
func (m *Merger) Unscoped() (bool, string) { return m.cover.unscoped, m.cover.unscopedPath }

// Size is the shard count of the split the reports added were run on, 0
// when none says.
func (m *Merger) Size() int { return m.cover.size }

// add records the part of the suite r covers.
func (c *coverage) add(r *Report) error {
	size := 0
	switch {
	case r.unscoped:
		if !c.unscoped {
			c.unscoped, c.unscopedPath = true, r.path
		}
		return nil
	case r.Partition != nil:
		size = r.Partition.Size
	case r.Shards != nil:
		// 0 for a merge of runs of the whole suite.
		size = r.Shards.Size
	}
	if size > 0 {
		if c.size == 0 {
			c.size, c.sizeFrom = size, r.path
		} else if size != c.size {
			return &SplitError{Path: r.path, Size: size, Against: c.sizeFrom, AgainstSize: c.size}
		}
	}
	if c.covered == nil {
		c.covered = map[int]bool{}
	}
	switch {
	case r.Partition != nil:
		c.covered[r.Partition.ID] = true
	case r.Shards != nil:
		missing := map[int]bool{}
		for _, id := range r.Shards.Missing {
			missing[id] = true
		}
		for id := range r.Shards.Size {
			if !missing[id] {
				c.covered[id] = true
			}
		}
	}
	if r.Plan != "" && !slices.Contains(c.plans, r.Plan) {
		c.plans = append(c.plans, r.Plan)
	}
	return nil
}

// SplitError is a report of another shard count than a report merged
// before it: they are not shards of one split.
type SplitError struct {
	Path        string
	Size        int
	Against     string
	AgainstSize int
}

func (e *SplitError) Error() string {
	return fmt.Sprintf("report %q is of a split into %d shards, but %q is of %d: shards of different splits do not make one suite report", e.Path, e.Size, e.Against, e.AgainstSize)
}

// combine returns last, the final word on a file, with the attempts of
// prev before its own.
func combine(prev *File, last File) File {
	detail := make([]Attempt, 0, len(prev.AttemptsDetail)+len(last.AttemptsDetail))
	detail = append(detail, prev.AttemptsDetail...)
	detail = append(detail, last.AttemptsDetail...)
	for i := range detail {
		detail[i].Attempt = i + 1
	}
	last.AttemptsDetail = detail
	last.Attempts += prev.Attempts
	last.Elapsed = Seconds(last.Elapsed + prev.Elapsed)
	// Finish recomputes Flaky from the attempts; a report without
	// attempts_detail still tells it by the statuses.
	if last.Status == Pass && (prev.Flaky || prev.Status.Failed()) {
		last.Flaky = true
	}
	return last
}

// place returns r's files with their attempts' offsets counted from the
// clock's start, and the shard of r, when r is a shard's, on each attempt
// that has an offset and no shard yet; r itself is left as it was. The
// first report with an offset sets the clock. A report of no start (or of
// one that is no time) has offsets that say nothing: they are dropped. A
// report without any offset (one of an older run) is returned as it is.
func (c *clock) place(r *Report) []File {
	if !hasOffsets(r) {
		return r.Files
	}
	started, err := time.Parse(time.RFC3339Nano, r.Started)
	known := r.Started != "" && err == nil
	if known && !c.set {
		c.set, c.start = true, started
	}
	files := slices.Clone(r.Files)
	for i := range files {
		detail := slices.Clone(files[i].AttemptsDetail)
		for j := range detail {
			a := &detail[j]
			if a.Offset == nil {
				continue
			}
			if !known {
				a.Offset = nil
				continue
			}
			a.Offset = shifted(*a.Offset, started.Sub(c.start))
			if a.Shard == nil && r.Partition != nil {
				id := r.Partition.ID
				a.Shard = &id
			}
		}
		files[i].AttemptsDetail = detail
	}
	return files
}

// moveTo moves the offsets of out's attempts onto out's start, the
// earliest of the reports merged: none is then negative. A start that is
// no time (a report of no run wrote it) can place nothing: the offsets
// are dropped. Calling it again moves nothing.
func (c *clock) moveTo(out *Report) {
	if !c.set {
		return
	}
	start, err := time.Parse(time.RFC3339Nano, out.Started)
	if err == nil && start.Equal(c.start) {
		return
	}
	by := c.start.Sub(start)
	for i := range out.Files {
		for j := range out.Files[i].AttemptsDetail {
			a := &out.Files[i].AttemptsDetail[j]
			switch {
			case a.Offset == nil:
			case err != nil:
				a.Offset = nil
			default:
				a.Offset = shifted(*a.Offset, by)
			}
		}
	}
	c.start = start
	c.set = err == nil
}

// hasOffsets reports whether an attempt of r has an offset.
func hasOffsets(r *Report) bool {
	for i := range r.Files {
		for _, a := range r.Files[i].AttemptsDetail {
			if a.Offset != nil {
				return true
			}
		}
	}
	return false
}

// shifted is offset seconds moved by d, to the millisecond, counted in
// whole milliseconds so that no rounding accumulates.
func shifted(offset float64, d time.Duration) *float64 {
	ms := math.Round(offset*1000) + float64(d.Milliseconds())
	v := ms / 1000
	return &v
}
