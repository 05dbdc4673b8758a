package history

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
)

// jobOf is the job and host a report's rows are counted under.
func jobOf(r *report.Report, path string) (hostcheck.Job, hostcheck.Host, error) {
	job, err := reportJob(r, path)
	if err != nil {
		return job, hostcheck.Host{}, err
	}
	return job, hostcheck.Host{Runner: r.Host.Runner, Hostname: r.Host.Hostname}, nil
}

func TestHostRowsOf_AReportThatNamesNoOneHostCannotBePlaced(t *testing.T) {
	shard := &report.Report{Suite: "s", Partition: &report.Partition{ID: 1, Size: 2},
		Host: &report.Host{Runner: "h2", Hostname: "ct", Repository: "o/r", RunID: "7", RunAttempt: "2", Job: "gpu", SHA: "c1"}}
	job, host, err := jobOf(shard, "dir/r.json")
	require.NoError(t, err)
	assert.Equal(t, hostcheck.Job{Repository: "o/r", RunID: "7", RunAttempt: "2", Name: "gpu", Suite: "s", Partition: "1/2"}, job)
	assert.Equal(t, hostcheck.Host{Runner: "h2", Hostname: "ct"}, host)

	local := &report.Report{Suite: "s", Host: &report.Host{Hostname: "box"}}
	job, _, err = jobOf(local, "dir/r.json")
	require.NoError(t, err)
	abs, err := filepath.Abs("dir/r.json")
	require.NoError(t, err)
	assert.Equal(t, abs, job.Source, "a run outside Actions is told apart by its report")
	again, _, err := jobOf(local, "./dir/../dir/r.json")
	require.NoError(t, err)
	assert.Equal(t, job, again, "however the path to the same report is written")

	var un *Unattributable
	for name, r := range map[string]*report.Report{
		"old":     {Suite: "s"},
		"merged":  {Suite: "s", Hosts: []report.Host{{Runner: "h2"}, {Runner: "h4"}}, Shards: &report.Shards{Size: 2}},
		"no name": {Suite: "s", Host: &report.Host{RunID: "7"}},
	} {
		_, _, err := jobOf(r, "x.json")
		assert.ErrorAs(t, err, &un, name)
	}
}

func TestHostRowsOf_OnePerAttemptAndOneForAFileNeverRun(t *testing.T) {
	r := &report.Report{Suite: "s", HostNotReady: true, Host: &report.Host{Runner: "h2", SHA: "c1"}, Files: []report.File{
		{File: "a.py", Status: report.Pass, Attempts: 2, AttemptsDetail: []report.Attempt{
			{Attempt: 1, Status: report.Fail, Cause: report.CauseInfra, Fingerprint: "xid"}, {Attempt: 2, Status: report.Pass}}},
		{File: "b.py", Status: report.NotRun},
	}}
	job, host, err := jobOf(r, "r.json")
	require.NoError(t, err)
	var rows []hostcheck.Row
	require.NoError(t, HostRowsOf(r, "r.json", func(row hostcheck.Row) { rows = append(rows, row) }))
	base := hostcheck.Row{Host: host, Job: job, SHA: "c1", HostNotReady: true}
	want := []hostcheck.Row{base, base, base}
	want[0].File, want[0].Attempt, want[0].Status, want[0].Cause, want[0].Fingerprint = "a.py", 1, report.Fail, report.CauseInfra, "xid"
	want[1].File, want[1].Attempt, want[1].Status = "a.py", 2, report.Pass
	want[2].File, want[2].Status = "b.py", report.NotRun
	assert.Equal(t, want, rows)
}

// One workflow job that runs the same suite twice (two steps) ran two
// jobs' worth: their reports differ by their start. Two copies of one
// report are still one job.
func TestHostRowsOf_AJobRunningASuiteTwiceIsTwoJobs(t *testing.T) {
	mk := func(started string) *report.Report {
		return &report.Report{Suite: "s", Backend: "cuda", Started: started,
			Host: &report.Host{Runner: "r", Repository: "o/r", RunID: "1", RunAttempt: "1", Job: "gpu"}}
	}
	first, _, err := jobOf(mk("2026-12-01T03:00:00.000Z"), "a/report.json")
	require.NoError(t, err)
	second, _, err := jobOf(mk("2026-12-01T05:00:00.000Z"), "b/report.json")
	require.NoError(t, err)
	copyOfFirst, _, err := jobOf(mk("2026-12-01T03:00:00.000Z"), "c/report.json")
	require.NoError(t, err)
	assert.NotEqual(t, first, second)
	assert.Equal(t, first, copyOfFirst)
}
