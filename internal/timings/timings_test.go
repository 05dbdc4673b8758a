package timings

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

func TestParse_Accepts(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want Timings
	}{
		{"files and seconds", `{"version": 1, "timings": {"a.py": 12.5, "b/c.py": 0}}`, Timings{"a.py": 12.5, "b/c.py": 0}},
		{"no files", `{"version": 1, "timings": {}}`, Timings{}},
		{"other keys are ignored", `{"version": 1, "timings": {"a": 1}, "note": "x"}`, Timings{"a": 1}},
		{"integers", `{"version": 1, "timings": {"a": 3}}`, Timings{"a": 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.doc))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParse_RejectsWithTheProblem(t *testing.T) {
	tests := []struct {
		doc  string
		want string
	}{
		{`{"version": 1,`, "invalid JSON: unexpected end of JSON input"},
		{``, "invalid JSON: unexpected end of JSON input"},
		{`[1]`, `the document is a JSON array; expected an object {"version": 1, "timings": {...}}`},
		{`{"timings": {}}`, `no "version"; expected {"version": 1, "timings": {...}}`},
		{`{"version": 2, "timings": {}}`, "unsupported version 2; expected 1"},
		{`{"version": "1"}`, `"version" is a JSON string; expected 1`},
		{`{"version": 1}`, `no "timings"; expected {"version": 1, "timings": {...}}`},
		{`{"version": 1, "Timings": {"a": 1}}`, `no "timings"; expected {"version": 1, "timings": {...}}`},
		{`{"VERSION": 1, "timings": {"a": 1}}`, `no "version"; expected {"version": 1, "timings": {...}}`},
		{`{"version": 1, "timings": null}`, `"timings" is null; expected an object of file: seconds`},
		{`{"version": 1, "timings": [1]}`, `"timings" is a JSON array; expected an object of file: seconds`},
		{`{"version": 1, "timings": {"a": -0.5}}`, `timing of "a" is negative (-0.5); expected seconds >= 0`},
		{`{"version": 1, "timings": {"a": null}}`, `timing of "a" is null; expected seconds`},
		{`{"version": 1, "timings": {"a": "12"}}`, `timing of "a" is a JSON string; expected seconds`},
		{`{"version": 1, "timings": {"a": 1e999}}`, `timing of "a" is 1e999; expected finite seconds`},
		{`{"version": 1, "timings": {"b": -1, "a": true}}`, `timing of "a" is a JSON bool; expected seconds`},
		{`{"version": 1, "timings": {"a": NaN}}`, "invalid JSON: invalid character 'N' looking for beginning of value"},
		// No run measures more than a workflow run lasts; 9.2e18 s made
		// apply write an est_time that wrapped negative.
		{`{"version": 1, "timings": {"a": 9.2e18}}`, `timing of "a" is 9.2e+18 seconds, more than the 3024000 (35 days) a workflow run may last; expected measured seconds`},
		{`{"version": 1, "timings": {"a": 3024000.5}}`, `timing of "a" is 3.0240005e+06 seconds, more than the 3024000 (35 days) a workflow run may last; expected measured seconds`},
		// A file is named as the registry names it: below the root.
		{`{"version": 1, "timings": {"../outside/victim.py": 1}}`, `timing of "../outside/victim.py": the file is not a path relative to the repository root ('/'-separated, no '.', '..' or empty part), as the registry names test files`},
		{`{"version": 1, "timings": {"/etc/passwd": 1}}`, `timing of "/etc/passwd": the file is not a path relative to the repository root ('/'-separated, no '.', '..' or empty part), as the registry names test files`},
		{`{"version": 1, "timings": {"tests//a.py": 1}}`, `timing of "tests//a.py": the file is not a path relative to the repository root ('/'-separated, no '.', '..' or empty part), as the registry names test files`},
		{`{"version": 1, "timings": {"a": 1}, "measured_in": {"b": {"suite": "s", "backend": "cuda"}}}`, `"measured_in" names "b", which has no timing`},
		{`{"version": 1, "timings": {"a": 1}, "measured_in": {"a": "s"}}`, `"measured_in" of "a" is "s"; expected {"suite": "SUITE", "backend": "cpu|cuda|rocm"}`},
		{`{"version": 1, "timings": {"a": 1}, "measured_in": {"a": {"suite": "s", "backend": "tpu"}}}`, `"measured_in" of "a" has backend "tpu"; expected cpu, cuda or rocm`},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			require.EqualError(t, err, tt.want)
		})
	}
}

func TestRead_NamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version": 3}`), 0o644))

	_, err := Read(bad)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, bad, te.Path)
	assert.EqualError(t, err, `read timings "`+bad+`": unsupported version 3; expected 1`)

	missing := filepath.Join(dir, "missing.json")
	_, err = Read(missing)
	assert.EqualError(t, err, `read timings "`+missing+`": open: no such file or directory`)
}

func TestMarshal_RoundTripsSorted(t *testing.T) {
	tm := Timings{"b.py": 2.25, "a.py": 1}
	data, err := tm.Marshal()
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"version\": 1,\n  \"timings\": {\n    \"a.py\": 1,\n    \"b.py\": 2.25\n  }\n}\n", string(data))
	back, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, tm, back)

	data, err = Timings(nil).Marshal()
	require.NoError(t, err)
	assert.Contains(t, string(data), `"timings": {}`)
}

// measured_in says which suite run measured each file; it survives a
// merge with the file's seconds, and a later file that does not say
// clears it.
func TestDocument_KeepsTheSourceWithTheSeconds(t *testing.T) {
	h100 := Source{Suite: "stage-c-8-gpu-h100", Backend: config.CUDA}
	d := &Document{Seconds: Timings{"a.py": 1, "b.py": 2}, Sources: map[string]Source{"a.py": h100, "b.py": h100}}
	data, err := d.Marshal()
	require.NoError(t, err)
	assert.Equal(t, `{
  "version": 1,
  "timings": {
    "a.py": 1,
    "b.py": 2
  },
  "measured_in": {
    "a.py": {
      "suite": "stage-c-8-gpu-h100",
      "backend": "cuda"
    },
    "b.py": {
      "suite": "stage-c-8-gpu-h100",
      "backend": "cuda"
    }
  }
}
`, string(data))
	back, err := ParseDocument(data)
	require.NoError(t, err)
	assert.Equal(t, d, back)

	back.Merge(&Document{Seconds: Timings{"b.py": 3}})
	assert.Equal(t, &Document{Seconds: Timings{"a.py": 1, "b.py": 3}, Sources: map[string]Source{"a.py": h100}}, back)
}

func TestMerge_LaterFilesReplace(t *testing.T) {
	tm := Timings{"a": 1, "b": 2}
	tm.Merge(Timings{"b": 3, "c": 4})
	assert.Equal(t, Timings{"a": 1, "b": 3, "c": 4}, tm)
}

// A timings file that is a FIFO (no writer, or one that never finishes),
// a link to /dev/zero or a directory is refused at once with what it is.
func TestRead_OnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for path, want := range map[string]string{
		fifo: "is a FIFO, not a regular file",
		zero: "is a character device, not a regular file",
		dir:  "is a directory, not a regular file",
	} {
		done := make(chan error, 1)
		go func() { _, err := Read(path); done <- err }()
		select {
		case err := <-done:
			assert.EqualError(t, err, `read timings "`+path+`": `+want)
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) blocked", path)
		}
	}
}

func TestUpdate_CreatesMergesAndKeepsAnEmptyFileUsable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.json")
	require.NoError(t, Update(path, &Document{Seconds: Timings{"a": 1}}))
	require.NoError(t, Update(path, &Document{Seconds: Timings{"b": 2, "a": 3}}))
	got, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, Timings{"a": 3, "b": 2}, got)

	empty := filepath.Join(dir, "empty.json")
	require.NoError(t, os.WriteFile(empty, nil, 0o644))
	require.NoError(t, Update(empty, &Document{Seconds: Timings{"c": 4}}))
	got, err = Read(empty)
	require.NoError(t, err)
	assert.Equal(t, Timings{"c": 4}, got)

	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version": 1}`), 0o644))
	assert.EqualError(t, Update(bad, &Document{Seconds: Timings{"c": 4}}), `read timings "`+bad+`": no "timings"; expected {"version": 1, "timings": {...}}`)
	data, err := os.ReadFile(bad)
	require.NoError(t, err)
	assert.Equal(t, `{"version": 1}`, string(data), "a broken file is left as it was")
}

// Ten shards finishing at once, each with its own descriptors, merge into
// one shared file, several times each: no entry may be lost.
func TestUpdate_TenConcurrentShardsLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shared.json")
	const shards, rounds = 10, 10
	var wg sync.WaitGroup
	errs := make(chan error, shards*rounds)
	want := Timings{}
	for s := range shards {
		for r := range rounds {
			want[fmt.Sprintf("tests/shard%d/test_%d.py", s, r)] = float64(s*rounds + r)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				errs <- Update(path, &Document{Seconds: Timings{fmt.Sprintf("tests/shard%d/test_%d.py", s, r): float64(s*rounds + r)}})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	got, err := Read(path)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}
