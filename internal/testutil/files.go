package testutil

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// WriteFile writes text to the file rel (slash-separated) below dir,
// making the directories on the way, and returns its path.
func WriteFile(t testing.TB, dir, rel, text string) string {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteTree makes files (slash-separated path below root → contents) under
// root. Two contents are no file's: "/" makes a directory, and "->target"
// a symbolic link to target.
func WriteTree(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		var err error
		switch target, link := strings.CutPrefix(text, "->"); {
		case text == "/":
			err = os.MkdirAll(path, 0o755)
		case link:
			if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
				err = os.Symlink(target, path)
			}
		default:
			WriteFile(t, root, rel, text)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// TempTree returns a new temporary directory holding files (see WriteTree).
func TempTree(t testing.TB, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	WriteTree(t, root, files)
	return root
}
