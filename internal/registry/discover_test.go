package registry

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
)

func symlink(t *testing.T, target, name string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
	require.NoError(t, os.Symlink(target, name))
}

func TestDiscover_SortsTheUnionOfRootsByBytes(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/test_b.py":            "",
		"tests/e2e/sub/deeper/test_a.py": "",
		"tests/fast/test_z.py":           "",
		"tests/fast-gpu/test_m.py":       "",
		"tests/ci/test_ci.py":            "",
		"tests/ci/helper.py":             "",
		"tests/ci/test_data.json":        "",
		"tests/other/test_not_a_root.py": "",
		"tests/e2e/Test_upper.py":        "",
		"tests/e2e/test_é.py":            "",
	})
	got, err := Discover(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{
		"tests/ci/test_ci.py",
		"tests/e2e/sub/deeper/test_a.py",
		"tests/e2e/test_b.py",
		"tests/e2e/test_é.py",
		"tests/fast-gpu/test_m.py",
		"tests/fast/test_z.py",
	}, got)
}

func TestDiscover_MissingRootsFindNothing(t *testing.T) {
	got, err := Discover(t.TempDir(), config.Default())
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestDiscover_OverlappingRootsListAFileOnce(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/test_a.py": "", "tests/test_b.py": ""})
	cfg := config.Default()
	cfg.Roots = []string{"tests/e2e", "tests", "./tests/e2e/"}
	got, err := Discover(dir, cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_a.py", "tests/test_b.py"}, got)
}

func TestDiscover_SkipsHiddenDirectoriesAndFiles(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/.cache/test_hidden.py":       "",
		"tests/fast/.venv/lib/test_vendored.py": "",
		"tests/e2e/visible/test_ok.py":          "",
	})
	cfg := config.Default()
	got, err := Discover(dir, cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/visible/test_ok.py"}, got)

	// A pattern that would match a dot-file still does not list it.
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/.test_dot.py": ""})
	cfg.Pattern = "**/*test_*.py"
	got, err = Discover(dir, cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/visible/test_ok.py"}, got)
}

func TestDiscover_SymlinksToFilesAreListedToDirectoriesNotFollowed(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"elsewhere/test_outside.py": "",
		"elsewhere/real.py":         "",
		"tests/e2e/test_real.py":    "",
	})
	symlink(t, filepath.Join(dir, "elsewhere"), filepath.Join(dir, "tests/e2e/linked_dir"))
	symlink(t, filepath.Join(dir, "elsewhere"), filepath.Join(dir, "tests/e2e/test_dir_named_like_a_test.py"))
	symlink(t, "../../elsewhere/real.py", filepath.Join(dir, "tests/e2e/test_linked_file.py"))
	got, err := Discover(dir, config.Default())
	require.NoError(t, err)
	// The link to a directory named like a test is listed (collecting it is
	// an error), but not followed.
	assert.Equal(t, []string{"tests/e2e/test_dir_named_like_a_test.py", "tests/e2e/test_linked_file.py", "tests/e2e/test_real.py"}, got)
}

func TestDiscover_SymlinkLoopBelowARootDoesNotHang(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/sub/test_a.py": ""})
	symlink(t, "..", filepath.Join(dir, "tests/e2e/sub/up"))
	symlink(t, "loop", filepath.Join(dir, "tests/e2e/loop"))
	got, err := Discover(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/sub/test_a.py"}, got)
}

func TestDiscover_UnresolvableMatchingSymlinkIsListedForReadingToReport(t *testing.T) {
	dir := t.TempDir()
	symlink(t, "test_loop.py", filepath.Join(dir, "tests/e2e/test_loop.py"))
	symlink(t, "missing.py", filepath.Join(dir, "tests/e2e/test_dangling.py"))
	got, err := Discover(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_dangling.py", "tests/e2e/test_loop.py"}, got)
}

func TestDiscover_DirectoryNamedLikeATestIsListedAndWalked(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/test_pkg.py/test_inner.py": ""})
	got, kinds, err := discover(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_pkg.py", "tests/e2e/test_pkg.py/test_inner.py"}, got)
	assert.Equal(t, map[string]entryKind{"tests/e2e/test_pkg.py": entryDir}, kinds)
}

func TestDiscover_OrdinaryTreeHasNoKinds(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/test_a.py": "", "tests/e2e/sub/test_b.py": ""})
	_, kinds, err := discover(dir, config.Default())
	require.NoError(t, err)
	assert.Nil(t, kinds)
}

func TestDiscover_RootThatIsAFileFindsNothingThere(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e": "not a directory", "tests/fast/test_a.py": "", "tests/ci/test_b.py/x": ""})
	cfg := config.Default()
	cfg.Roots = append(cfg.Roots, "tests/ci/test_b.py/x/deeper", "tests/fast/test_a.py")
	got, err := Discover(dir, cfg)
	require.NoError(t, err)
	// tests/ci/test_b.py is a directory found below the tests/ci root.
	assert.Equal(t, []string{"tests/ci/test_b.py", "tests/fast/test_a.py"}, got)
}

func TestDiscover_RootThatIsASymlinkToADirectoryIsWalked(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"real/test_a.py": ""})
	symlink(t, "../real", filepath.Join(dir, "tests/e2e"))
	got, err := Discover(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_a.py"}, got)
}

func TestDiscover_RootThatIsASymlinkLoopIsAnError(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests"), 0o755))
	symlink(t, "e2e", filepath.Join(dir, "tests/e2e"))
	_, err := Discover(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{"tests/e2e: cannot read discovery root: too many levels of symbolic links"}, errs.Lines())
}

func TestDiscover_UnreadableDirectoryIsAnErrorNamingIt(t *testing.T) {
	if !testutil.RunAsNonRoot(t) {
		return // root reads every directory
	}
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/locked/test_a.py": "", "tests/e2e/test_b.py": "", "tests/e2e/\n::error::x/test_c.py": ""})
	for _, name := range []string{"locked", "\n::error::x"} {
		locked := filepath.Join(dir, "tests/e2e", name)
		require.NoError(t, os.Chmod(locked, 0o000))
		t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	}
	_, err := Discover(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{
		`"tests/e2e/\n::error::x": cannot read directory: permission denied`,
		"tests/e2e/locked: cannot read directory: permission denied",
	}, errs.Lines())
}

// A discovery root that a committed link leads out of the repository is an
// error naming it, not a walk of whatever lies there; a link that stays
// inside is followed as before.
func TestDiscover_RootLinkedOutsideTheRepositoryIsAnError(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	testutil.WriteTree(t, outside, map[string]string{"test_elsewhere.py": ""})
	testutil.WriteTree(t, dir, map[string]string{"real/test_inside.py": "", "tests/fast/test_a.py": ""})
	symlink(t, outside, filepath.Join(dir, "tests/e2e"))
	symlink(t, "../real", filepath.Join(dir, "tests/ci"))
	_, err := Discover(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{"tests/e2e: discovery root leads outside the repository through a link"}, errs.Lines())

	require.NoError(t, os.Remove(filepath.Join(dir, "tests/e2e")))
	got, err := Discover(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/ci/test_inside.py", "tests/fast/test_a.py"}, got)
}
