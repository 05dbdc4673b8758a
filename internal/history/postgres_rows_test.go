package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// longPath is a test file's path of 2,826 bytes (a tree of long
// directory names): more than an index entry may hold (2,704 bytes),
// its names hex digits that the server cannot compress to fit.
var longPath = func() string {
	var b strings.Builder
	b.WriteString("tests/")
	sum := sha256.Sum256(nil)
	for b.Len() < 2826-3 {
		sum = sha256.Sum256(sum[:])
		b.WriteString(hex.EncodeToString(sum[:]))
		if b.Len()%200 < 64 {
			b.WriteString("/")
		}
	}
	return b.String()[:2826-3] + ".py"
}()

// openWriter opens a new database of the test server for writing.
func openWriter(t *testing.T) (*Postgres, string) {
	t.Helper()
	url := testutil.Postgres(t).NewDatabase(t)
	p, err := OpenPostgres(context.Background(), url, ForWriting)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return p, url
}

// sqlConn is a plain connection to url, for what no miles-ci writes.
func sqlConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func execSQL(t *testing.T, conn *pgx.Conn, sql string, args ...any) {
	t.Helper()
	_, err := conn.Exec(context.Background(), sql, args...)
	require.NoError(t, err, sql)
}

// A row whose text is longer than an index entry may be (a 2,826-byte
// test path, a suite and a run id as long) is written with the others,
// and found again by every filter: no index holds such a text as it is.
func TestPostgres_ALongPathSuiteOrRunIDCostsNoRow(t *testing.T) {
	p, _ := openWriter(t)
	ctx := context.Background()
	rows := sampleRows()
	long := rows[0]
	long.File, long.Suite, long.RunID = longPath, "stage-"+longPath, "991"+longPath
	rows = append(rows, long)
	added, err := p.Write(ctx, rows)
	require.NoError(t, err)
	assert.Equal(t, 4, added, "every row, the long one too")
	assert.Empty(t, p.Warnings())
	added, err = p.Write(ctx, rows)
	require.NoError(t, err)
	assert.Equal(t, 0, added, "a second write adds none")

	got := scanAll(t, p, Filter{Suite: long.Suite, LastRuns: 5})
	require.Len(t, got, 1)
	assert.Equal(t, long, got[0])
	assert.Len(t, scanAll(t, p, Filter{Suite: "stage-b", LastRuns: 1}), 1, "the latest run of stage-b: the local one")
	assert.Len(t, scanAll(t, p, Filter{LastRuns: 3}), 4)
}

// rowsOfEveryProblem are rows no run writes, one per rule, each with the
// problem its warning names.
func rowsOfEveryProblem() ([]Row, []string) {
	base := sampleRows()[1]
	nan, negative := math.NaN(), -5.0
	var rows []Row
	var why []string
	add := func(problem string, change func(r *Row)) {
		r := base
		r.Attempt = 10 + len(rows)
		change(&r)
		rows = append(rows, r)
		why = append(why, problem)
	}
	add(`has "elapsed" -1000`, func(r *Row) { r.Elapsed = -1000 })
	add(`has "elapsed" NaN`, func(r *Row) { r.Elapsed = nan })
	add(`has setup NaN`, func(r *Row) { r.Setup = &nan })
	add(`has setup -5`, func(r *Row) { r.Setup = &negative })
	add(`has status "PASSED"`, func(r *Row) { r.Status = "PASSED" })
	add(`has cause "\x1b[2J"`, func(r *Row) { r.Cause = "\x1b[2J" })
	add(`has fingerprint "a b"`, func(r *Row) { r.Fingerprint = "a b" })
	add(`"partition" is shard 4 of 4`, func(r *Row) { r.ShardID = 4 })
	add(`has no file`, func(r *Row) { r.File = "" })
	return rows, why
}

// Write refuses a row no run writes, counts it and names the first in
// one warning, and writes every other row.
func TestPostgres_ARowNoRunWritesIsRefusedAndTheOthersWritten(t *testing.T) {
	p, _ := openWriter(t)
	bad, why := rowsOfEveryProblem()
	good := sampleRows()
	rows := append(append([]Row{}, good[:1]...), bad...)
	rows = append(rows, good[1:]...)
	added, err := p.Write(context.Background(), rows)
	require.NoError(t, err, "a bad row is no failure of the store")
	assert.Equal(t, len(good), added)
	assert.Equal(t, len(bad), p.Refused.Count)
	require.Len(t, p.Warnings(), 1)
	assert.Equal(t, fmt.Sprintf(`refused %d rows and wrote the others; the first: file "tests/a.py" attempt 10 of suite "stage-b" (run "991"): has "elapsed" -1000; expected seconds, from 0 to 1e+12`, len(bad)),
		p.Warnings()[0])
	assert.ElementsMatch(t, good, scanAll(t, p, Filter{}))

	// Each rule refuses its row alone.
	for i := range bad {
		p.Refused = rowSkips{}
		n, err := p.Write(context.Background(), bad[i:i+1])
		require.NoError(t, err)
		assert.Equal(t, 0, n, why[i])
		assert.Contains(t, p.Refused.Why, why[i])
	}
}

// A row the server refuses (here a constraint the database's owner
// added, standing in for any value the server cannot store) fails the
// statement it is in; the statement's other rows are then written one
// at a time, and only that row is left out, with one warning.
func TestPostgres_ARowTheServerRefusesCostsNoOtherRow(t *testing.T) {
	p, url := openWriter(t)
	execSQL(t, sqlConn(t, url), `ALTER TABLE miles_ci_attempts ADD CONSTRAINT no_bad CHECK (file <> 'tests/bad.py')`)
	rows := sampleRows()
	bad := rows[0]
	bad.File = "tests/bad.py"
	rows = append(rows, bad)
	added, err := p.Write(context.Background(), rows)
	require.NoError(t, err)
	assert.Equal(t, 3, added)
	assert.Equal(t, 1, p.Refused.Count)
	require.Len(t, p.Warnings(), 1)
	assert.Contains(t, p.Warnings()[0], `refused 1 row and wrote the others; the first: file "tests/bad.py" attempt 1 of suite "stage-b" (run "991"): `)
	assert.Contains(t, p.Warnings()[0], `violates check constraint "no_bad" (SQLSTATE 23514)`)
	assert.ElementsMatch(t, sampleRows(), scanAll(t, p, Filter{}))
}

// A row the database holds that no run writes (written by hand or by
// another program: a negative elapsed time, a NaN setup, an unknown
// status) is skipped by every scan, counted in one warning that shows
// its values escaped and bounded, and the answer is the other rows'.
func TestPostgres_AScanSkipsRowsNoRunWrites(t *testing.T) {
	p, url := openWriter(t)
	ctx := context.Background()
	_, err := p.Write(ctx, sampleRows())
	require.NoError(t, err)
	conn := sqlConn(t, url)
	// Copies of a good row with one column changed, each a row of its own.
	for i, set := range []string{
		`elapsed = -1000`,
		`setup = 'NaN'`,
		`status = '::error::` + strings.Repeat("x", 5000) + `'`,
		`cause = E'\x1b[2J'`,
		`shard_id = -1`,
	} {
		execSQL(t, conn, `CREATE TEMP TABLE one AS SELECT * FROM miles_ci_attempts WHERE file = 'tests/a.py' AND attempt = 2`)
		execSQL(t, conn, fmt.Sprintf(`UPDATE one SET row_key = '\x%02x', attempt = %d, %s`, i, 10+i, set))
		execSQL(t, conn, `INSERT INTO miles_ci_attempts SELECT * FROM one`)
		execSQL(t, conn, `DROP TABLE one`)
	}
	for _, f := range []Filter{{}, TimingsFilter(Filter{}), FlakyFilter(Filter{LastRuns: 2})} {
		got := scanAll(t, p, f)
		for _, r := range got {
			assert.Less(t, r.Attempt, 10, "a bad row reached the answer: %+v", r)
		}
		require.Len(t, p.Warnings(), 1, "%+v", f)
		w := p.Warnings()[0]
		assert.Less(t, len(w), 600, "the warning is bounded: %s", w)
		assert.NotContains(t, w, "\x1b")
		if f.TimingOnly {
			// A timing scan reads the passed attempts' file, suite,
			// backend, status and elapsed: the negative elapsed.
			assert.Equal(t, 1, p.Skipped.Count, w)
			assert.Contains(t, w, `skipped 1 row that no run writes; the first: file "tests/a.py" of suite "stage-b": has "elapsed" -1000;`)
		} else {
			assert.Equal(t, 5, p.Skipped.Count, w)
			assert.Contains(t, w, `skipped 5 rows that no run writes; the first: file "tests/a.py" attempt `)
		}
	}
	assert.ElementsMatch(t, sampleRows(), scanAll(t, p, Filter{}))
}

// A pull request number keeps its 64 bits: nothing on the way cuts it
// to 32 (4294967297 was written as 1, 2147483648 as -2147483648).
func TestPostgres_APullRequestNumberIsNeverCut(t *testing.T) {
	p, url := openWriter(t)
	var rows []Row
	for i, pr := range []int{4294967297, 2147483648, math.MaxInt64, 1} {
		r := sampleRows()[0]
		r.Attempt, r.PR = i+1, &pr
		rows = append(rows, r)
	}
	added, err := p.Write(context.Background(), rows)
	require.NoError(t, err)
	require.Equal(t, 4, added)
	got := scanAll(t, p, Filter{})
	var prs []int
	for _, r := range got {
		prs = append(prs, *r.PR)
	}
	assert.ElementsMatch(t, []int{4294967297, 2147483648, math.MaxInt64, 1}, prs)
	var stored []int64
	r, err := sqlConn(t, url).Query(context.Background(), `SELECT pr FROM miles_ci_attempts ORDER BY attempt`)
	require.NoError(t, err)
	for r.Next() {
		var v int64
		require.NoError(t, r.Scan(&v))
		stored = append(stored, v)
	}
	require.NoError(t, r.Err())
	assert.Equal(t, []int64{4294967297, 2147483648, math.MaxInt64, 1}, stored, "the database's column")
}

// Two writers of the same rows in opposite orders (two imports of the
// same reports, `import A B` and `import B A`) both succeed, round after
// round: neither is chosen as a deadlock's victim.
func TestPostgres_WritersOfTheSameRowsInOppositeOrdersBothSucceed(t *testing.T) {
	p, url := openWriter(t)
	q, err := OpenPostgres(context.Background(), url, ForWriting)
	require.NoError(t, err)
	defer q.Close()
	conn := sqlConn(t, url)
	var rows []Row
	for i := range writeChunk {
		r := sampleRows()[0]
		r.File = fmt.Sprintf("tests/test_%04d.py", i)
		rows = append(rows, r)
	}
	reversed := make([]Row, len(rows))
	for i := range rows {
		reversed[len(rows)-1-i] = rows[i]
	}
	for round := range 6 {
		execSQL(t, conn, `TRUNCATE miles_ci_attempts`)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var errs [2]error
		var added [2]int
		for i, w := range []struct {
			p    *Postgres
			rows []Row
		}{{p, rows}, {q, reversed}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				added[i], errs[i] = w.p.Write(context.Background(), w.rows)
			}()
		}
		close(start)
		wg.Wait()
		require.NoError(t, errs[0], "round %d", round)
		require.NoError(t, errs[1], "round %d", round)
		assert.Equal(t, len(rows), added[0]+added[1], "round %d: each row written once", round)
	}
}

// sleepingTable makes every scan of the history at url sleep on the
// server before its first row, as a scan of a huge table would take.
func sleepingTable(t *testing.T, url string) {
	t.Helper()
	conn := sqlConn(t, url)
	execSQL(t, conn, `ALTER TABLE miles_ci_attempts RENAME TO attempts_kept`)
	execSQL(t, conn, `CREATE VIEW miles_ci_attempts AS SELECT a.* FROM attempts_kept a, pg_sleep(600)`)
}

// runningQueries counts the statements of miles-ci's sessions that the
// server is running, other than url's own connection asking.
func runningQueries(t *testing.T, conn *pgx.Conn) int {
	t.Helper()
	var n int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE application_name = 'miles-ci' AND state = 'active' AND pid <> pg_backend_pid()`).Scan(&n))
	return n
}

// A row started at 'infinity' or '-infinity', which a timestamptz holds
// and no run writes, is skipped and counted as any such row is: it cannot
// be read as a time, and failed every scan that reads the start.
func TestPostgres_AScanSkipsARowStartedAtInfinity(t *testing.T) {
	p, url := openWriter(t)
	ctx := context.Background()
	_, err := p.Write(ctx, sampleRows())
	require.NoError(t, err)
	conn := sqlConn(t, url)
	for i, when := range []string{"infinity", "-infinity"} {
		execSQL(t, conn, `CREATE TEMP TABLE one AS SELECT * FROM miles_ci_attempts WHERE file = 'tests/a.py' AND attempt = 2`)
		execSQL(t, conn, fmt.Sprintf(`UPDATE one SET row_key = '\x%02x', attempt = %d, started = '%s'`, i, 10+i, when))
		execSQL(t, conn, `INSERT INTO miles_ci_attempts SELECT * FROM one`)
		execSQL(t, conn, `DROP TABLE one`)
	}
	for _, f := range []Filter{{}, {Stops: true}, FlakyFilter(Filter{LastRuns: 2}), {Since: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		var got []Row
		require.NoError(t, p.Scan(ctx, f, func(r *Row) error { got = append(got, *r); return nil }), "%+v", f)
		assert.ElementsMatch(t, sampleRows(), got, "%+v", f)
		require.Len(t, p.Warnings(), 1, "%+v", f)
		assert.Contains(t, p.Warnings()[0], `infinity; expected a time`, "%+v", f)
	}
}
