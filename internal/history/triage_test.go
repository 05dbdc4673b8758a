package history

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/triage"
)

// mainRows are the attempts of a.py in a run of suite s started by event
// on day, with the statuses (and the last attempt's cause) given.
func mainRows(id, event string, day int, cause report.Cause, statuses ...report.Status) []Row {
	rows := flakyRows(id, "c"+id, "r1", "a.py", statuses...)
	for i := range rows {
		rows[i].Event = event
		rows[i].Started = time.Date(2026, 11, day, 2, 0, 0, 0, time.UTC)
		if event == "pull_request" {
			pr := 9
			rows[i].PR = &pr
		}
	}
	rows[len(rows)-1].Cause = cause
	return rows
}

// The answer for a run's failed file: history flaky's figures, the
// commit at which another run passed it, its runs on the default branch
// (scheduled or pushed, of no pull request, not failed for an infra
// cause), and nothing of the run triaged itself, whichever shard wrote it.
func TestTriageAnswer_GathersWhatTheHistorySaysOfTheFailedFiles(t *testing.T) {
	p, f := report.Pass, report.Fail
	pr := 9
	triaged := &report.Report{Suite: "s", Backend: "cuda", Started: "2026-12-01T12:00:00.000Z",
		Host:  &report.Host{Repository: "o/r", RunID: "100", RunAttempt: "1", SHA: "c100", Event: "pull_request", PR: &pr, Runner: "r1"},
		Files: []report.File{{File: "a.py", Status: f, Attempts: 1}, {File: "b.py", Status: p, Attempts: 1}}}
	a := NewTriageAnswer([]*report.Report{triaged}, 2)
	assert.Equal(t, HostsFilter(Filter{}), a.Filter(Filter{}), "every attempt and the stop rows, as history hosts reads them")

	self := flakyRows("100", "c100", "r1", "a.py", f, f)
	otherShard := flakyRows("100", "c100", "r2", "a.py", p)
	otherShard[0].Job = "gpu-2"
	sameCommit := flakyRows("101", "c100", "r2", "a.py", f, p)
	addRuns(t, a, [][]Row{
		self, otherShard, sameCommit,
		mainRows("1", "schedule", 26, "", p),
		mainRows("2", "schedule", 27, report.CauseTest, f),
		mainRows("3", "push", 28, report.CauseTimeout, f, report.Timeout),
		mainRows("4", "schedule", 29, report.CauseInfra, f), // infra: says nothing of the code
		mainRows("5", "pull_request", 29, report.CauseTest, f),
		mainRows("6", "workflow_dispatch", 29, report.CauseTest, f),
		mainRows("7", "schedule", 30, "", report.Interrupted),
		flakyRows("8", "c100", "r1", "b.py", p),                                                       // a file that did not fail
		{{Run: flakyRows("9", "c100", "r1", "a.py", p)[0].Run, Status: report.NotRun, Stopped: true}}, // the hosts' alone
	})
	h := a.Result()
	require.NotNil(t, h.Hosts)
	require.Len(t, h.Files, 1, "the failed file only")
	got := h.Files[triage.Key{File: "a.py", Suite: "s"}]
	require.NotNil(t, got)
	// Runs: 101, 1-7 (the triaged run's two shards left out).
	assert.Equal(t, [3]int{8, 5, 1}, [3]int{got.Runs, got.Failures, got.PassedOnRetry})
	assert.InDelta(t, 6.0/8, got.Rate, 1e-12)
	assert.Equal(t, map[string]bool{"c100": true}, got.PassedAt, "run 101 passed it at the triaged commit; the other shard is the run itself")
	var ids []string
	for _, m := range got.Main {
		ids = append(ids, m.RunID+map[bool]string{true: " failed", false: " passed"}[m.Failed])
	}
	assert.ElementsMatch(t, []string{"1 passed", "2 failed", "3 failed"}, ids)

	// The hosts verdict counts every row but the triaged run's three,
	// the stop row included; the file's figures above never saw it.
	assert.Equal(t, 12, a.hosts.Rows)
}

// A run outside GitHub Actions is left out by its own identity: its
// start, host, suite and shard.
func TestTriageAnswer_ALocalRunIsLeftOutByItsIdentity(t *testing.T) {
	started := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	triaged := &report.Report{Suite: "s", Backend: "cuda", Started: report.Stamp(started),
		Host: &report.Host{Hostname: "box"}, Files: []report.File{{File: "a.py", Status: report.Fail, Attempts: 1}}}
	own := Row{Run: Run{Started: started, Hostname: "box", Suite: "s", Backend: "cuda"}, File: "a.py", Attempt: 1, Status: report.Pass}
	other := own
	other.Started = started.Add(-time.Hour)
	a := NewTriageAnswer([]*report.Report{triaged}, 2)
	require.NoError(t, a.Add(&own))
	require.NoError(t, a.Add(&other))
	assert.Equal(t, 1, a.hosts.Rows, "the run's own row is left out")
}
