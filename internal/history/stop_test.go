package history

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// stoppedReport is a report of shard id of workflow run runID that a GPU
// preflight stopped: before its first file when atts is empty (its job
// started 100.5 s before the run, which took 20.25 s), else after file
// a.py's attempts (its setup 52 s); its other file was not run.
func stoppedReport(runID string, id int, started time.Time, atts ...report.Attempt) *report.Report {
	r := &report.Report{Suite: "stage-c", Backend: "cuda", Partition: &report.Partition{ID: id, Size: 2}, Cadence: "nightly",
		Started: report.Stamp(started), Elapsed: 20.25, HostNotReady: true,
		Host:       &report.Host{Repository: "radixark/miles", RunID: runID, RunAttempt: "1", Job: "gpu", Runner: "runner-x", Hostname: "cx"},
		Preflights: []report.Preflight{{When: "start", Status: report.PreflightNotReady, Reason: "not ready within 2m0s"}}}
	r.JobStarted = report.Stamp(started.Add(-100500 * time.Millisecond))
	notRun := report.File{File: "tests/b.py", Status: report.NotRun, EstTime: 60, Reason: "not run: host not ready", AttemptsDetail: []report.Attempt{}}
	if len(atts) == 0 {
		r.Files = []report.File{{File: "tests/a.py", Status: report.NotRun, EstTime: 60, Reason: "not run: host not ready",
			AttemptsDetail: []report.Attempt{}}, notRun}
	} else {
		r.JobStarted = report.Stamp(started.Add(-50 * time.Second))
		r.FirstTestStarted = report.Stamp(started.Add(2 * time.Second))
		r.Preflights = append([]report.Preflight{{When: "start", Status: report.PreflightReady}},
			report.Preflight{When: "after tests/a.py attempt 1", Status: report.PreflightNotReady, Reason: "not ready within 2m0s"})
		last := atts[len(atts)-1]
		r.Files = []report.File{{File: "tests/a.py", Status: last.Status, Attempts: len(atts), Elapsed: last.Elapsed, EstTime: 60,
			Cause: last.Cause, Reason: "exit code 1", AttemptsDetail: atts}, notRun}
	}
	r.Finish()
	return r
}

// A job a GPU preflight stopped leaves one row that says so, derived
// from its report alike wherever the report is read: a job stopped
// before its first file is that row alone, with the time it held its
// host as its setup; one stopped after an infra failure keeps its
// attempts and adds the row. Both stores keep the same rows, give them
// only to a filter that asks (Filter.Stops), and count no run by them.
func TestStopRow_AJobAPreflightStoppedIsOneMarkedRowInBothStores(t *testing.T) {
	dir := t.TempDir()
	night := time.Date(2026, 11, 3, 2, 0, 0, 0, time.UTC)
	atStart := stoppedReport("7", 0, night)
	infra := report.Attempt{Attempt: 1, Status: report.Fail, Cause: report.CauseInfra, Fingerprint: "cuda-802", Elapsed: 3.3, Timeout: 300, Reason: "exit code 1"}
	afterInfra := stoppedReport("7", 1, night.Add(time.Minute), infra)
	// A later run whose one job a preflight stopped at once: no run of
	// "last N runs", which counts runs by their attempts.
	later := stoppedReport("8", 0, night.Add(24*time.Hour))
	reports := []*report.Report{atStart, afterInfra, later}
	for i, r := range reports {
		require.NoError(t, report.Write(filepath.Join(dir, []string{"a.json", "b.json", "c.json"}[i]), r))
	}

	rows, err := RowsOf(atStart)
	require.NoError(t, err)
	run, err := RunOf(atStart)
	require.NoError(t, err)
	require.Nil(t, run.Setup, "no test started: no setup")
	held := 120.75 // 100.5 s before the run, 20.25 s in it
	run.Setup = &held
	assert.Equal(t, []Row{{Run: run, Status: report.NotRun, Stopped: true}}, rows, "before the first file: the stop row alone")
	require.NoError(t, rows[0].check())

	rows, err = RowsOf(afterInfra)
	require.NoError(t, err)
	require.Len(t, rows, 2)
	assert.False(t, rows[0].Stopped)
	assert.Equal(t, "tests/a.py", rows[0].File)
	assert.Equal(t, Row{Run: rows[0].Run, Status: report.NotRun, Stopped: true}, rows[1], "after an infra failure: the attempts and the stop row")
	require.NotNil(t, rows[1].Setup)
	assert.Equal(t, 52.0, *rows[1].Setup, "the job's setup, as its attempts have it")

	d := &Dir{Paths: []string{dir}}
	p, _ := openWriter(t)
	ctx := context.Background()
	for _, r := range reports {
		rows, err := RowsOf(r)
		require.NoError(t, err)
		_, err = p.Write(ctx, rows)
		require.NoError(t, err)
	}
	require.Zero(t, p.Refused.Count, "the store takes a stop row")
	for _, f := range []Filter{{}, {Stops: true}, {Stops: true, LastRuns: 1}, {LastRuns: 1}, {Stops: true, Grouped: true}, CostFilter(Filter{}),
		HostsFilter(Filter{}), FlakyFilter(Filter{}), TimingsFilter(Filter{}), SetupFilter(Filter{})} {
		fromDir := scanAll(t, d, f)
		assert.ElementsMatch(t, fromDir, scanAll(t, p, f), "%+v", f)
		stops := 0
		for _, r := range fromDir {
			if r.Stopped {
				stops++
			}
		}
		want := 0
		switch {
		case f.Stops && f.LastRuns == 1:
			want = 2 // run 7's, not run 8's
		case f.Stops:
			want = 3
		}
		assert.Equal(t, want, stops, "%+v", f)
	}
	assert.Len(t, scanAll(t, d, Filter{}), 1, "the attempts alone: the infra failure")
	assert.Empty(t, p.Warnings())
}

// A database of the previous schema (version 1, before stop rows) is
// read as it is, and the first writer of this version migrates it: its
// rows stay, every answer from them stays, a writer of version 1 still
// writes to it, and the rows written after take the stop rows.
func TestPostgres_ADatabaseOfTheFirstSchemaTakesTheMigrationAndKeepsItsAnswers(t *testing.T) {
	url := pgURL(t)
	conn := sqlConn(t, url)
	ctx := context.Background()
	// Version 1 as its miles-ci created it, and its rows as it wrote them.
	execSQL(t, conn, `CREATE TABLE miles_ci_schema (version integer NOT NULL)`)
	execSQL(t, conn, `INSERT INTO miles_ci_schema (version) VALUES (1)`)
	execSQL(t, conn, migrations[0])
	first := pick(func(c column) bool { return c.values != nil && c.in(1) })
	writeV1 := func(rows []Row) {
		t.Helper()
		keyed := make([]keyedRow, len(rows))
		for i := range rows {
			keyed[i] = keyedRow{&rows[i], rows[i].key()}
		}
		execSQL(t, conn, insertSQLOf(first), rowArrays(first, keyed)...)
	}
	old := sampleRows()
	writeV1(old)

	answers := func(r Reader) (*CostResult, []*FileTiming, []Row) {
		t.Helper()
		cost := NewCostAnswer(func(string, string) (int, GPUSource) { return 8, GPUsLabel })
		require.NoError(t, r.Scan(ctx, cost.Filter(Filter{}), cost.Add))
		var timings TimingsAnswer
		require.NoError(t, r.Scan(ctx, timings.Filter(Filter{}), timings.Add))
		return cost.Result(), timings.Files(), scanAll(t, r, Filter{Stops: true})
	}
	reader, err := OpenPostgres(ctx, url, ForReading)
	require.NoError(t, err)
	defer reader.Close()
	cost, timings, rows := answers(reader)
	assert.ElementsMatch(t, old, rows, "a reader reads version 1 as it is")
	assert.Equal(t, int64(8*(12.5+61.25+3)*1000), cost.Cost.Total()-cost.Cost.Of(Setup))

	writer, err := OpenPostgres(ctx, url, ForWriting)
	require.NoError(t, err)
	defer writer.Close()
	assert.Equal(t, SchemaVersion, queryInt(t, conn, `SELECT max(version) FROM miles_ci_schema`))
	assert.Equal(t, 3, queryInt(t, conn, `SELECT count(*) FROM miles_ci_attempts WHERE NOT `+stopColumn), "the old rows are kept, none a stop")
	c2, t2, r2 := answers(writer)
	assert.Equal(t, cost, c2, "history cost as before the migration")
	assert.Equal(t, timings, t2, "history timings as before")
	assert.ElementsMatch(t, old, r2)

	// A miles-ci of version 1 still writes (the column has a default);
	// this one writes its stop rows.
	late := old[2]
	late.File = "tests/c.py"
	writeV1([]Row{late})
	stop := Row{Run: old[0].Run, Status: report.NotRun, Stopped: true}
	added, err := writer.Write(ctx, []Row{stop})
	require.NoError(t, err)
	assert.Equal(t, 1, added)
	assert.ElementsMatch(t, append(old, late), scanAll(t, writer, Filter{}))
	c3, _, _ := answers(writer)
	assert.Equal(t, int64(8*187.25*1000), c3.Cost.Of(Preflight), "the stopped job's setup")
	assert.Zero(t, c3.Cost.Of(Setup))
}

// queryInt answers a query of one integer.
func queryInt(t *testing.T, conn *pgx.Conn, sql string) int {
	t.Helper()
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), sql).Scan(&n), sql)
	return n
}

// A schema version miles-ci never writes (below 1: a table someone
// edited) is an error naming it, for a writer and a reader alike, never a
// panic or a history read as empty.
func TestPostgres_ASchemaVersionBelowOneIsAnError(t *testing.T) {
	ctx := context.Background()
	for _, version := range []int{-7, -1, 0} {
		url := pgURL(t)
		conn := sqlConn(t, url)
		execSQL(t, conn, `CREATE TABLE miles_ci_schema (version integer NOT NULL)`)
		execSQL(t, conn, `INSERT INTO miles_ci_schema (version) VALUES ($1)`, version)
		execSQL(t, conn, migrations[0])
		want := fmt.Sprintf("the database's schema version is %d, which no miles-ci writes (miles_ci_schema holds 1 or more)", version)
		for _, mode := range []Mode{ForWriting, ForReading} {
			if mode == ForWriting && version == 0 {
				continue // an empty version table is a fresh one, and 0 reads as it
			}
			p, err := OpenPostgres(ctx, url, mode)
			if err == nil {
				p.Close()
			}
			var e *Error
			require.ErrorAs(t, err, &e, "version %d, mode %d", version, mode)
			assert.Equal(t, want, e.Msg, "version %d, mode %d", version, mode)
		}
	}
}
