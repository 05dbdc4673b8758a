package registry

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A directory big enough to fill the listing buffer many times over, with
// names of several lengths, lists exactly what os.ReadDir lists. (Reading
// a record as a syscall.Dirent, 280 bytes, read past a full buffer's end:
// TestSignal_EndsACommandBlockedInTheKernel caught it under -race.)
func TestListDir_ListsWhatReadDirLists(t *testing.T) {
	dir := t.TempDir()
	for i := range 2000 {
		// Short names, as in a generated tree, fill the buffer to its last
		// bytes; a few long ones vary the record sizes.
		name := fmt.Sprintf("test_%04d.py", i)
		if i%100 == 99 {
			name = fmt.Sprintf("test_%d_%s.py", i, strings.Repeat("x", i%200))
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), nil, 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, os.Symlink("sub", filepath.Join(dir, "link")))

	want := map[string]fs.FileMode{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		want[e.Name()] = e.Type()
	}
	got := map[string]fs.FileMode{}
	var order []string
	require.NoError(t, listDir(dir, make([]byte, 8<<10), func(name string, typ fs.FileMode) error {
		got[name] = typ
		order = append(order, name)
		return nil
	}))
	assert.Equal(t, want, got)
	assert.Len(t, order, len(want), "a name listed twice")
}

func TestListDir_MissingDirectoryIsAPathError(t *testing.T) {
	err := listDir(filepath.Join(t.TempDir(), "gone"), make([]byte, 8<<10), func(string, fs.FileMode) error { return nil })
	var pe *fs.PathError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
