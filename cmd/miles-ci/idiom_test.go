package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// partitionIdiom is the README's way to run one shard of a suite locally.
// An empty shard exits 3 with nothing on stdout: the idiom then runs no
// pytest (which, given no file, would run the whole tree) and passes.
const partitionIdiom = `if files=$(miles-ci --root "$ROOT" partition --suite "$SUITE" --id "$ID" $FLAGS); then pytest $files; else test $? -eq 3; fi`

func TestREADME_PartitionIdiomNeverRunsTheWholeTree(t *testing.T) {
	sample, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sample"))
	require.NoError(t, err)
	bin := t.TempDir()
	self, err := os.Executable()
	require.NoError(t, err)
	require.NoError(t, os.Symlink(self, filepath.Join(bin, "miles-ci")))
	// A pytest that records its arguments, one per line.
	args := filepath.Join(t.TempDir(), "pytest-args")
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pytest"),
		[]byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \""+args+"\"\n"), 0o755))

	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	assert.Contains(t, string(readme), `if files=$(miles-ci partition --suite stage-a-cpu --id 2); then pytest $files; else test $? -eq 3; fi`,
		"the README shows the idiom this test runs")

	for _, tc := range []struct {
		name, suite, id, flags string
		exit                   int
		pytest                 string // its arguments; "" when it must not run
	}{
		{"a shard with tests", "stage-c-8-gpu-h100", "1", "--match-all-labels", 0,
			"tests/e2e/megatron/test_megatron_pp4.py\ntests/e2e/megatron/test_megatron_tp2.py\ntests/e2e/megatron/test_megatron_ckpt.py\n"},
		{"a shard the labels empty", "stage-c-8-gpu-h100", "1", "", 0, ""},
		{"a shard past the tests", "stage-a-cpu", "8", "--size 9", 0, ""},
		{"an unknown suite fails", "stage-c-8-gpu-h10", "0", "", 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(args)
			cmd := exec.Command("sh", "-c", partitionIdiom)
			cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
				"ROOT="+sample, "SUITE="+tc.suite, "ID="+tc.id, "FLAGS="+tc.flags)
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tc.exit, code, "%s", out)
			got, err := os.ReadFile(args)
			if tc.pytest == "" {
				assert.ErrorIs(t, err, os.ErrNotExist, "pytest ran with %q", got)
				return
			}
			require.NoError(t, err, "pytest did not run: %s", out)
			assert.Equal(t, tc.pytest, string(got))
		})
	}
}
