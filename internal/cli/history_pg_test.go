package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/timings"
)

// longTestPath is a test file's path of n bytes below dir: directories
// of 200 hex digits (which the server cannot compress into an index
// entry), then test_long.py.
func longTestPath(dir string, n int) string {
	const file = "test_long.py"
	var digits strings.Builder
	sum := sha256.Sum256(nil)
	for digits.Len() < n {
		sum = sha256.Sum256(sum[:])
		digits.WriteString(hex.EncodeToString(sum[:]))
	}
	need := n - len(dir) - len(file) // the directories' names and a slash after each
	k := (need + 200) / 201
	p := dir
	for i := range k {
		size := (need - k) / k
		if i == 0 {
			size += (need - k) % k
		}
		p += digits.String()[len(p):len(p)+size] + "/"
	}
	return p + file
}

// sqlExec runs statements on the database at url, as no miles-ci would.
func sqlExec(t *testing.T, url string, sql ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	for _, s := range sql {
		_, err := conn.Exec(ctx, s)
		require.NoError(t, err, s)
	}
}

// A test file with a 2,826-byte path (more than an index entry may hold)
// costs no row: a run writes every row of its files, the long one's
// too, and an import of its report with three ordinary ones adds every
// row of the four.
func TestHistory_ALongTestPathCostsNoRow(t *testing.T) {
	long := longTestPath("tests/e2e/", 2826)
	require.Len(t, long, 2826)
	srv := testutil.Postgres(t)

	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", ""), long: gpuTest("long", ""),
		"tests/e2e/test_b.py": gpuTest("b", "")})
	url := srv.NewDatabase(t)
	dir := t.TempDir()
	// The run in a process of its own, as in CI (an in-process run would
	// end the test's PostgreSQL with its leftovers, a child of this
	// process).
	cmd := milesCommand(t, root, nil, historyRunArgs(root, 0, 1, filepath.Join(dir, "run.json"))...)
	cmd.Args = append(cmd.Args, "--history", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.NotContains(t, stderr.String(), "warning: history:")
	assert.Equal(t, 3, countRows(t, url), "the run wrote every file's row")

	for i := range 3 {
		forgedJob(t, dir, i, "runner-a", "ct", fmt.Sprint(3000+i), reportSuite, passAtOnce,
			[]string{"tests/e2e/test_a.py", "tests/e2e/test_b.py", "tests/e2e/test_c.py"})
	}
	url = srv.NewDatabase(t)
	code, out, errOut := miles(t, root, nil, "history", "import", "--to", url, dir)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "history import: 12 rows added, 0 already present, from 4 reports\n", out)
	assert.Empty(t, errOut)
	code, out, errOut = miles(t, root, nil, "history", "import", "--to", url, dir)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "history import: 0 rows added, 12 already present, from 4 reports\n", out)

	code, out, errOut = miles(t, root, nil, "history", "timings", "--from", url, "--suite", reportSuite, "--last", "4")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\n"+long[:20])
}

// `history import A B` and `history import B A` at the same moment both
// succeed, round after round, and the rows are written once.
func TestHistoryImport_OppositeOrdersAtOnceBothSucceed(t *testing.T) {
	testutil.SkipShort(t, "two imports racing on one database")
	srv := testutil.Postgres(t)
	dir := t.TempDir()
	var files []string
	for i := range 1000 {
		files = append(files, fmt.Sprintf("tests/e2e/test_%04d.py", i))
	}
	forgedJob(t, dir, 0, "runner-a", "ct", "4000", reportSuite, passAtOnce, files)
	forgedJob(t, dir, 1, "runner-a", "ct", "4001", reportSuite, passAtOnce, files)
	a, b := filepath.Join(dir, "job-000", "report.json"), filepath.Join(dir, "job-001", "report.json")
	for round := range 4 {
		url := srv.NewDatabase(t)
		var wg sync.WaitGroup
		start := make(chan struct{})
		var codes [2]int
		var errOuts [2]string
		for i, order := range [][]string{{a, b}, {b, a}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				codes[i], _, errOuts[i] = miles(t, dir, nil, append([]string{"history", "import", "--to", url}, order...)...)
			}()
		}
		close(start)
		wg.Wait()
		assert.Equal(t, [2]int{0, 0}, codes, "round %d: %v", round, errOuts)
		assert.Equal(t, 2000, countRows(t, url), "round %d", round)
	}
}

// activeQueries counts the statements miles-ci's sessions are running on
// the server.
func activeQueries(t *testing.T, url string) int {
	return queryCount(t, url, `SELECT count(*) FROM pg_stat_activity
		WHERE application_name = 'miles-ci' AND state = 'active' AND datname = current_database()`)
}

// A reading command ended by a signal leaves no statement running on the
// server. The table is made a view that sleeps before its first row, as
// a scan of a huge history would take its time.
func TestHistory_AnInterruptedReadLeavesNoStatementRunning(t *testing.T) {
	testutil.SkipShort(t, "a read interrupted against a live database")
	srv := testutil.Postgres(t)
	dir := t.TempDir()
	forgedJob(t, dir, 0, "runner-a", "ct", "4000", reportSuite, passAtOnce, []string{"tests/e2e/test_a.py"})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		url := srv.NewDatabase(t)
		code, _, errOut := miles(t, dir, nil, "history", "import", "--to", url, dir)
		require.Equal(t, 0, code, errOut)
		sqlExec(t, url, `ALTER TABLE miles_ci_attempts RENAME TO attempts_kept`,
			`CREATE VIEW miles_ci_attempts AS SELECT a.* FROM attempts_kept a, pg_sleep(600)`)

		cmd := milesCommand(t, dir, nil, "history", "timings", "--from", url)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		require.Eventually(t, func() bool { return activeQueries(t, url) == 1 }, time.Minute, 20*time.Millisecond,
			"%s: the scan never started: %s", sig, &out)
		require.NoError(t, cmd.Process.Signal(sig))
		select {
		case <-done:
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Fatalf("%s: miles-ci did not exit", sig)
		}
		assert.Eventually(t, func() bool { return activeQueries(t, url) == 0 }, time.Minute, 50*time.Millisecond,
			"%s: the statement still runs on the server after miles-ci exited", sig)
	}
}

// Rows of the database that no run writes (a negative elapsed time, a NaN
// setup: written by hand or by another program) are skipped with one
// warning: the timings file history timings writes holds no negative
// time (partition --timings reads it), and history setup --json answers.
func TestHistory_RowsNoRunWritesAreSkippedWithOneWarning(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	dir := t.TempDir()
	for i := range 3 {
		forgedJob(t, dir, i, "runner-a", "ct", fmt.Sprint(4000+i), reportSuite, passAtOnce, []string{"tests/e2e/test_a.py"})
	}
	code, _, errOut := askAt(t, "history", "import", "--to", url, dir)
	require.Equal(t, 0, code, errOut)
	sqlExec(t, url,
		`UPDATE miles_ci_attempts SET elapsed = -1000000 WHERE run_id = '4000'`,
		`UPDATE miles_ci_attempts SET setup = 'NaN' WHERE run_id = '4001'`)

	timingsOut := filepath.Join(t.TempDir(), "t.json")
	code, out, errOut := askAt(t, "history", "timings", "--from", url, "-o", timingsOut, "--quantile", "0.1")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "tests/e2e/test_a.py  "+reportSuite+"  cuda        2")
	assert.Equal(t, 1, strings.Count(errOut, "warning: history:"), errOut)
	assert.Contains(t, errOut, `warning: history: skipped 1 row that no run writes; the first: file "tests/e2e/test_a.py" of suite "`+reportSuite+`": has "elapsed" -1e+06; expected seconds, from 0 to 1e+12`)
	seconds, err := timings.Read(timingsOut)
	require.NoError(t, err, "the timings file holds no negative time")
	assert.Equal(t, 10.0, float64(seconds["tests/e2e/test_a.py"]))

	code, out, errOut = askAt(t, "history", "setup", "--from", url, "--json")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"jobs": 1`)
	assert.Equal(t, 1, strings.Count(errOut, "warning: history:"), errOut)
	assert.Contains(t, errOut, `warning: history: skipped 2 rows that no run writes; the first: file "tests/e2e/test_a.py" attempt 1 of suite "`+reportSuite+`" (run "400`)
}

// A pull request number is stored whole: 4294967297 and 2147483648 as
// they are (they were cut to 32 bits), and one past 64 bits is refused
// with its report, never wrapped.
func TestHistoryImport_APullRequestNumberIsStoredWhole(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	dir := t.TempDir()
	for i, pr := range []int{4294967297, 2147483648, math.MaxInt64} {
		started := monthStart.Add(time.Duration(i) * time.Hour)
		r := &report.Report{Suite: reportSuite, Backend: "cuda", Cadence: "regular", Started: report.Stamp(started),
			Host: &report.Host{Repository: "o/r", RunID: fmt.Sprint(100 + i), RunAttempt: "1", Job: "gpu", PR: &pr},
			Files: []report.File{{File: "tests/e2e/test_a.py", Status: report.Pass, Attempts: 1,
				AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Pass, Elapsed: 1}}}}}
		r.Finish()
		require.NoError(t, report.Write(filepath.Join(dir, fmt.Sprintf("r%d.json", i)), r))
	}
	data, err := os.ReadFile(filepath.Join(dir, "r2.json"))
	require.NoError(t, err)
	over := strings.Replace(string(data), `"pr": 9223372036854775807`, `"pr": 9223372036854775808`, 1)
	require.NotEqual(t, string(data), over)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "r3.json"), []byte(strings.Replace(over, `"run_id": "102"`, `"run_id": "103"`, 1)), 0o644))

	code, out, errOut := askAt(t, "history", "import", "--to", url, dir)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "history import: 3 rows added, 0 already present, from 3 reports\n", out)
	assert.Contains(t, errOut, `skipped 1 file(s) that are not run reports; the first: "`+filepath.Join(dir, "r3.json")+`"`)

	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pr FROM miles_ci_attempts ORDER BY run_id`)
	require.NoError(t, err)
	var prs []int64
	for rows.Next() {
		var v int64
		require.NoError(t, rows.Scan(&v))
		prs = append(prs, v)
	}
	require.NoError(t, rows.Err())
	assert.Equal(t, []int64{4294967297, 2147483648, math.MaxInt64}, prs)
}

// The forged reports imported into the database (a 200 kB name, names
// that would start a workflow command, a line break, terminal escapes)
// are as inert read back from it as from their directory: the same
// output, byte for byte, no line that starts a workflow command, no
// control byte.
func TestForgedReports_FromTheDatabaseStayInert(t *testing.T) {
	dir := forgedReports(t)
	url := testutil.Postgres(t).NewDatabase(t)
	code, out, errOut := askAt(t, "history", "import", "--to", url, dir)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, fmt.Sprintf("history import: %d rows added, 0 already present, from %d reports\n", 2*4+4+forgedRuns*2, forgedRuns+2), out)
	const limit = 32 << 10
	for _, args := range append(questionArgs(), []string{"history", "flaky", "--quarantine"}) {
		code, out, errOut := askAt(t, append(args, "--from", url)...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		if args[len(args)-1] == "--quarantine" {
			// The list keeps each name whole (quoted, on its line).
			assertInert(t, strings.Join(args, " "), out+errOut, len(forgedHuge)+limit)
		} else {
			assertInert(t, strings.Join(args, " "), out+errOut, limit)
		}
		for _, c := range out + errOut {
			if c < 0x20 && c != '\n' || c == 0x7f || c >= 0x80 && c < 0xa0 {
				t.Errorf("%v: a raw control character %U", args, c)
				break
			}
		}
		dirCode, dirOut, _ := askAt(t, append(args, "--from", dir)...)
		assert.Equal(t, dirCode, code, "%v", args)
		assert.Equal(t, dirOut, out, "%v: the database and the directory answer alike", args)
	}
}

// A row the server refuses (a constraint of the database's owner stands
// in for any value it cannot store) costs no other row: a run writes the
// others and says so once, and an import counts it as refused.
func TestHistory_ARowTheServerRefusesCostsNoOtherRow(t *testing.T) {
	srv := testutil.Postgres(t)
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", ""), "tests/e2e/test_b.py": gpuTest("b", ""),
		"tests/e2e/test_c.py": gpuTest("c", "")})
	refusing := func() string {
		url := srv.NewDatabase(t)
		code, _, errOut := miles(t, root, nil, "history", "import", "--to", url, t.TempDir())
		require.Equal(t, 0, code, errOut)
		sqlExec(t, url, `ALTER TABLE miles_ci_attempts ADD CONSTRAINT no_b CHECK (file <> 'tests/e2e/test_b.py')`)
		return url
	}
	url := refusing()
	dir := t.TempDir()
	cmd := milesCommand(t, root, nil, historyRunArgs(root, 0, 1, filepath.Join(dir, "run.json"))...)
	cmd.Args = append(cmd.Args, "--history", url)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Equal(t, 2, countRows(t, url), "the run wrote the other files' rows")
	assert.Equal(t, 1, strings.Count(stderr.String(), "warning: history:"), stderr.String())
	assert.Contains(t, stderr.String(), `warning: history: refused 1 row and wrote the others; the first: file "tests/e2e/test_b.py" attempt 1 of suite "`+reportSuite+`" (started `)
	assert.Contains(t, stderr.String(), `violates check constraint "no_b" (SQLSTATE 23514)`)

	url = refusing()
	code, out, errOut := miles(t, root, nil, "history", "import", "--to", url, dir)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "history import: 2 rows added, 0 already present, 1 refused, from 1 report\n", out)
	assert.Equal(t, 1, strings.Count(errOut, "warning: history:"), errOut)
	assert.Contains(t, errOut, `warning: history: refused 1 row and wrote the others; the first: file "tests/e2e/test_b.py"`)
}
