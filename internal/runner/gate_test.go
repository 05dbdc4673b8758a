package runner

import (
	"os"
	"path/filepath"
	"testing"

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
	require.NoError(t, MergeRecords(dir, merged))
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
			assert.Error(t, MergeRecords(dir, dir+".merged.jsonl"))
		})
	}
}

func TestMergeRecords_MissingDirWritesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent")
	require.NoError(t, MergeRecords(dir, dir+".merged.jsonl"))
	assert.NoFileExists(t, dir+".merged.jsonl")
}
