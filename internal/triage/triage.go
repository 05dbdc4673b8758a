// Package triage gives every failed file of a run a verdict: what most
// likely made it fail, with the evidence, so that a red job can be told
// "rerun" from "fix". The verdicts are tried in order and the first that
// matches wins (Order): an infra cause or a stopped preflight (Infra), a
// host the history finds suspect (SuspectHost), the configuration's
// quarantine (Quarantined), a file the history finds flaky that has
// passed at this commit or on a retry (Flaky), a file that already failed
// in the latest runs of the default branch (BrokenOnMain), and otherwise
// this change (New).
//
// It decides only: the run's reports and what the run history says of
// other runs (History, gathered at the edge by package history's
// TriageAnswer, the same figures `history flaky` and `history hosts` give)
// come in as values, and package view renders the verdicts. Without a
// history, the verdicts that need one are never claimed.
package triage

import (
	"cmp"
	"slices"
	"time"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
)

// Verdict names what most likely failed a file.
type Verdict string

// The verdicts.
const (
	Infra        Verdict = "infra"
	SuspectHost  Verdict = "suspect-host"
	Quarantined  Verdict = "quarantined"
	Flaky        Verdict = "flaky"
	BrokenOnMain Verdict = "broken-on-main"
	New          Verdict = "new"
)

// Order is the verdicts in the order they are tried: the first that
// matches a failed file is its verdict.
var Order = []Verdict{Infra, SuspectHost, Quarantined, Flaky, BrokenOnMain, New}

// DefaultMinRate is the flaky threshold: a file the history saw fail or
// pass only on a retry in at least one run in twenty.
const DefaultMinRate = 0.05

// Key is a test file in a suite: the history counts a file per suite, as
// `history flaky` does.
type Key struct{ File, Suite string }

// History is what the run history says of runs other than those triaged
// (their rows left out), for the files that failed in them.
type History struct {
	// Hosts is `history hosts`' analysis of the history's runs: its
	// verdict names the suspect hosts.
	Hosts *hostcheck.Result
	// Files holds, per failed file and its suite, what the history's runs
	// of it say; a file the history never ran has none.
	Files map[Key]*File
}

// File is what the history says of one file in one suite.
type File struct {
	// Runs, Failures, PassedOnRetry and Rate are `history flaky`'s figures
	// (history.FlakyFile): the runs that ran it, those whose last attempt
	// failed, those that passed only on a retry, and (Failures +
	// PassedOnRetry) / Runs.
	Runs, Failures, PassedOnRetry int
	Rate                          float64
	// PassedAt holds the commits of the triaged runs at which another run
	// passed the file.
	PassedAt map[string]bool
	// Main are its runs on the default branch (see MainRun), in any order.
	Main []MainRun
}

// MainRun is one run of a file on the default branch: a run started by a
// schedule (which GitHub runs on the default branch) or a push, of no pull
// request. A run whose last attempt failed with an infra cause, or that
// neither failed nor passed (interrupted), says nothing of the code and is
// not one.
type MainRun struct {
	Started time.Time
	// RunID and RunAttempt are the workflow run ("" outside GitHub
	// Actions); SHA the commit.
	RunID, RunAttempt, SHA string
	// Failed says its last attempt failed (FAIL or TIMEOUT); else it
	// passed.
	Failed bool
}

// Failure is the verdict on one failed file.
type Failure struct {
	File, Suite string
	// Status is the file's: FAIL or TIMEOUT.
	Status   report.Status
	Verdict  Verdict
	Evidence Evidence
}

// Evidence is why a verdict was given: one of the *Evidence types of this
// package, the one of the verdict.
type Evidence interface{ verdict() Verdict }

// InfraEvidence is an infra verdict's: the attempt whose output matched
// an infra fingerprint, the fingerprint and the line it matched; or a
// GPU preflight that found the host not ready after the failure and
// stopped the run (HostNotReady, Preflight its reason).
type InfraEvidence struct {
	Attempt      int    `json:"attempt"`
	Fingerprint  string `json:"fingerprint"`
	Line         string `json:"line"`
	HostNotReady bool   `json:"host_not_ready"`
	Preflight    string `json:"preflight"`
}

// HostEvidence is a suspect-host verdict's: the host (hostcheck.Host.Key)
// and why the history suspects it (hostcheck.HostResult.Evidence).
type HostEvidence struct {
	Host string   `json:"host"`
	Why  []string `json:"why"`
}

// QuarantineEvidence is a quarantined verdict's: the entry the file ran
// under.
type QuarantineEvidence struct {
	Reason string `json:"reason"`
	Until  string `json:"until"`
	Owner  string `json:"owner"`
}

// FlakyEvidence is a flaky verdict's: `history flaky`'s figures of the
// file, and which of the two proofs that it can pass holds (both may).
type FlakyEvidence struct {
	Rate           float64 `json:"rate"`
	Runs           int     `json:"runs"`
	Failures       int     `json:"failures"`
	PassedOnRetry  int     `json:"passed_on_retry"`
	PassedAtCommit bool    `json:"passed_at_commit"`
}

// BrokenEvidence is a broken-on-main verdict's: how many of the latest
// runs on the default branch before this run failed the file in a row,
// and the earliest and the latest of them (run id, "" outside GitHub
// Actions; commit; start).
type BrokenEvidence struct {
	FailedRuns    int    `json:"failed_runs"`
	SinceRun      string `json:"since_run"`
	SinceSHA      string `json:"since_sha"`
	SinceStarted  string `json:"since_started"`
	LatestRun     string `json:"latest_run"`
	LatestSHA     string `json:"latest_sha"`
	LatestStarted string `json:"latest_started"`
}

// NewEvidence is a new verdict's: whether a history was read (without
// one, suspect-host, flaky and broken-on-main could not be claimed).
type NewEvidence struct {
	History bool `json:"history"`
}

func (InfraEvidence) verdict() Verdict      { return Infra }
func (HostEvidence) verdict() Verdict       { return SuspectHost }
func (QuarantineEvidence) verdict() Verdict { return Quarantined }
func (FlakyEvidence) verdict() Verdict      { return Flaky }
func (BrokenEvidence) verdict() Verdict     { return BrokenOnMain }
func (NewEvidence) verdict() Verdict        { return New }

// Failed reports whether r has a failed file to triage.
func Failed(r *report.Report) bool {
	for i := range r.Files {
		if r.Files[i].Status.Failed() {
			return true
		}
	}
	return false
}

// Decide gives every failed file (FAIL or TIMEOUT, quarantined or not) of
// the reports its verdict, in the reports' order and each report's own.
// h is nil without a history; minRate is the flaky threshold.
func Decide(reports []*report.Report, h *History, minRate float64) []Failure {
	// A file another report given passed at the same commit (a re-run's,
	// say) can pass there, as one the history passed can.
	passed := map[Key]map[string]bool{}
	for _, r := range reports {
		sha := commitOf(r)
		for i := range r.Files {
			f := &r.Files[i]
			if f.Status == report.Pass && sha != "" {
				k := Key{f.File, r.Suite}
				if passed[k] == nil {
					passed[k] = map[string]bool{}
				}
				passed[k][sha] = true
			}
		}
	}
	var out []Failure
	for _, r := range reports {
		for i := range r.Files {
			f := &r.Files[i]
			if !f.Status.Failed() {
				continue
			}
			e := decide(r, f, h, minRate, passed[Key{f.File, r.Suite}])
			out = append(out, Failure{File: f.File, Suite: r.Suite, Status: f.Status, Verdict: e.verdict(), Evidence: e})
		}
	}
	return out
}

// decide is one failed file's evidence: the first verdict of Order that
// matches.
func decide(r *report.Report, f *report.File, h *History, minRate float64, passedHere map[string]bool) Evidence {
	if e, ok := infra(r, f); ok {
		return e
	}
	if e, ok := suspectHost(r, h); ok {
		return e
	}
	if f.Quarantined {
		return QuarantineEvidence{Reason: f.QuarantineReason, Until: f.QuarantineUntil, Owner: f.QuarantineOwner}
	}
	if h == nil {
		return NewEvidence{History: false}
	}
	hf := h.Files[Key{f.File, r.Suite}]
	if e, ok := flaky(hf, commitOf(r), minRate, passedHere); ok {
		return e
	}
	if e, ok := broken(hf, r); ok {
		return e
	}
	return NewEvidence{History: true}
}

// infra matches a file whose last attempt failed with an infra cause, or
// a failure in a run that a GPU preflight stopped (the host not ready).
func infra(r *report.Report, f *report.File) (Evidence, bool) {
	if last, ok := f.LastAttempt(); ok && last.Status.Failed() && last.Cause == report.CauseInfra {
		return InfraEvidence{Attempt: last.Attempt, Fingerprint: last.Fingerprint, Line: last.CauseLine}, true
	}
	if len(f.AttemptsDetail) == 0 && f.Cause == report.CauseInfra {
		// A hand-written report that gives the last attempt only.
		return InfraEvidence{Attempt: f.Attempts}, true
	}
	if r.HostNotReady {
		e := InfraEvidence{HostNotReady: true}
		if n := len(r.Preflights); n > 0 {
			e.Preflight = r.Preflights[n-1].Reason
		}
		return e, true
	}
	return nil, false
}

// suspectHost matches a run whose host the history's hosts verdict calls
// suspect. A merged report names no one host, and matches nothing.
func suspectHost(r *report.Report, h *History) (Evidence, bool) {
	if h == nil || h.Hosts == nil || r.Host == nil {
		return nil, false
	}
	key := hostcheck.Host{Runner: r.Host.Runner, Hostname: r.Host.Hostname}.Key()
	if key == "" {
		return nil, false
	}
	for _, hr := range h.Hosts.Hosts {
		if hr.Key == key && hr.Suspect {
			return HostEvidence{Host: key, Why: hr.Evidence}, true
		}
	}
	return nil, false
}

// flaky matches a file whose history rate is at least minRate (and above
// zero) and that has shown it can pass: the history saw it pass on a
// retry, or another run (in the history or among the reports given)
// passed it at this run's commit.
func flaky(hf *File, sha string, minRate float64, passedHere map[string]bool) (Evidence, bool) {
	if hf == nil || hf.Runs == 0 || hf.Rate <= 0 || hf.Rate < minRate {
		return nil, false
	}
	atCommit := sha != "" && (hf.PassedAt[sha] || passedHere[sha])
	if hf.PassedOnRetry == 0 && !atCommit {
		return nil, false
	}
	return FlakyEvidence{Rate: hf.Rate, Runs: hf.Runs, Failures: hf.Failures, PassedOnRetry: hf.PassedOnRetry, PassedAtCommit: atCommit}, true
}

// broken matches a file whose latest run on the default branch that
// started before this run failed: the evidence counts the failures in a
// row back from it and names the earliest.
func broken(hf *File, r *report.Report) (Evidence, bool) {
	if hf == nil || len(hf.Main) == 0 {
		return nil, false
	}
	before, err := time.Parse(report.StartedLayout, r.Started)
	runs := make([]MainRun, 0, len(hf.Main))
	for _, m := range hf.Main {
		if err != nil || m.Started.Before(before) {
			runs = append(runs, m)
		}
	}
	// Latest first; runs that started together by run id and attempt, the
	// greater first, so that the answer is the same in any input order.
	slices.SortFunc(runs, func(x, y MainRun) int {
		if c := y.Started.Compare(x.Started); c != 0 {
			return c
		}
		if c := cmp.Compare(len(y.RunID), len(x.RunID)); c != 0 {
			return c
		}
		if c := cmp.Compare(y.RunID, x.RunID); c != 0 {
			return c
		}
		if c := cmp.Compare(y.RunAttempt, x.RunAttempt); c != 0 {
			return c
		}
		return cmp.Compare(y.SHA, x.SHA)
	})
	n := 0
	for n < len(runs) && runs[n].Failed {
		n++
	}
	if n == 0 {
		return nil, false
	}
	since, latest := runs[n-1], runs[0]
	return BrokenEvidence{FailedRuns: n,
		SinceRun: since.RunID, SinceSHA: since.SHA, SinceStarted: report.Stamp(since.Started),
		LatestRun: latest.RunID, LatestSHA: latest.SHA, LatestStarted: report.Stamp(latest.Started)}, true
}

// commitOf is the commit a report's run tested, "" when it does not say.
func commitOf(r *report.Report) string {
	if r.Host == nil {
		return ""
	}
	return r.Host.SHA
}
