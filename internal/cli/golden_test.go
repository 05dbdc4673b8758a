package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertGolden compares got with testdata/<dir>/<name>, or rewrites that
// file when UPDATE_GOLDEN is set (review the diff before committing it).
func assertGolden(t *testing.T, dir, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", dir, name)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file; run UPDATE_GOLDEN=1 go test ./internal/cli")
	assert.Equal(t, string(want), got, "golden file %s", path)
}
