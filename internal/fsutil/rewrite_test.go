package fsutil

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewrite_ReplacesAtomicallyKeepingTheMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "test_a.py")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o640))
	o, err := ReadForRewrite(path, 1<<20)
	require.NoError(t, err)
	assert.Equal(t, "old\n", string(o.Data))
	require.NoError(t, Rewrite(o, []byte("new\n")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(data))
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")
}

func TestRewrite_RefusesAFileChangedSinceItWasRead(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "test_a.py")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
	o, err := ReadForRewrite(path, 1<<20)
	require.NoError(t, err)
	// Same size, same modification time: only the text tells.
	require.NoError(t, os.WriteFile(path, []byte("edt\n"), 0o644))
	require.NoError(t, os.Chtimes(path, time.Time{}, o.Info.ModTime()))
	assert.ErrorIs(t, Rewrite(o, []byte("new\n")), ErrChanged)
	data, _ := os.ReadFile(path)
	assert.Equal(t, "edt\n", string(data))

	o, err = ReadForRewrite(path, 1<<20)
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.WriteFile(path, []byte("edt\n"), 0o644)) // another file
	assert.ErrorIs(t, Rewrite(o, []byte("new\n")), ErrChanged)
	entries, _ := os.ReadDir(dir)
	assert.Len(t, entries, 1, "no temporary file left")
}

func TestReadForRewrite_RefusesLinksReadOnlyAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.py")
	require.NoError(t, os.WriteFile(real, []byte("x\n"), 0o644))
	link := filepath.Join(dir, "link.py")
	require.NoError(t, os.Symlink("real.py", link))
	_, err := ReadForRewrite(link, 1<<20)
	assert.ErrorContains(t, err, "is a symbolic link")

	ro := filepath.Join(dir, "ro.py")
	require.NoError(t, os.WriteFile(ro, []byte("x\n"), 0o444))
	_, err = ReadForRewrite(ro, 1<<20)
	assert.ErrorContains(t, err, "is read-only")

	_, err = ReadForRewrite(dir, 1<<20)
	assert.ErrorContains(t, err, "directory")
	_, err = ReadForRewrite(filepath.Join(dir, "missing.py"), 1<<20)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

// The set-user-ID, set-group-ID and sticky bits survive the rewrite, as
// the permission bits do (they were dropped: only Perm() was kept).
func TestRewrite_KeepsTheSpecialModeBits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "test_a.py")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
	require.NoError(t, os.Chmod(path, 0o755|os.ModeSetuid|os.ModeSetgid|os.ModeSticky))
	before, err := os.Stat(path)
	require.NoError(t, err)
	require.NotZero(t, before.Mode()&os.ModeSetgid, "this system lets the test set set-group-ID")
	o, err := ReadForRewrite(path, 1<<20)
	require.NoError(t, err)
	require.NoError(t, Rewrite(o, []byte("new\n")))
	after, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, before.Mode(), after.Mode())
}

// A file with two names is refused and both keep their text: a rename
// would split them, a write in place would change the other name too.
func TestReadForRewrite_RefusesAHardLinkedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "test_a.py")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
	require.NoError(t, os.Link(path, filepath.Join(dir, "other.py")))
	_, err := ReadForRewrite(path, 1<<20)
	assert.EqualError(t, err, "has 2 hard links; refusing to rewrite it, which would split them or change the other names too (copy it over itself first to make it a file of its own)")
}

// Below a root, a path through a linked directory is refused: the file
// written would be elsewhere than its name says, maybe outside the root.
// A directory swapped for a link after the read stops the rename.
func TestReadForRewriteBelow_RefusesLinkedDirectories(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "tests", "e2e"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "test_v.py"), []byte("victim\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "tests", "linked")))
	_, err := ReadForRewriteBelow(root, "tests/linked/test_v.py", 1<<20)
	assert.EqualError(t, err, "its directory tests/linked is a symbolic link; refusing to rewrite through it (rewrite the file where it lies)")
	_, err = ReadForRewriteBelow(root, "../x.py", 1<<20)
	assert.Error(t, err)

	real := filepath.Join(root, "tests", "e2e", "test_a.py")
	require.NoError(t, os.WriteFile(real, []byte("old\n"), 0o644))
	o, err := ReadForRewriteBelow(root, "tests/e2e/test_a.py", 1<<20)
	require.NoError(t, err)
	require.NoError(t, os.Rename(filepath.Join(root, "tests", "e2e"), filepath.Join(root, "tests", "moved")))
	require.NoError(t, os.Symlink(filepath.Join(root, "tests", "moved"), filepath.Join(root, "tests", "e2e")))
	assert.ErrorContains(t, Rewrite(o, []byte("new\n")), "its directory tests/e2e is a symbolic link")
	data, _ := os.ReadFile(filepath.Join(root, "tests", "moved", "test_a.py"))
	assert.Equal(t, "old\n", string(data))
	entries, _ := os.ReadDir(filepath.Join(root, "tests", "moved"))
	assert.Len(t, entries, 1, "no temporary file left")
}
