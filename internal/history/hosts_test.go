package history

import (
	"os"
	"path/filepath"
	"strconv"
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

// ReportFiles lists a directory in the walk's order; report hosts reads
// the files by whole path, as it always has: the two differ where a name
// holds a byte below '/', and the order picks which copy of a job counts.
func TestReportHosts_ReadsADirectoryByWholePathAndSkipsWhatItCannotPlace(t *testing.T) {
	dir := t.TempDir()
	mk := func(rel string, r *report.Report) {
		t.Helper()
		path := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		r.Finish()
		require.NoError(t, report.Write(path, r))
	}
	job := func() *report.Report {
		return &report.Report{Suite: "s", Backend: "cuda", Host: &report.Host{Runner: "r1", Repository: "o/r", RunID: "1", RunAttempt: "1", Job: "gpu"},
			Files: []report.File{{File: "a.py", Status: report.Pass, Attempts: 1, AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Pass}}}}}
	}
	mk("run/report.json", job())
	mk("run-2/report.json", job())
	mk("old.json", &report.Report{Suite: "s", Backend: "cuda"})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "timings.json"), []byte("[]"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "run"), filepath.Join(dir, "zz-link")))

	at, err := ReportFiles(dir)
	require.NoError(t, err)
	assert.True(t, at.Dir)
	rel := func(paths []string) []string {
		var out []string
		for _, p := range paths {
			r, err := filepath.Rel(dir, p)
			require.NoError(t, err)
			out = append(out, r)
		}
		return out
	}
	assert.Equal(t, []string{"old.json", "run/report.json", "run-2/report.json", "timings.json"}, rel(at.Files), "the walk's order")
	assert.Equal(t, []string{"zz-link"}, rel(at.Links))

	h := &ReportHosts{Paths: []string{dir}}
	var rows []hostcheck.Row
	require.NoError(t, h.Scan(func(r hostcheck.Row) { rows = append(rows, r) }))
	assert.Equal(t, 1, h.Reports)
	assert.Len(t, rows, 1)
	q := func(rel string) string { return strconv.Quote(filepath.Join(dir, rel)) }
	assert.Equal(t, []string{
		"skipped " + q("zz-link") + ": a link found in a directory (only a link named on the command line is followed)",
		"skipped " + q("old.json") + `: cannot be placed on a host: no "host" (an older miles-ci wrote it)`,
		"skipped " + q("run/report.json") + ": repeats a job read before (same run, attempt, job, suite and shard); counted once",
		"skipped " + q("timings.json") + ": not a run report (the document is a JSON array; expected an object)",
	}, h.Skipped.Warnings(), "run-2/report.json is read first, by whole path")

	// A file named that is no run report is an error, not a skip.
	h = &ReportHosts{Paths: []string{filepath.Join(dir, "timings.json")}}
	assert.Error(t, h.Scan(func(hostcheck.Row) {}))
}
