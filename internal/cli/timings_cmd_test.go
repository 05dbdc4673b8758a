package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimingsMerge_LaterFileWinsAndOutputIsSorted(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	b := filepath.Join(dir, "b.json")
	require.NoError(t, os.WriteFile(a, []byte(`{"version": 1, "timings": {"tests/e2e/test_z.py": 10, "tests/e2e/test_a.py": 1.5}}`), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(`{"version": 1, "timings": {"tests/e2e/test_a.py": 2}}`), 0o644))

	f, out, errOut := suitesFactory(dir, nil)
	code := Main([]string{"timings", "merge", a, b}, f)
	require.Equal(t, 0, code, errOut.String())
	assert.Equal(t, "{\n  \"version\": 1,\n  \"timings\": {\n    \"tests/e2e/test_a.py\": 2,\n    \"tests/e2e/test_z.py\": 10\n  }\n}\n", out.String())

	merged := filepath.Join(dir, "merged.json")
	f, out, errOut = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"timings", "merge", "-o", merged, b, a}, f), errOut.String())
	assert.Empty(t, out.String())
	data, err := os.ReadFile(merged)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"tests/e2e/test_a.py": 1.5`, "a, given last, wins")
}

func TestTimingsMerge_BadFileIsOneLineErrorNamingIt(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version": 2, "timings": {}}`), 0o644))
	f, out, errOut := suitesFactory(dir, nil)
	assert.Equal(t, 1, Main([]string{"timings", "merge", bad}, f))
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), `read timings "`+bad+`"`)

	f, _, errOut = suitesFactory(dir, nil)
	assert.Equal(t, 2, Main([]string{"timings", "merge"}, f), "no input is a usage error")
	assert.Contains(t, errOut.String(), "requires at least 1 arg")
}
