package view

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/history"
)

// A file name from a report can hold anything: the table and the
// quarantine list keep it on its line, with no character a terminal acts
// on, and the YAML still reads back to the name.
func TestFlaky_NamesStayInert(t *testing.T) {
	evil := "tests/a.py\n\x1b[31m::error::boom"
	files := []*history.FlakyFile{
		{File: evil, Suite: "s", Runs: 4, Failures: 1, Rate: 0.25},
		{File: "tests/b.py", Suite: "s\r", Runs: 2, Failures: 1, Rate: 0.5, OnlyOn: "x\x1b[0m"},
	}
	res := &history.Flaky{Files: files, Clean: 3}
	var out bytes.Buffer
	require.NoError(t, Flaky(&out, res, files))
	assert.NotContains(t, out.String(), "\x1b")
	assert.NotContains(t, out.String(), "\r")
	assert.Equal(t, 5, strings.Count(out.String(), "\n"), "header, two files, the counts, the ONLY ON note:\n%s", out.String())

	out.Reset()
	require.NoError(t, Quarantine(&out, files, 0.25, "2026-12-31"))
	assert.NotContains(t, out.String(), "\x1b")
	for _, line := range strings.Split(out.String(), "\n") {
		assert.False(t, strings.HasPrefix(line, "::"), "a line a workflow would take as a command: %q", line)
	}
	var doc struct {
		Quarantine []struct {
			File string `yaml:"file"`
		} `yaml:"quarantine"`
	}
	require.NoError(t, yaml.Unmarshal(out.Bytes(), &doc))
	require.Len(t, doc.Quarantine, 1, "b.py fails on one host only: left out")
	assert.Equal(t, evil, doc.Quarantine[0].File)
	assert.Contains(t, out.String(), `#   tests/b.py (s\r): only on x\x1b[0m`)
}

func TestQuarantine_NoFileIsAnEmptyList(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, Quarantine(&out, nil, 0.1, "2026-12-31"))
	assert.True(t, strings.HasSuffix(out.String(), "\nquarantine: []\n"), out.String())
}

// The entries --release lists come from a configuration, anyone's text in
// a pull request: each cell stays on its line, with no character a
// terminal acts on and no line a workflow takes as a command.
func TestRelease_EntriesStayInert(t *testing.T) {
	e := config.QuarantineEntry{File: "tests/a.py\n::error::x", Reason: "\x1b[2J::warning::y", At: config.Pos{Line: 7}}
	rel := []history.Release{{Entry: e, Runs: 12, Latest: 10, Delete: true, Since: time.Date(2026, 11, 3, 2, 0, 0, 0, time.UTC)},
		{Entry: config.QuarantineEntry{File: "b.py"}, Runs: 3, Latest: 3}}
	var out bytes.Buffer
	require.NoError(t, Release(&out, rel, 10, func(config.Pos) string { return ".miles-ci.yaml" }))
	assert.NotContains(t, out.String(), "\x1b")
	for _, line := range strings.Split(out.String(), "\n") {
		assert.False(t, strings.HasPrefix(line, "::"), "a line a workflow would take as a command: %q", line)
	}
	assert.Contains(t, out.String(), `.miles-ci.yaml:7  tests/a.py\n::error::x  all     12    2026-11-03  \x1b[2J::warning::y`+"\n")
	assert.True(t, strings.HasSuffix(out.String(), "; 1 kept: 1 ran fewer times\n"), out.String())
}
