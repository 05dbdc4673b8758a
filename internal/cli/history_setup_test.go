package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// TestHistorySetup_LiveRunsMeasureTheirJobsSetupAlikeFromBothStores runs
// two workflow runs of two shards whose jobs say when they started
// (MILES_CI_JOB_STARTED), writing to the database as their files finish
// and to reports. history setup answers the same from both stores, and its
// figures are those computed here from the reports' two times; the
// suggestion is the p90 in minutes rounded up to a tenth.
func TestHistorySetup_LiveRunsMeasureTheirJobsSetupAlikeFromBothStores(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	root := historyRepo(t)
	reports := t.TempDir()
	// Setups from about 2 to 5 minutes, one per job.
	ago := []time.Duration{2 * time.Minute, 3 * time.Minute, 4 * time.Minute, 5 * time.Minute}
	for round := range 2 {
		for id := range 2 {
			env := ghEnv(3000 + round)
			env["MILES_CI_JOB_STARTED"] = time.Now().UTC().Add(-ago[round*2+id]).Format(time.RFC3339)
			args := append(historyRunArgs(root, id, 2, filepath.Join(reports, fmt.Sprintf("r%d-shard%d.json", round, id))), "--history", url)
			out, err := milesCommand(t, root, env, args...).CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			require.Contains(t, string(out), "[CI Setup] ", string(out))
			require.NotContains(t, string(out), "warning: history", string(out))
		}
	}

	// The setups, read here from the reports as plain JSON.
	var setups []float64
	paths, err := filepath.Glob(filepath.Join(reports, "*.json"))
	require.NoError(t, err)
	for _, p := range paths {
		var doc struct {
			Job   string `json:"job_started"`
			First string `json:"first_test_started"`
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &doc))
		job, err := time.Parse(time.RFC3339Nano, doc.Job)
		require.NoError(t, err, p)
		first, err := time.Parse(time.RFC3339Nano, doc.First)
		require.NoError(t, err, p)
		setups = append(setups, first.Sub(job).Seconds())
	}
	require.Len(t, setups, 4)

	_, text := askBoth(t, reports, []string{url}, "history", "setup")
	_, js := askBoth(t, reports, []string{url}, "history", "setup", "--json")
	var doc struct {
		Suites []struct {
			Suite     string   `json:"suite"`
			Jobs      int      `json:"jobs"`
			Unknown   int      `json:"unknown"`
			Median    float64  `json:"median"`
			P90       float64  `json:"p90"`
			Max       float64  `json:"max"`
			Suggested *float64 `json:"suggested_setup_minutes"`
		} `json:"suites"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc), js)
	require.Len(t, doc.Suites, 1)
	s := doc.Suites[0]
	assert.Equal(t, reportSuite, s.Suite)
	assert.Equal(t, 4, s.Jobs, "each shard's job counts once, whatever its rows")
	assert.Equal(t, 0, s.Unknown)
	assert.InDelta(t, quantileOf(setups, 0.5), s.Median, 0.0015)
	assert.InDelta(t, quantileOf(setups, 0.9), s.P90, 0.0015)
	assert.InDelta(t, quantileOf(setups, 1), s.Max, 0.0015)
	require.NotNil(t, s.Suggested)
	assert.Equal(t, math.Ceil(s.P90/6-1e-9)/10, *s.Suggested)
	assert.GreaterOrEqual(t, *s.Suggested*60, s.P90, "the suggestion covers the p90")
	assert.Contains(t, text, fmt.Sprintf("setup_minutes: %.1f\n", *s.Suggested))
}

// A run that did not know its job's start counts as UNKNOWN, and a suite
// none of whose runs knew says how to make them know.
func TestHistorySetup_RunsWithoutAJobStartAreCountedAndExplained(t *testing.T) {
	dir := t.TempDir()
	started := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	write := func(name, suite, job string) {
		r := &report.Report{Suite: suite, Backend: "cuda", Started: started.Format(report.StartedLayout),
			JobStarted: job, FirstTestStarted: report.Stamp(started.Add(90 * time.Second)),
			Host: &report.Host{Runner: "r", Repository: "radixark/miles", RunID: name, RunAttempt: "1", Job: "gpu"},
			Files: []report.File{{File: "tests/a.py", Status: report.Pass, Attempts: 1, Elapsed: 5,
				AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Pass, Elapsed: 5}}}}}
		r.Finish()
		data, err := report.Marshal(r)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644))
	}
	write("1", "stage-x", report.Stamp(started))
	write("2", "stage-x", "")
	write("3", "stage-y", "")
	code, out, errOut := askAt(t, "history", "setup", "--from", dir)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, strings.Join([]string{
		"SUITE    BACKEND  JOBS  UNKNOWN  MEDIAN     P90     MAX           SUGGESTED",
		"stage-x  cuda        1        1  90.000  90.000  90.000  setup_minutes: 1.5",
		"stage-y  cuda        0        1       -       -       -                   -",
		"1 suite knew no job start: set MILES_CI_JOB_STARTED in the job's first step (miles-ci help migrate)",
		""}, "\n"), out)
}

// A --from that is neither on disk nor a postgres:// URL but looks like a
// connection string is refused without printing it: it may hold the
// password (a mistyped scheme, a keyword DSN).
func TestHistory_AMistypedURLIsNeverPrinted(t *testing.T) {
	for _, from := range []string{
		"postgress://ci:hunter2secret@db/h", "POSTGRES://ci:hunter2secret@db/h", "postgresql:/ci:hunter2secret@db/h",
		"host=db user=ci password=hunter2secret dbname=h",
	} {
		for _, args := range questionArgs("--from", from) {
			code, out, errOut := askAt(t, args...)
			assert.Equal(t, 2, code, "%v", args)
			assert.NotContains(t, out+errOut, "hunter2secret", "%v", args)
			assert.Contains(t, errOut, "--from is neither a directory or file of run reports nor a postgres:// or postgresql:// URL", "%v", args)
		}
	}
	// A directory that is simply missing is named, as any missing path.
	code, _, errOut := askAt(t, "history", "timings", "--from", "no-such-reports")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "no-such-reports")
}

// --days counts back whole days from now, up to a century; beyond, the
// window would start after now (a Duration overflows) and answer nothing.
func TestHistory_DaysBeyondACenturyIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := askAt(t, "history", "timings", "--from", dir, "--days", "106752")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--days 106752: at most 36525 (a century)")
}

// A setup no job can have had (its job "started" in year 1, or more than
// a day before its first test), which an older miles-ci wrote into
// reports and database rows, is no setup: the run counts as UNKNOWN in
// either store, and the suggestion is made of the plausible ones.
func TestHistorySetup_AnImplausibleStoredSetupCountsAsUnknown(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	dir := t.TempDir()
	started := time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)
	var rows []history.Row
	write := func(name, job string) {
		first := started.Add(90 * time.Second)
		r := &report.Report{Suite: "stage-x", Backend: "cuda", Started: started.Format(report.StartedLayout),
			JobStarted: job, FirstTestStarted: report.Stamp(first),
			Host: &report.Host{Runner: "r", Repository: "radixark/miles", RunID: name, RunAttempt: "1", Job: "gpu"},
			Files: []report.File{{File: "tests/a.py", Status: report.Pass, Attempts: 1, Elapsed: 5,
				AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Pass, Elapsed: 5}}}}}
		r.Finish()
		data, err := report.Marshal(r)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".json"), data, 0o644))
		rs, err := history.RowsOf(r)
		require.NoError(t, err)
		// The setup as miles-ci computed it before it knew better.
		jobAt, err := time.Parse(time.RFC3339Nano, job)
		require.NoError(t, err)
		setup := report.Seconds(first.Sub(jobAt).Seconds())
		for i := range rs {
			rs[i].Setup = &setup
		}
		rows = append(rows, rs...)
	}
	write("1", report.Stamp(started))
	write("2", "0001-01-01T00:00:00.000Z")
	write("3", report.Stamp(started.Add(-30*time.Hour)))
	ctx := context.Background()
	store, err := history.OpenPostgres(ctx, url, history.ForWriting)
	require.NoError(t, err)
	_, err = store.Write(ctx, rows)
	require.NoError(t, err)
	require.NoError(t, store.Close())

	code, out := askBoth(t, dir, []string{url}, "history", "setup")
	require.Equal(t, 0, code)
	assert.Equal(t, strings.Join([]string{
		"SUITE    BACKEND  JOBS  UNKNOWN  MEDIAN     P90     MAX           SUGGESTED",
		"stage-x  cuda        1        2  90.000  90.000  90.000  setup_minutes: 1.5",
		""}, "\n"), out)
}
