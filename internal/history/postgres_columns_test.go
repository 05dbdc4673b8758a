package history

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A column is one declaration: its definition, its place in the
// migrations and in each statement come from it.
func TestColumns_TheSchemaAndStatementsDeriveFromTheDeclarations(t *testing.T) {
	added := field("gpus", "integer", func(r *Row) **int { return nil }).addedIn(2)
	later := field("zone", "text", func(r *Row) *string { return &r.Hostname }).orDefault("''").addedIn(2)
	cols := []column{
		written("row_key", "bytea", func(k keyedRow) []byte { return k.key }),
		field("suite", "text", func(r *Row) *string { return &r.Suite }).inKey().forTimings(),
		field("pr", "bigint", func(r *Row) **int { return &r.PR }),
		{name: "written_at", sqlType: "timestamptz", def: "now()"},
		added, later,
	}
	for _, tc := range []struct {
		name string
		got  any
		want any
	}{
		{"a Go value is NOT NULL", cols[1].definition(), "suite text NOT NULL"},
		{"a pointer is nullable", cols[2].definition(), "pr bigint"},
		{"a default", cols[3].definition(), "written_at timestamptz NOT NULL DEFAULT now()"},
		{"the first version creates its columns", strings.Split(migrationsOf(cols, 2)[0], "\n")[:6], []string{
			"CREATE TABLE miles_ci_attempts (",
			"\trow_key bytea NOT NULL,",
			"\tsuite text NOT NULL,",
			"\tpr bigint,",
			"\twritten_at timestamptz NOT NULL DEFAULT now(),",
			"\tCONSTRAINT miles_ci_attempts_row_key UNIQUE (row_key)",
		}},
		{"a later version adds its columns", migrationsOf(cols, 2)[1],
			"ALTER TABLE miles_ci_attempts ADD COLUMN gpus integer;\n" +
				"ALTER TABLE miles_ci_attempts ADD COLUMN zone text NOT NULL DEFAULT '';\n"},
		{"a server-filled column is neither written nor read", []bool{cols[3].values == nil, cols[3].dest == nil}, []bool{true, true}},
		{"a derived column is written, not read", []bool{cols[0].values != nil, cols[0].dest == nil}, []bool{true, true}},
		{"the table's column list", names(cols), "row_key, suite, pr, written_at, gpus, zone"},
	} {
		assert.Equal(t, tc.want, tc.got, tc.name)
	}
}

// An older miles-ci keeps writing to a newer schema: a column a later
// version adds takes NULL or has a default, and every version's
// migration exists.
func TestColumns_ALaterColumnNeverStopsAnOlderWriter(t *testing.T) {
	for _, c := range columns {
		assert.LessOrEqual(t, c.since, SchemaVersion, "column %s: added in a version past SchemaVersion", c.name)
		if c.since > 1 {
			assert.True(t, c.null || c.def != "", "column %s: added in version %d NOT NULL without a default", c.name, c.since)
		}
	}
	for v, m := range migrations {
		assert.NotEmpty(t, m, "version %d has no migration", v+1)
	}
}

// A row's key spells each identity column as the digest always has: a
// text as it is, a number in decimal, a time as a report's "started".
func TestColumns_AKeyColumnSpellsItsValue(t *testing.T) {
	rows := sampleRows()
	var got []string
	for _, c := range keyColumns {
		got = append(got, c.text(&rows[0]))
	}
	assert.Equal(t, []string{"radixark/miles", "991", "1", "gpu", "2026-12-01T08:03:01.123Z", "stage-b", "cuda", "1", "4",
		"tests/a.py", "1"}, got)
}
