package triage

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
)

const (
	suite   = "stage-c-8-gpu-h100"
	file    = "tests/e2e/test_x.py"
	prSHA   = "feedface"
	started = "2026-12-01T12:00:00.000Z"
)

// failed is a file entry that failed its one attempt with cause c (and
// fingerprint fp, line for infra).
func failed(c report.Cause, fp string) report.File {
	a := report.Attempt{Attempt: 1, Status: report.Fail, Cause: c, Reason: "exit code 1"}
	if c == report.CauseInfra {
		a.Fingerprint, a.CauseLine = fp, "CUDA error: unknown error"
	}
	return report.File{File: file, Status: report.Fail, Attempts: 1, Cause: c, Reason: a.Reason, AttemptsDetail: []report.Attempt{a}}
}

// run is a PR run's report on runner with the files given.
func run(runner string, files ...report.File) *report.Report {
	pr := 7
	return &report.Report{Suite: suite, Backend: "cuda", Started: started, Files: files,
		Host: &report.Host{Runner: runner, Hostname: "ct-1", RunID: "900", RunAttempt: "1", Event: "pull_request", PR: &pr, SHA: prSHA}}
}

func quarantined(f report.File) report.File {
	f.Quarantined, f.QuarantineReason, f.QuarantineUntil, f.QuarantineOwner = true, "https://github.com/o/r/issues/1", "2027-01-31", "someone"
	return f
}

// suspects is a hosts verdict calling runner-x suspect.
func suspects() *hostcheck.Result {
	return &hostcheck.Result{Hosts: []hostcheck.HostResult{
		{Key: "runner-a"},
		{Key: "runner-x", Suspect: true, Evidence: []string{"2 failed files passed on runner-a at the same commit"}},
	}, Suspects: []string{"runner-x"}}
}

func night(day int, failed bool) MainRun {
	return MainRun{Started: time.Date(2026, 11, day, 2, 0, 0, 0, time.UTC), RunID: "50" + string(rune('0'+day%10)), RunAttempt: "1",
		SHA: "sha" + string(rune('0'+day%10)), Failed: failed}
}

// hist is a history of the file with the figures given.
func hist(f *File) *History {
	h := &History{Hosts: suspects(), Files: map[Key]*File{}}
	if f != nil {
		h.Files[Key{file, suite}] = f
	}
	return h
}

var (
	retried   = &File{Runs: 30, Failures: 0, PassedOnRetry: 8, Rate: 8.0 / 30}
	atCommit  = &File{Runs: 10, Failures: 2, Rate: 0.2, PassedAt: map[string]bool{prSHA: true}}
	rareFlake = &File{Runs: 100, Failures: 1, PassedOnRetry: 1, Rate: 0.02}
	failsMain = &File{Runs: 5, Failures: 3, Rate: 0.6, Main: []MainRun{night(26, false), night(29, true), night(27, false), night(28, true)}}
	// brokenAndFlaky failed the latest two nights and passes on a retry.
	brokenAndFlaky = &File{Runs: 5, Failures: 2, PassedOnRetry: 1, Rate: 0.6, Main: []MainRun{night(28, true), night(29, true)}}
	// mainAfter failed on the default branch only after this run started.
	mainAfter = &File{Runs: 2, Failures: 1, Rate: 0.5, Main: []MainRun{night(29, false),
		{Started: time.Date(2026, 12, 1, 13, 0, 0, 0, time.UTC), RunID: "600", SHA: "later", Failed: true}}}
)

func TestDecide_OneVerdictPerFailedFileFirstMatchWins(t *testing.T) {
	notReady := run("runner-a", failed(report.CauseTest, ""))
	notReady.HostNotReady = true
	notReady.Preflights = []report.Preflight{{When: "start", Status: report.PreflightReady}, {When: "after x attempt 1", Status: report.PreflightNotReady, Reason: "4 of 8 GPUs"}}
	for _, tc := range []struct {
		name string
		r    *report.Report
		h    *History
		want Evidence
	}{
		{"an infra fingerprint", run("runner-a", failed(report.CauseInfra, "cuda-802")), hist(nil),
			InfraEvidence{Attempt: 1, Fingerprint: "cuda-802", Line: "CUDA error: unknown error"}},
		{"a preflight that stopped the run", notReady, nil,
			InfraEvidence{HostNotReady: true, Preflight: "4 of 8 GPUs"}},
		{"a suspect host", run("runner-x", failed(report.CauseTest, "")), hist(nil),
			HostEvidence{Host: "runner-x", Why: []string{"2 failed files passed on runner-a at the same commit"}}},
		{"the quarantine", run("runner-a", quarantined(failed(report.CauseTest, ""))), hist(nil),
			QuarantineEvidence{Reason: "https://github.com/o/r/issues/1", Until: "2027-01-31", Owner: "someone"}},
		{"flaky: passes on a retry", run("runner-a", failed(report.CauseTest, "")), hist(retried),
			FlakyEvidence{Rate: 8.0 / 30, Runs: 30, PassedOnRetry: 8}},
		{"flaky: passed at this commit", run("runner-a", failed(report.CauseTimeout, "")), hist(atCommit),
			FlakyEvidence{Rate: 0.2, Runs: 10, Failures: 2, PassedAtCommit: true}},
		{"broken on main: since the first of the failures in a row", run("runner-a", failed(report.CauseTest, "")), hist(failsMain),
			BrokenEvidence{FailedRuns: 2, SinceRun: "508", SinceSHA: "sha8", SinceStarted: "2026-11-28T02:00:00.000Z",
				LatestRun: "509", LatestSHA: "sha9", LatestStarted: "2026-11-29T02:00:00.000Z"}},
		{"new", run("runner-a", failed(report.CauseTest, "")), hist(nil), NewEvidence{History: true}},

		// First match wins.
		{"infra before a suspect host", run("runner-x", failed(report.CauseInfra, "nccl")), hist(retried),
			InfraEvidence{Attempt: 1, Fingerprint: "nccl", Line: "CUDA error: unknown error"}},
		{"a suspect host before the quarantine", run("runner-x", quarantined(failed(report.CauseTest, ""))), hist(retried),
			HostEvidence{Host: "runner-x", Why: []string{"2 failed files passed on runner-a at the same commit"}}},
		{"the quarantine before flaky", run("runner-a", quarantined(failed(report.CauseTest, ""))), hist(retried),
			QuarantineEvidence{Reason: "https://github.com/o/r/issues/1", Until: "2027-01-31", Owner: "someone"}},
		{"flaky before broken on main", run("runner-a", failed(report.CauseTest, "")), hist(brokenAndFlaky),
			FlakyEvidence{Rate: 0.6, Runs: 5, Failures: 2, PassedOnRetry: 1}},

		// What does not match.
		{"flaky needs a rate at least the threshold", run("runner-a", failed(report.CauseTest, "")), hist(rareFlake), NewEvidence{History: true}},
		{"flaky needs a pass: a failing file is not flaky", run("runner-a", failed(report.CauseTest, "")),
			hist(&File{Runs: 5, Failures: 5, Rate: 1, PassedAt: map[string]bool{"other": true}}), NewEvidence{History: true}},
		{"broken on main counts the runs before this one", run("runner-a", failed(report.CauseTest, "")), hist(mainAfter), NewEvidence{History: true}},
		{"without a history no history verdict is claimed", run("runner-x", failed(report.CauseTest, "")), nil, NewEvidence{History: false}},
		{"without a history the quarantine still counts", run("runner-x", quarantined(failed(report.CauseTest, ""))), nil,
			QuarantineEvidence{Reason: "https://github.com/o/r/issues/1", Until: "2027-01-31", Owner: "someone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Decide([]*report.Report{tc.r}, tc.h, DefaultMinRate)
			require.Len(t, got, 1)
			assert.Equal(t, Failure{File: file, Suite: suite, Status: tc.r.Files[0].Status, Verdict: tc.want.verdict(), Evidence: tc.want}, got[0])
		})
	}
}

// A file another report given passed at the same commit (a re-run of the
// job) can pass there: with a flaky rate, it is flaky. Passed files, and
// files never run or interrupted, get no verdict.
func TestDecide_APassInAnotherReportAtTheCommitIsAPass(t *testing.T) {
	first := run("runner-a", failed(report.CauseTest, ""),
		report.File{File: "tests/ok.py", Status: report.Pass, Attempts: 1},
		report.File{File: "tests/later.py", Status: report.NotRun},
		report.File{File: "tests/stopped.py", Status: report.Interrupted, Attempts: 1})
	again := run("runner-b", report.File{File: file, Status: report.Pass, Attempts: 1})
	again.Host.RunAttempt = "2"
	h := hist(&File{Runs: 10, Failures: 3, Rate: 0.3})
	got := Decide([]*report.Report{first, again}, h, DefaultMinRate)
	require.Len(t, got, 1)
	assert.Equal(t, FlakyEvidence{Rate: 0.3, Runs: 10, Failures: 3, PassedAtCommit: true}, got[0].Evidence)

	got = Decide([]*report.Report{first}, h, DefaultMinRate)
	assert.Equal(t, NewEvidence{History: true}, got[0].Evidence, "without the re-run, nothing shows it can pass")
	assert.True(t, Failed(first))
	assert.False(t, Failed(again))
}

// Every verdict is in Order once, New last.
func TestOrder_NamesEachVerdictOnce(t *testing.T) {
	seen := map[Verdict]bool{}
	for _, v := range Order {
		assert.False(t, seen[v], v)
		seen[v] = true
	}
	assert.Len(t, Order, 6)
	assert.Equal(t, New, Order[len(Order)-1])
}
