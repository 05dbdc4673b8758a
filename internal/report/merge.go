package report

import "errors"

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
//     run; its elapsed time is the sum of the runs'.
//
// A file registered twice in a suite is listed twice in its reports: its
// k-th listing in one report matches its k-th listing in another. Reports
// of different suites or backends are a *SuiteError.
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
	out   *Report
	first string // the path of the first report
	index map[mergeKey]int
	// fromInterrupted tells, for each file, whether its entry comes from
	// an interrupted run.
	fromInterrupted []bool
	elapsed         float64
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
	m.elapsed += r.Elapsed
	seen := map[string]int{}
	for _, f := range r.Files {
		k := mergeKey{f.File, seen[f.File]}
		seen[f.File]++
		i, ok := m.index[k]
		if !ok {
			m.index[k] = len(m.out.Files)
			m.out.Files = append(m.out.Files, f)
			m.fromInterrupted = append(m.fromInterrupted, r.Interrupted)
			continue
		}
		prev := &m.out.Files[i]
		if f.Status == NotRun && prev.Status != NotRun {
			continue
		}
		m.out.Files[i] = combine(prev, f)
		m.fromInterrupted[i] = r.Interrupted
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
	out.Elapsed = Seconds(m.elapsed)
	out.Interrupted = false
	for i := range out.Files {
		if m.fromInterrupted[i] && out.Files[i].Status != Pass {
			out.Interrupted = true
		}
	}
	out.Finish()
	return out
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
