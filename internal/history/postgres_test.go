package history

import (
	"context"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

func TestMain(m *testing.M) { os.Exit(testutil.RunWithPostgres(m)) }

// sampleRows are rows of two runs, with the texts a store must keep as
// they are: a pull request number and none, a setup and none, a cause,
// an infinite est_time.
func sampleRows() []Row {
	start := time.Date(2026, 12, 1, 8, 3, 1, 123e6, time.UTC)
	pr := 2542
	setup := 187.25
	gh := Run{Repository: "radixark/miles", Workflow: "PR Test", RunID: "991", RunAttempt: "1", Job: "gpu",
		Event: "pull_request", PR: &pr, SHA: "5f1e", Cadence: "regular", Started: start,
		Suite: "stage-b", Backend: "cuda", ShardID: 1, ShardSize: 4, Runner: "novita-2", Hostname: "h2", Setup: &setup}
	local := Run{Started: start.Add(time.Hour), Suite: "stage-b", Backend: "cuda", Hostname: "dev"}
	return []Row{
		{Run: gh, File: "tests/a.py", Attempt: 1, Status: report.Fail, Cause: report.CauseInfra, Elapsed: 12.5, EstTime: 60, Timeout: 1800},
		{Run: gh, File: "tests/a.py", Attempt: 2, Status: report.Pass, Elapsed: 61.25, EstTime: 60, Timeout: 1800},
		{Run: local, File: "tests/b.py", Attempt: 1, Status: report.Pass, Elapsed: 3, EstTime: math.Inf(1), Timeout: 1 << 62},
	}
}

func scanAll(t *testing.T, r Reader, f Filter) []Row {
	t.Helper()
	var out []Row
	require.NoError(t, r.Scan(context.Background(), f, func(row *Row) error {
		out = append(out, *row)
		return nil
	}))
	return out
}

func TestPostgres_KeepsEveryFieldAndNeverDuplicatesARow(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	ctx := context.Background()
	p, err := OpenPostgres(ctx, url, ForWriting)
	require.NoError(t, err)
	defer p.Close()
	rows := sampleRows()
	added, err := p.Write(ctx, rows)
	require.NoError(t, err)
	assert.Equal(t, 3, added)
	added, err = p.Write(ctx, rows)
	require.NoError(t, err)
	assert.Equal(t, 0, added, "a second write of the same rows adds none")

	got := scanAll(t, p, Filter{})
	require.Len(t, got, 3)
	byFile := map[string][]Row{}
	for _, r := range got {
		byFile[r.File] = append(byFile[r.File], r)
	}
	assert.ElementsMatch(t, rows[:2], byFile["tests/a.py"])
	assert.Equal(t, rows[2], byFile["tests/b.py"][0])
}

func TestPostgres_ShardsCreatingTheSchemaAtOnceAllSucceed(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := OpenPostgres(context.Background(), url, ForWriting)
			if err == nil {
				_, err = p.Write(context.Background(), sampleRows())
				p.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		assert.NoError(t, err)
	}
	p, err := OpenPostgres(context.Background(), url, ForReading)
	require.NoError(t, err)
	defer p.Close()
	assert.Len(t, scanAll(t, p, Filter{}), 3)
}

func TestPostgres_ErrorsNeverNameTheURL(t *testing.T) {
	srv := testutil.Postgres(t)
	url := "postgresql://secretuser:hunter2pw@/nosuchdatabase?host=" + srv.Socket()
	_, err := OpenPostgres(context.Background(), url, ForWriting)
	require.Error(t, err)
	for _, secret := range []string{"hunter2pw", "secretuser", "nosuchdatabase", srv.Socket()} {
		assert.NotContains(t, err.Error(), secret)
	}
	_, err = OpenPostgres(context.Background(), "postgres://u:hunter2pw@host:notaport/db", ForWriting)
	require.Error(t, err)
	assert.NotContains(t, err.Error(), "hunter2pw")
}

// A user or database of one or two letters is not replaced everywhere (it
// would blank out ordinary words), but it is where an error names it as
// the user or the database.
func TestPostgres_ErrorsHideAShortUserAndDatabase(t *testing.T) {
	srv := testutil.Postgres(t)
	for _, url := range []string{
		"postgresql://ci:hunter2pw@/db?host=" + srv.Socket(), // the server answers: no such role
		"postgres://ci:hunter2pw@127.0.0.1:1/db",             // nothing listens: pgx's own message
	} {
		_, err := OpenPostgres(context.Background(), url, ForWriting)
		require.Error(t, err)
		for _, shown := range []string{"hunter2pw", "user=ci", "database=db", `"ci"`, `"db"`} {
			assert.NotContains(t, err.Error(), shown, url)
		}
		assert.Contains(t, err.Error(), "user=***", url)
	}
}

// The address the host's name resolved to is hidden as the name is: pgx
// names both ("127.0.0.1:1 (localhost)"), and the dial error repeats it.
func TestPostgres_ErrorsHideTheResolvedAddress(t *testing.T) {
	_, err := OpenPostgres(context.Background(), "postgres://ci:hunter2pw@localhost:1/db", ForReading)
	require.Error(t, err)
	for _, shown := range []string{"hunter2pw", "localhost", "127.0.0.1", "::1"} {
		assert.NotContains(t, err.Error(), shown)
	}
	assert.Contains(t, err.Error(), ":1 (***): dial error: dial tcp ")
}

func TestPostgres_AReaderOfAnEmptyDatabaseSaysThereIsNoHistory(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	_, err := OpenPostgres(context.Background(), url, ForReading)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "holds no run history")
}

// pgURL is a new database of the package's server.
func pgURL(t *testing.T) string {
	t.Helper()
	return testutil.Postgres(t).NewDatabase(t)
}

func testutilPostgres(b *testing.B) string { return testutil.Postgres(b).NewDatabase(b) }

// A role that may read and insert but not create (PostgreSQL 15's
// default on public) writes every run once the schema is current: a
// writer that finds the schema up to date neither locks nor creates.
func TestPostgres_AWriterWithoutCreateWritesToACurrentSchema(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	ctx := context.Background()
	owner, err := OpenPostgres(ctx, url, ForWriting)
	require.NoError(t, err)
	role := fmt.Sprintf("writer_%d", time.Now().UnixNano())
	for _, sql := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"REVOKE CREATE ON SCHEMA public FROM PUBLIC",
		"GRANT USAGE ON SCHEMA public TO " + role,
		"GRANT SELECT, INSERT ON miles_ci_schema, miles_ci_attempts TO " + role,
	} {
		_, err := owner.conn.Exec(ctx, sql)
		require.NoError(t, err, sql)
	}
	require.NoError(t, owner.Close())

	limited, err := OpenPostgres(ctx, strings.Replace(url, "user=postgres", "user="+role, 1), ForWriting)
	require.NoError(t, err, "a current schema needs no CREATE")
	defer limited.Close()
	added, err := limited.Write(ctx, sampleRows())
	require.NoError(t, err)
	assert.Equal(t, 3, added)
}
