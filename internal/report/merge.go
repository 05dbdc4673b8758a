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
	first := reports[0]
	out := &Report{Suite: first.Suite, Backend: first.Backend, Files: []File{}}
	type key struct {
		file string
		nth  int
	}
	index := map[key]int{}
	var fromInterrupted []bool
	var elapsed float64
	for _, r := range reports {
		if err := r.CheckSuite(first.Suite, first.Backend); err != nil {
			var se *SuiteError
			if errors.As(err, &se) {
				se.Against = first.path
			}
			return nil, err
		}
		elapsed += r.Elapsed
		seen := map[string]int{}
		for _, f := range r.Files {
			k := key{f.File, seen[f.File]}
			seen[f.File]++
			i, ok := index[k]
			if !ok {
				index[k] = len(out.Files)
				out.Files = append(out.Files, f)
				fromInterrupted = append(fromInterrupted, r.Interrupted)
				continue
			}
			prev := &out.Files[i]
			if f.Status == NotRun && prev.Status != NotRun {
				continue
			}
			out.Files[i] = combine(prev, f)
			fromInterrupted[i] = r.Interrupted
		}
	}
	out.Elapsed = Seconds(elapsed)
	for i := range out.Files {
		if fromInterrupted[i] && out.Files[i].Status != Pass {
			out.Interrupted = true
		}
	}
	out.Finish()
	return out, nil
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
