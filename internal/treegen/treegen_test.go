package treegen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readAll(t *testing.T, dir string, files []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		require.NoError(t, err)
		out[f] = string(b)
	}
	return out
}

func TestWrite_SameSeedSameTree(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	sa, err := Write(a, 200, 42)
	require.NoError(t, err)
	sb, err := Write(b, 200, 42)
	require.NoError(t, err)
	assert.Equal(t, sa, sb)
	assert.Equal(t, readAll(t, a, sa.Files), readAll(t, b, sb.Files))

	sc, err := Write(t.TempDir(), 200, 43)
	require.NoError(t, err)
	assert.NotEqual(t, sa.Files, sc.Files)
}

func TestWrite_FilesLookLikeMilesTests(t *testing.T) {
	dir := t.TempDir()
	sum, err := Write(dir, 500, 1)
	require.NoError(t, err)
	require.Len(t, sum.Files, 500)
	roots := map[string]int{}
	calls := 0
	for f, text := range readAll(t, dir, sum.Files) {
		assert.GreaterOrEqual(t, len(text), 2*1024, f)
		assert.LessOrEqual(t, len(text), 8*1024, f)
		roots[strings.Join(strings.Split(f, "/")[:2], "/")]++
		if strings.HasPrefix(f, "tests/fast/") && !strings.Contains(text, "register_cpu_ci") {
			assert.NotContains(t, text, "register_cuda_ci", "an implicit file must not mention the register functions")
		}
		// Lines starting with a register call, less the one in the docstring.
		calls += strings.Count(text, "\nregister_") - strings.Count(text, "\nregister_cuda_ci(est_time=1, suite=\"x\") inside")
	}
	for _, r := range []string{"tests/fast", "tests/fast-gpu", "tests/e2e", "tests/ci"} {
		assert.Greater(t, roots[r], 10, r)
	}
	assert.Equal(t, sum.Registrations, calls+sum.Implicit)
	assert.Greater(t, sum.Implicit, 10)
}
