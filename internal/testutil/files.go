package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes text to the file rel below dir, making the directories
// on the way, and returns its path.
func WriteFile(t testing.TB, dir, rel, text string) string {
	t.Helper()
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteTree writes files (path below root → contents) under root.
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		WriteFile(t, root, rel, text)
	}
}

// TempTree returns a new temporary directory holding files.
func TempTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	WriteTree(t, root, files)
	return root
}
