package fsutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A name that looks like a connection string is hidden only while it names
// nothing: a real file called postgres.json is still named in a message.
func TestShown_HidesOnlyAConnectionStringThatIsNoFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "postgres.json")
	require.NoError(t, os.WriteFile(real, nil, 0o644))
	for name, want := range map[string]string{
		"postgres://u:pw@db/x":         HiddenPath,
		"POSTGRESQL://u:pw@db/x":       HiddenPath,
		"host=db password=pw dbname=x": HiddenPath,
		"postgress-typo":               HiddenPath,
		real:                           `"` + real + `"`,
		"timings.json":                 `"timings.json"`,
		"dir/with \"quote\".json":      `"dir/with \"quote\".json"`,
	} {
		assert.Equal(t, want, Shown(name), name)
	}
}
