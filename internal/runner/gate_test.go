package runner

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRecordDir_KeyIsSanitizedNamePlusSHA1(t *testing.T) {
	tests := []struct{ file, key string }{
		// Expected keys computed with the Python runner's own functions.
		{"tests/e2e/test x.py", "tests_e2e_test_x.py-8aff62b06d"},
		{"tests/é/ü.py", "tests____.py-e7c4eaa0f3"}, // one '_' per character, not per byte
		{"a\nb", "a_b-fcd127ffa1"},
	}
	for _, tt := range tests {
		assert.Equal(t, filepath.Join("/base", tt.key, "attempt-2"), RecordDir("/base", tt.file, 2), tt.file)
	}
}

func TestMergeRecords_MatchesPythonBytes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "attempt-1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("b.jsonl", "{\"metric\": \"loss\", \"series\": [[3, 0.5], [1, 0.25]]}\r\n\n  {\"metric\":\"acc\",\"series\":[[null, 1], [2, 1E400]]}\n")
	write("a.jsonl", "{\"metric\": \"loss\", \"series\": [[2, 0.10], [null, 7], [1.5, -0]]}\n{\"metric\": \"\\u00e9t\\ud800\", \"series\": []}\n")
	write("c.json", `{"metric": "x", "series": [[1, 1]]}`+"\n")
	merged := dir + ".merged.jsonl"
	require.NoError(t, MergeRecords(dir, merged, noWarning(t)))
	got, err := os.ReadFile(merged)
	require.NoError(t, err)
	// The bytes Python's merge wrote for the same directory.
	want := "{\"metric\": \"loss\", \"series\": [[1, 0.25], [1.5, 0], [2, 0.1], [3, 0.5], [null, 7]]}\n" +
		"{\"metric\": \"\\u00e9t\\ud800\", \"series\": []}\n" +
		"{\"metric\": \"acc\", \"series\": [[2, Infinity], [null, 1]]}\n"
	assert.Equal(t, want, string(got))
}

func TestMergeRecords_Errors(t *testing.T) {
	tests := []struct{ name, text string }{
		{"not JSON", "{\"metric\": \"a\", \"series\": [[1, 2]]\n"},
		{"no series", "{\"metric\": \"a\"}\n"},
		{"steps that cannot be ordered", "{\"metric\": \"a\", \"series\": [[1, 2], [\"x\", 3]]}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "r.jsonl"), []byte(tt.text), 0o644))
			assert.Error(t, MergeRecords(dir, dir+".merged.jsonl", noWarning(t)))
		})
	}
}

func TestMergeRecords_MissingDirWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	require.NoError(t, MergeRecords(dir, dir+".merged.jsonl", noWarning(t)))
	assert.NoFileExists(t, dir+".merged.jsonl")
}

func noWarning(t *testing.T) func(string, string) {
	return func(name, reason string) { t.Errorf("unexpected warning for %s: %s", name, reason) }
}

// What a test leaves in its record directory cannot hang or crash the
// merge: a FIFO nobody writes to, an endless device, a directory, a dangling
// link and a file over the limit are each skipped with a warning, and the
// regular files are merged. A FIFO at the merged path is replaced.
func TestMergeRecords_SkipsWhatIsNotARegularFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "attempt-1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	at := func(name string) string { return filepath.Join(dir, name) }
	require.NoError(t, os.WriteFile(at("a.jsonl"), []byte(`{"metric": "loss", "series": [[1, 0.5]]}`+"\n"), 0o644))
	require.NoError(t, syscall.Mkfifo(at("b-fifo.jsonl"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", at("c-zero.jsonl")))
	require.NoError(t, os.Mkdir(at("d-dir.jsonl"), 0o755))
	require.NoError(t, os.Symlink(at("missing"), at("e-dangling.jsonl")))
	// A sparse file: over the limit without taking the disk space.
	require.NoError(t, os.WriteFile(at("f-huge.jsonl"), nil, 0o644))
	require.NoError(t, os.Truncate(at("f-huge.jsonl"), maxRecordBytes+1))
	require.NoError(t, os.Symlink(at("a.jsonl"), at("g-link.jsonl")))
	merged := dir + ".merged.jsonl"
	require.NoError(t, syscall.Mkfifo(merged, 0o644))

	warnings := map[string]string{}
	done := make(chan error, 1)
	go func() {
		done <- MergeRecords(dir, merged, func(name, reason string) { warnings[name] = reason })
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("MergeRecords hung")
	}
	assert.Equal(t, map[string]string{
		"b-fifo.jsonl":     "is a FIFO, not a regular file",
		"c-zero.jsonl":     "is a character device, not a regular file",
		"d-dir.jsonl":      "is a directory, not a regular file",
		"e-dangling.jsonl": "open: no such file or directory",
		"f-huge.jsonl":     "would take the records past their limit of 64 MiB",
	}, warnings)
	got, err := os.ReadFile(merged)
	require.NoError(t, err)
	// a.jsonl and the link to it.
	assert.Equal(t, `{"metric": "loss", "series": [[1, 0.5], [1, 0.5]]}`+"\n", string(got))
}

func TestMergeRecords_TheLimitCountsEveryFile(t *testing.T) {
	defer func(n int64) { maxRecordBytes = n }(maxRecordBytes)
	maxRecordBytes = 100
	dir := t.TempDir()
	line := `{"metric": "m", "series": [[1, 2]]}` + "\n"
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		data := []byte(line + strings.Repeat(" ", int(maxRecordBytes)/2+1-len(line)))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), data, 0o644))
	}
	var skipped []string
	require.NoError(t, MergeRecords(dir, dir+".merged.jsonl", func(name, _ string) { skipped = append(skipped, name) }))
	assert.Equal(t, []string{"b.jsonl"}, skipped)
	got, err := os.ReadFile(dir + ".merged.jsonl")
	require.NoError(t, err)
	assert.Equal(t, line, string(got))
}

func TestMergeRecords_ARecordDirThatIsAFIFOIsAnError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "attempt-1")
	require.NoError(t, syscall.Mkfifo(dir, 0o644))
	err := MergeRecords(dir, dir+".merged.jsonl", noWarning(t))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a directory")
}
