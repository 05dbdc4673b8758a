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
