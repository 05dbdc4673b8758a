//go:build unix

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCreateNew_WritesANewFileAndLeavesNoTemporaryOne(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new.yaml")
	require.NoError(t, CreateNew(p, []byte("a: 1\n")))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, "a: 1\n", string(b))
	assert.Equal(t, []string{"new.yaml"}, entries(t, dir))
}

func TestCreateNew_ReplacesNothing(t *testing.T) {
	for name, make := range map[string]func(t *testing.T, p string){
		"a file":          func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, []byte("mine\n"), 0o644)) },
		"a directory":     func(t *testing.T, p string) { require.NoError(t, os.Mkdir(p, 0o755)) },
		"a dangling link": func(t *testing.T, p string) { require.NoError(t, os.Symlink("gone", p)) },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "x.yaml")
			make(t, p)
			before := entries(t, dir)
			err := CreateNew(p, []byte("theirs\n"))
			assert.True(t, errors.Is(err, fs.ErrExist), "%v", err)
			assert.Equal(t, before, entries(t, dir), "no temporary file is left")
			if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
				b, _ := os.ReadFile(p)
				assert.Equal(t, "mine\n", string(b))
			}
		})
	}
}

func TestCreateNew_AMissingDirectoryIsAnError(t *testing.T) {
	err := CreateNew(filepath.Join(t.TempDir(), "no", "x.yaml"), nil)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}
