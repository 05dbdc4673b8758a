package history

import (
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/triage"
)

// TriageAnswer gathers what the history says of the failed files of some
// run reports, for package triage to decide on (`report triage --from`,
// and run's step summary): `history flaky`'s figures of each failed file
// (a FlakyAnswer), `history hosts`' verdict (a HostsAnswer), the commits
// of the reports at which another run passed the file, and the file's
// runs on the default branch. The rows of the runs being triaged (each
// report's workflow run attempt, every shard of it; or, outside GitHub
// Actions, the report's own run) are left out: a run is not evidence
// about itself. Its memory is the two answers' and, per failed file, its
// runs on the default branch.
type TriageAnswer struct {
	flaky FlakyAnswer
	hosts *HostsAnswer
	// exclude holds the Run.Key of the runs triaged; wanted the failed
	// files; shas the commits the reports tested.
	exclude map[string]bool
	wanted  map[triage.Key]bool
	shas    map[string]bool

	passedAt map[triage.Key]map[string]bool
	main     map[triage.Key][]triage.MainRun
	cur      mainCur
}

// mainCur is the file of one run on the default branch whose attempts are
// coming in.
type mainCur struct {
	open  bool
	run   Run
	key   triage.Key
	last  int
	say   report.Status
	cause report.Cause
}

// NewTriageAnswer returns the answer for the failed files of reports,
// whose hosts verdict calls a host suspect at minContradicted
// contradicted failures.
func NewTriageAnswer(reports []*report.Report, minContradicted int) *TriageAnswer {
	a := &TriageAnswer{hosts: NewHostsAnswer(minContradicted), exclude: map[string]bool{}, wanted: map[triage.Key]bool{},
		shas: map[string]bool{}, passedAt: map[triage.Key]map[string]bool{}, main: map[triage.Key][]triage.MainRun{}}
	for _, r := range reports {
		for _, k := range runKeys(r) {
			a.exclude[k] = true
		}
		if r.Host != nil && r.Host.SHA != "" {
			a.shas[clean(r.Host.SHA)] = true
		}
		for i := range r.Files {
			if f := &r.Files[i]; f.Status.Failed() {
				a.wanted[triage.Key{File: clean(f.File), Suite: clean(r.Suite)}] = true
			}
		}
	}
	return a
}

// runKeys are the Run.Key of the runs a report holds: its workflow run
// attempt (a merge's, each of its hosts'), or its own run outside GitHub
// Actions.
func runKeys(r *report.Report) []string {
	hosts := r.Hosts
	if r.Host != nil {
		hosts = []report.Host{*r.Host}
	}
	var keys []string
	for _, h := range hosts {
		if h.RunID != "" {
			run := Run{Repository: h.Repository, RunID: h.RunID, RunAttempt: h.RunAttempt}
			run.clean()
			keys = append(keys, run.Key())
		}
	}
	if len(keys) == 0 {
		if run, err := RunOf(r); err == nil {
			keys = append(keys, run.Key())
		}
	}
	return keys
}

var _ Answer = (*TriageAnswer)(nil)

// Filter reads every attempt, the rows of one report together, as the
// flaky and hosts answers do.
func (a *TriageAnswer) Filter(f Filter) Filter { return HostsFilter(f) }

// Add takes one row of a run other than those triaged.
func (a *TriageAnswer) Add(r *Row) error {
	if a.exclude[r.Run.Key()] {
		return nil
	}
	if r.Stopped { // a job a preflight stopped: only the hosts count it, as history hosts does
		return a.hosts.Add(r)
	}
	if err := a.flaky.Add(r); err != nil {
		return err
	}
	if err := a.hosts.Add(r); err != nil {
		return err
	}
	k := triage.Key{File: r.File, Suite: r.Suite}
	if !a.wanted[k] {
		return nil
	}
	if r.Status == report.Pass && a.shas[r.SHA] {
		if a.passedAt[k] == nil {
			a.passedAt[k] = map[string]bool{}
		}
		a.passedAt[k][r.SHA] = true
	}
	if !onMain(&r.Run) {
		return nil
	}
	if !a.cur.open || a.cur.key != k || !sameReport(&a.cur.run, &r.Run) {
		a.finishMain()
		a.cur = mainCur{open: true, run: r.Run, key: k}
	}
	if r.Attempt >= a.cur.last {
		a.cur.last, a.cur.say, a.cur.cause = r.Attempt, r.Status, r.Cause
	}
	return nil
}

// onMain reports whether a run was on the default branch: started by a
// schedule (GitHub runs scheduled workflows on the default branch) or a
// push, for no pull request. A report does not record its ref, so a
// workflow that runs on pushes to other branches too has those counted:
// limit its push trigger to the default branch (see help reports).
func onMain(run *Run) bool {
	return run.PR == nil && (run.Event == "schedule" || run.Event == "push")
}

// finishMain counts the run on the default branch whose attempts have all
// come: one that failed for an infra cause, or neither failed nor passed,
// says nothing of the code.
func (a *TriageAnswer) finishMain() {
	c := a.cur
	a.cur.open = false
	if !c.open || !(c.say == report.Pass || c.say.Failed() && c.cause != report.CauseInfra) {
		return
	}
	a.main[c.key] = append(a.main[c.key], triage.MainRun{Started: c.run.Started, RunID: c.run.RunID, RunAttempt: c.run.RunAttempt,
		SHA: c.run.SHA, Failed: c.say.Failed()})
}

// Result gives what the history says, for triage.Decide.
func (a *TriageAnswer) Result() *triage.History {
	a.finishMain()
	h := &triage.History{Hosts: a.hosts.Result(), Files: map[triage.Key]*triage.File{}}
	file := func(k triage.Key) *triage.File {
		f := h.Files[k]
		if f == nil {
			f = &triage.File{}
			h.Files[k] = f
		}
		return f
	}
	for _, ff := range a.flaky.Result().Files {
		if k := (triage.Key{File: ff.File, Suite: ff.Suite}); a.wanted[k] {
			f := file(k)
			f.Runs, f.Failures, f.PassedOnRetry, f.Rate = ff.Runs, ff.Failures, ff.PassedOnRetry, ff.Rate
		}
	}
	for k, shas := range a.passedAt {
		file(k).PassedAt = shas
	}
	for k, runs := range a.main {
		file(k).Main = runs
	}
	return h
}
