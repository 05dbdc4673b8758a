//go:build unix

package fsutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// appendLine is one writer's read-modify-write of a shared file: read the
// lines, add one, replace the file.
func appendLine(path, line string) error {
	l, err := Acquire(path)
	if err != nil {
		return err
	}
	defer l.Release()
	data, err := ReadRegular(path, 1<<20)
	if err != nil {
		return err
	}
	return WriteFile(path, append(data, line+"\n"...))
}

// Ten writers, each with its own descriptors, update one file (through a
// link, as a shared-disk path may be) many times each; every line must
// survive.
func TestAcquire_ConcurrentWritersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "link.txt")
	require.NoError(t, os.Symlink("shared.txt", path))
	const writers, rounds = 10, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				errs <- appendLine(path, strings.Repeat("w", w+1)+strings.Repeat("r", r+1))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	assert.Len(t, lines, writers*rounds)
	seen := map[string]bool{}
	for _, l := range lines {
		seen[l] = true
	}
	assert.Len(t, seen, writers*rounds, "every line once")
	assert.ElementsMatch(t, []string{"link.txt", "shared.txt"}, entries(t, dir))
}

func TestAcquire_ReleaseRemovesAnEmptyFileItCreated(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.json")
	l, err := Acquire(path)
	require.NoError(t, err)
	assert.True(t, l.Created)
	require.NoError(t, l.Release())
	assert.Empty(t, entries(t, dir))

	require.NoError(t, os.WriteFile(path, nil, 0o644))
	l, err = Acquire(path)
	require.NoError(t, err)
	assert.False(t, l.Created)
	require.NoError(t, l.Release())
	assert.Equal(t, []string{"t.json"}, entries(t, dir), "an empty file the user made stays")
}

func TestAcquire_NonRegularFileIsNotLocked(t *testing.T) {
	l, err := Acquire("/dev/null")
	require.NoError(t, err)
	require.NoError(t, l.Release())
}

func TestAcquire_MissingDirectoryIsAnErrorNotAWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "t.json")
	done := make(chan error, 1)
	go func() { _, err := Acquire(path); done <- err }()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, fs.ErrNotExist)
	case <-time.After(10 * time.Second):
		t.Fatal("Acquire looped on a missing directory")
	}
}
