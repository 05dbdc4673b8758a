package history

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// benchRows is how many rows BenchmarkPostgresTimings loads:
// MILES_CI_BENCH_HISTORY_ROWS, or 100,000 (`make bench` runs every
// benchmark once; .ci/bench-history measures a million rows and the
// process's peak memory).
func benchRows(b *testing.B) int {
	if v := os.Getenv("MILES_CI_BENCH_HISTORY_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err)
		return n
	}
	return 100_000
}

// BenchmarkPostgresTimings answers history timings from a database of
// benchRows rows of 300 files, every 17th attempt failed.
func BenchmarkPostgresTimings(b *testing.B) {
	url := testutilPostgres(b)
	ctx := context.Background()
	p, err := OpenPostgres(ctx, url, ForWriting)
	require.NoError(b, err)
	defer p.Close()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(b, err)
	defer conn.Close(ctx)
	// Each row_key is a digest of the row's number: unique, as Row.key is.
	_, err = conn.Exec(ctx, `INSERT INTO miles_ci_attempts (row_key, repository, workflow, run_id, run_attempt, job, event, sha,
		cadence, started, suite, backend, shard_id, shard_size, run_key, file, attempt, status, cause, elapsed, est_time,
		timeout, runner, hostname)
		SELECT sha256(convert_to(g::text, 'UTF8')), 'radixark/miles', 'PR Test', (g / 300)::text, '1', 'gpu', 'pull_request', 'sha', 'regular',
			timestamptz '2026-01-01 00:00:00+00' + (g / 300) * interval '10 minutes', 'stage-c', 'cuda', g % 4, 4,
			'gh' || chr(31) || 'radixark/miles' || chr(31) || (g / 300)::text || chr(31) || '1',
			'tests/e2e/test_' || (g % 300) || '.py', 1, CASE WHEN g % 17 = 0 THEN 'FAIL' ELSE 'PASS' END, '',
			60 + (g % 300) * 2 + random() * 30, 600, 1800, 'runner', 'host'
		FROM generate_series(0, $1::int - 1) AS g`, benchRows(b))
	require.NoError(b, err)
	for _, tc := range []struct {
		name   string
		filter Filter
	}{
		{"all", TimingsFilter(Filter{})},
		{"last100", TimingsFilter(Filter{LastRuns: 100})},
		{"every-column", Filter{Statuses: TimingsFilter(Filter{}).Statuses}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				a := &TimingsAnswer{}
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
				require.NoError(b, p.Scan(ctx, tc.filter, a.Add))
				cancel()
				require.Len(b, a.Files(), 300)
			}
		})
	}
}
