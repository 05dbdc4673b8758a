//go:build unix

package registry

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
)

// Entries that Python's glob matches although they are no regular files:
// FIFOs, devices and directories (see Discover).

func TestDiscover_KindsOfMatchingEntriesThatAreNoFiles(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/test_file.py": "", "elsewhere/test_x.py": ""})
	symlink(t, "/dev/null", filepath.Join(dir, "tests/e2e/test_null.py"))
	symlink(t, "../../elsewhere", filepath.Join(dir, "tests/e2e/test_linked_dir.py"))
	symlink(t, "missing", filepath.Join(dir, "tests/e2e/test_dangling.py"))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "tests/e2e/test_fifo.py"), 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "tests/e2e/not_a_test_fifo"), 0o644))
	got, kinds, err := discover(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_dangling.py", "tests/e2e/test_fifo.py", "tests/e2e/test_file.py", "tests/e2e/test_linked_dir.py", "tests/e2e/test_null.py"}, got)
	assert.Equal(t, map[string]entryKind{
		"tests/e2e/test_fifo.py":       entrySpecial,
		"tests/e2e/test_linked_dir.py": entryDir,
		"tests/e2e/test_null.py":       entrySpecial,
	}, kinds)
}

func TestCollect_MatchingEntriesThatAreNoFiles(t *testing.T) {
	cases := []struct {
		name  string
		make  func(t *testing.T, path string)
		file  string
		lines []string // the errors, or nil when collection succeeds
		regs  int
	}{
		{"a symlink to /dev/null reads as empty", func(t *testing.T, p string) { symlink(t, "/dev/null", p) },
			"tests/e2e/test_a.py", []string{"No CI registry found in tests/e2e/test_a.py"}, 0},
		{"a FIFO is not opened and reads as empty", mkfifo,
			"tests/e2e/test_a.py", []string{"No CI registry found in tests/e2e/test_a.py"}, 0},
		{"a symlink to /dev/null under the implicit CPU root", func(t *testing.T, p string) { symlink(t, "/dev/null", p) },
			"tests/fast/test_a.py", nil, 1},
		{"a FIFO under the implicit CPU root", mkfifo, "tests/fast/test_a.py", nil, 1},
		{"a directory named like a test", func(t *testing.T, p string) { testutil.WriteTree(t, p, map[string]string{"inner.txt": ""}) },
			"tests/e2e/test_a.py", []string{"tests/e2e/test_a.py: is a directory, not a test file"}, 0},
		{"a symlink to a directory named like a test", func(t *testing.T, p string) { symlink(t, "..", p) },
			"tests/e2e/test_a.py", []string{"tests/e2e/test_a.py: is a directory, not a test file"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteTree(t, dir, map[string]string{"tests/e2e/test_z.py": "register_cpu_ci(1, 'stage-b-cpu')\n"})
			tc.make(t, filepath.Join(dir, filepath.FromSlash(tc.file)))
			reg, err := Collect(dir, config.Default())
			if tc.lines != nil {
				var errs Errors
				require.ErrorAs(t, err, &errs)
				assert.Equal(t, tc.lines, errs.Lines())
				return
			}
			require.NoError(t, err)
			assert.Len(t, reg.Registrations, tc.regs+1)
			assert.Contains(t, reg.Files, tc.file)
		})
	}
}

func TestCollect_DirectoryNamedLikeATestFailsAtItsPlaceAndIsStillWalked(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/test_a.py":            "x = 1\n",
		"tests/e2e/test_b.py/test_in.py": "x = 1\n",
		"tests/e2e/test_c.py":            "register_cpu_ci(1, 'stage-b-cpu')\n",
	})
	_, err := Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{
		"No CI registry found in tests/e2e/test_a.py",
		"tests/e2e/test_b.py: is a directory, not a test file",
		"No CI registry found in tests/e2e/test_b.py/test_in.py",
	}, errs.Lines())
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, syscall.Mkfifo(path, 0o644))
}
