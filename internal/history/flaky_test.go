package history

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// flakyRows are the attempts of one file in one run: the run's id, sha
// and runner, the statuses in order.
func flakyRows(id, sha, runner, file string, statuses ...report.Status) []Row {
	run := Run{Repository: "o/r", RunID: id, RunAttempt: "1", Job: "gpu", SHA: sha, Suite: "s", Backend: "cuda",
		Started: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Runner: runner}
	var rows []Row
	for i, s := range statuses {
		rows = append(rows, Row{Run: run, File: file, Attempt: i + 1, Status: s})
	}
	return rows
}

func flakyOf(t *testing.T, runs ...[]Row) *Flaky {
	t.Helper()
	a := &FlakyAnswer{}
	addRuns(t, a, runs)
	return a.Result()
}

// addRuns hands the rows of each run to the answer, in order.
func addRuns(t *testing.T, a Answer, runs [][]Row) {
	t.Helper()
	for _, rows := range runs {
		for i := range rows {
			require.NoError(t, a.Add(&rows[i]))
		}
	}
}

func TestFlaky_CountsEachRunByItsLastAttempt(t *testing.T) {
	p, f, i := report.Pass, report.Fail, report.Interrupted
	res := flakyOf(t,
		flakyRows("1", "c1", "r1", "a.py", f, report.Timeout), // a failure
		flakyRows("2", "c1", "r2", "a.py", f, p),              // passed on a retry, at the failure's commit
		flakyRows("3", "", "r1", "a.py", f),                   // a failure at no known commit
		flakyRows("4", "c2", "r1", "a.py", f, i),              // interrupted: ran, neither
		flakyRows("5", "c3", "r1", "b.py", p),
	)
	require.Len(t, res.Files, 1)
	got := res.Files[0]
	assert.Equal(t, "a.py", got.File)
	assert.Equal(t, [4]int{4, 2, 1, 1}, [4]int{got.Runs, got.Failures, got.PassedOnRetry, got.PassedSameCommit},
		"runs, failures, retried, failures at a commit where another run passed")
	assert.InDelta(t, 0.75, got.Rate, 1e-12)
	assert.Equal(t, "", got.OnlyOn, "failed on r1 and r2")
	assert.Equal(t, 1, res.Clean)
}

func TestFlaky_OneHostOnlyWhenTheFilePassedOnAnother(t *testing.T) {
	p, f := report.Pass, report.Fail
	tied := flakyOf(t, flakyRows("1", "c1", "x", "a.py", f, f), flakyRows("2", "c1", "y", "a.py", p),
		flakyRows("3", "c2", "x", "a.py", f, p))
	assert.Equal(t, "x", tied.Files[0].OnlyOn)
	alone := flakyOf(t, flakyRows("1", "c1", "x", "a.py", f), flakyRows("2", "c2", "x", "a.py", f))
	assert.Equal(t, "", alone.Files[0].OnlyOn, "it never passed elsewhere: nothing says the host is to blame")
	once := flakyOf(t, flakyRows("1", "c1", "x", "a.py", f), flakyRows("2", "c1", "y", "a.py", p))
	assert.Equal(t, "", once.Files[0].OnlyOn, "one failure is on one host whatever caused it")
	nameless := flakyOf(t, flakyRows("1", "c1", "", "a.py", f), flakyRows("2", "c1", "", "a.py", f), flakyRows("3", "c1", "y", "a.py", p))
	assert.Equal(t, "", nameless.Files[0].OnlyOn, "a run that names no host")
}

func TestFlaky_OrderedByRateThenFile(t *testing.T) {
	p, f := report.Pass, report.Fail
	// b and c fail one run in three, a one in two: 1/3 twice must tie
	// exactly, whatever the floating point says.
	res := flakyOf(t,
		flakyRows("1", "", "r", "c.py", f), flakyRows("2", "", "r", "c.py", p), flakyRows("3", "", "r", "c.py", p),
		flakyRows("1", "", "r", "b.py", f), flakyRows("2", "", "r", "b.py", p), flakyRows("3", "", "r", "b.py", p),
		flakyRows("1", "", "r", "a.py", f), flakyRows("2", "", "r", "a.py", p),
	)
	var names []string
	for _, f := range res.Files {
		names = append(names, f.File)
	}
	assert.Equal(t, []string{"a.py", "b.py", "c.py"}, names)
}

// flakyBenchRows streams n rows: 300 files over n/300 runs of 3 shards, the
// runs on 8 hosts at one commit per 3 runs, every 7th run of a file
// failing once and passing its retry.
func flakyBenchRows(n int, fn func(*Row)) {
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	files := make([]string, 300)
	for i := range files {
		files[i] = "tests/e2e/test_" + strconv.Itoa(i) + ".py"
	}
	var row Row
	for i := 0; i < n; {
		job := i / 300
		row.Run = Run{Repository: "o/r", RunID: strconv.Itoa(job / 3), RunAttempt: "1", Job: "gpu",
			SHA: strconv.Itoa(job / 9), Suite: "s", Backend: "cuda", Started: start.Add(time.Duration(job) * time.Minute),
			ShardID: job % 3, ShardSize: 3, Runner: "r" + strconv.Itoa(job%8)}
		for _, f := range files {
			row.File, row.Attempt, row.Status = f, 1, report.Pass
			if (job+len(f))%7 == 0 {
				row.Status = report.Fail
				fn(&row)
				i++
				row.Attempt, row.Status = 2, report.Pass
			}
			fn(&row)
			i++
		}
	}
}

// BenchmarkFlaky_MillionRows: the answer's time per row, and the memory
// it keeps (retained-MB, after a collection): that of the answer, not of
// the rows.
func BenchmarkFlaky_MillionRows(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		a := &FlakyAnswer{}
		flakyBenchRows(n, func(r *Row) { _ = a.Add(r) })
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/1e6, "retained-MB")
		_ = a.Result()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}

// BenchmarkPostgresFlaky: the flaky answer over benchRows rows (100,000
// unless MILES_CI_BENCH_HISTORY_ROWS says) of the test PostgreSQL, read
// in the order of the table's unique key (Filter.Grouped, which the
// answer needs) and, for the cost of that order, unordered.
func BenchmarkPostgresFlaky(b *testing.B) {
	n := benchRows(b)
	url := testutil.Postgres(b).NewDatabase(b)
	ctx := context.Background()
	p, err := OpenPostgres(ctx, url, ForWriting)
	require.NoError(b, err)
	defer p.Close()
	var rows []Row
	flakyBenchRows(n, func(r *Row) { rows = append(rows, *r) })
	_, err = p.Write(ctx, rows)
	require.NoError(b, err)
	rows = nil
	for _, grouped := range []bool{true, false} {
		name := "unordered"
		if grouped {
			name = "grouped"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				a := &FlakyAnswer{}
				require.NoError(b, p.Scan(ctx, Filter{Grouped: grouped}, a.Add))
				_ = a.Result()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		})
	}
}
