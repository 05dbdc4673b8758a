package filerun

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

func TestDiscover_WalksHiddenDirectoriesAndListsOnlyTestFiles(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"tests/fast/test_a.py":             "",
		"tests/fast/.hidden/test_b.py":     "",
		"tests/fast/sub/helper.py":         "",
		"tests/fast/sub/test_c.txt":        "",
		"tests/fast/test_dir.py/test_d.py": "",
		"tests/e2e/x/test_e.py":            "",
		"tests/e2e/x/conftest.py":          "->../../fast/test_a.py",
		"tests/ci/test/test_f.py":          "",
		"tests/other/test_g.py":            "",
	})
	files, notRegular, err := Discover(root, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{
		"tests/ci/test/test_f.py",
		"tests/e2e/x/test_e.py",
		"tests/fast/.hidden/test_b.py",
		"tests/fast/test_a.py",
		"tests/fast/test_dir.py/test_d.py",
	}, files, "a link to a file not named like a test is ignored; a directory named like one is walked")
	assert.Empty(t, notRegular)
}

func TestDiscover_RefusesSymbolicLinksWithTheScriptsMessages(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"symlinked tests root", map[string]string{"payload/fast/test_a.py": "", "tests": "->payload"},
			"CI discovery path must not be a symlink: tests"},
		{"symlinked discovery root", map[string]string{"payload/test_a.py": "", "tests/fast-gpu": "->../payload"},
			"CI discovery path must not be a symlink: tests/fast-gpu"},
		{"symlinked directory, even empty", map[string]string{"empty/": "/", "tests/e2e/x/link": "->../../../empty"},
			"CI test directory must not be a symlink: tests/e2e/x/link"},
		{"dangling link named like a test", map[string]string{"tests/e2e/test_gone.py": "->nowhere.py"},
			"CI test file must not be a symlink: tests/e2e/test_gone.py"},
		{"symlinked test file", map[string]string{"payload.py": "", "tests/fast/test_payload.py": "->../../payload.py"},
			"CI test file must not be a symlink: tests/fast/test_payload.py"},
		{"link loop named like a test", map[string]string{"tests/ci/test_loop.py": "->test_loop.py"},
			"CI test file must not be a symlink: tests/ci/test_loop.py"},
		{"first root's walk before the next root's components", map[string]string{
			"tests/fast/test_x.py": "->y", "payload/": "/", "tests/e2e": "->../payload"},
			"CI test file must not be a symlink: tests/fast/test_x.py"},
		{"a directory's subdirectories before its files", map[string]string{
			"tests/e2e/test_x.py": "->y", "empty/": "/", "tests/e2e/z": "->../../empty"},
			"CI test directory must not be a symlink: tests/e2e/z"},
		{"a directory before its subdirectories", map[string]string{
			"tests/e2e/test_x.py": "->y", "empty/": "/", "tests/e2e/a/b/link": "->../../../../empty"},
			"CI test file must not be a symlink: tests/e2e/test_x.py"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Discover(testutil.TempTree(t, tc.files), config.Default())
			var fe *Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.want, fe.Msg)
		})
	}
}

func TestDiscover_MissingRootsAndARootThatIsAFileListNothing(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{"tests/e2e": "not a directory", "tests/ci/test_a.py": ""})
	files, _, err := Discover(root, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/ci/test_a.py"}, files)
}

func TestDiscover_AFIFOIsListedAsNotRegular(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{"tests/fast/test_a.py": ""})
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "tests/fast/test_fifo.py"), 0o644))
	files, notRegular, err := Discover(root, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/fast/test_a.py", "tests/fast/test_fifo.py"}, files)
	assert.Equal(t, map[string]bool{"tests/fast/test_fifo.py": true}, notRegular)

	reg, err := Collect(root, config.Default())
	require.NoError(t, err, "the FIFO is read as an empty file, never opened")
	assert.Len(t, reg.Registrations, 2)
}

func TestDiscover_AnUnreadableDirectoryIsAnError(t *testing.T) {
	if !testutil.RunAsNonRoot(t) {
		return // root reads every directory
	}
	root := testutil.TempTree(t, map[string]string{"tests/e2e/locked/test_a.py": ""})
	locked := filepath.Join(root, "tests/e2e/locked")
	require.NoError(t, os.Chmod(locked, 0))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	_, _, err := Discover(root, config.Default())
	assert.EqualError(t, err, "cannot read CI test directory tests/e2e/locked: permission denied")
}

func TestCollect_AppliesTheCollectorsRules(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"tests/fast/.cache/test_implicit.py": "def test_x(): pass\n",
		"tests/e2e/test_gpu.py":              "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h100', labels=['megatron'])\n",
	})
	reg, err := Collect(root, config.Default())
	require.NoError(t, err)
	require.Len(t, reg.Registrations, 2)
	assert.Equal(t, "tests/e2e/test_gpu.py", reg.Registrations[0].File)
	assert.True(t, reg.Registrations[1].Implicit, "a hidden tests/fast file with no call is an implicit CPU test")

	root = testutil.TempTree(t, map[string]string{"tests/e2e/test_none.py": "x = 1\n"})
	_, err = Collect(root, config.Default())
	assert.EqualError(t, err, "No CI registry found in tests/e2e/test_none.py")
}
