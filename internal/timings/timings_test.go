package timings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParse_Accepts(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want Timings
	}{
		{"files and seconds", `{"version": 1, "timings": {"a.py": 12.5, "b/c.py": 0}}`, Timings{"a.py": 12.5, "b/c.py": 0}},
		{"no timings", `{"version": 1}`, Timings{}},
		{"null timings", `{"version": 1, "timings": null}`, Timings{}},
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
		{`{"version": 1, "timings": [1]}`, `"timings" is a JSON array; expected an object of file: seconds`},
		{`{"version": 1, "timings": {"a": -0.5}}`, `timing of "a" is negative (-0.5); expected seconds >= 0`},
		{`{"version": 1, "timings": {"a": null}}`, `timing of "a" is null; expected seconds`},
		{`{"version": 1, "timings": {"a": "12"}}`, `timing of "a" is a JSON string; expected seconds`},
		{`{"version": 1, "timings": {"a": 1e999}}`, `timing of "a" is 1e999; expected finite seconds`},
		{`{"version": 1, "timings": {"b": -1, "a": true}}`, `timing of "a" is a JSON bool; expected seconds`},
		{`{"version": 1, "timings": {"a": NaN}}`, "invalid JSON: invalid character 'N' looking for beginning of value"},
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

	got, err := ReadOptional(missing)
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = ReadOptional(bad)
	assert.Error(t, err, "only a missing file is optional")
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

func TestMerge_LaterFilesReplace(t *testing.T) {
	tm := Timings{"a": 1, "b": 2}
	tm.Merge(Timings{"b": 3, "c": 4})
	assert.Equal(t, Timings{"a": 1, "b": 3, "c": 4}, tm)
}
