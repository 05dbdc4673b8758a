package history

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// The table a writer creates and the bytes it stores are pinned, so that
// a change to how the columns are declared cannot change either: the
// columns (name, type, nullability, default) in their order, the
// constraints and indexes, and every stored value of the sample rows,
// row_key (the digest of a row's identity) included, and a preflight's
// stop row (Row.Stopped) of the first run. Regenerate with
// UPDATE_GOLDEN=1 only for a new schema version.
func TestPostgres_SchemaAndStoredRowsStayAsPinned(t *testing.T) {
	p, url := openWriter(t)
	ctx := context.Background()
	rows := sampleRows()
	_, err := p.Write(ctx, append(rows, Row{Run: rows[0].Run, Status: report.NotRun, Stopped: true}))
	require.NoError(t, err)
	conn := sqlConn(t, url)
	execSQL(t, conn, `SET TimeZone = 'UTC'`)
	var b strings.Builder
	for _, q := range []string{
		`SELECT concat_ws(' ', column_name, data_type, is_nullable, column_default) FROM information_schema.columns
			WHERE table_name = 'miles_ci_attempts' ORDER BY ordinal_position`,
		`SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
			WHERE conrelid = 'miles_ci_attempts'::regclass ORDER BY conname`,
		`SELECT indexdef FROM pg_indexes WHERE tablename = 'miles_ci_attempts' ORDER BY indexname`,
		`SELECT (to_jsonb(a) - 'written_at')::text FROM miles_ci_attempts a ORDER BY row_key`,
	} {
		rows, err := conn.Query(ctx, q)
		require.NoError(t, err, q)
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			b.WriteString(line + "\n")
		}
		require.NoError(t, rows.Err())
		b.WriteString("\n")
	}
	path := filepath.Join("testdata", "postgres_stored.golden")
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run UPDATE_GOLDEN=1 go test ./internal/history")
	assert.Equal(t, string(want), b.String())
}
