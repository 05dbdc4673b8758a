package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// hostTest fails on the runner novita-host2 as a GPU in its state does
// (CUDA error 802), and on novita-host5 fails the first file it runs once
// (a flaky test); on any other runner it passes.
var hostTest = testutil.ShellTest(registration, `echo "$RUNNER_NAME ran $0" >> ran.log
if [ "$RUNNER_NAME" = novita-host2 ]; then
    echo "RuntimeError: CUDA error: system not yet initialized (Error 802)"
    exit 1
fi
if [ "$RUNNER_NAME" = novita-host5 ] && [ ! -e flaked ]; then
    : > flaked
    echo "AssertionError: loss 2.1 not less than 2.0"
    exit 1
fi
echo passed`)

// TestReportHosts_NamesTheBrokenRunnerOfRealRuns replays #2542 with the
// binary: a suite of four files in two shards, run by three runs on
// four runners. novita-host2 fails every file it runs: in run 1001 no
// other runner ran its shard at that commit, in run 1002 its shard's
// rerun passed on novita-host4. novita-host5 has one flaky failure that
// passed on novita-host4 at the same commit. report hosts, given the
// directory of reports as gh run download leaves it, names novita-host2
// and no other.
func TestReportHosts_NamesTheBrokenRunnerOfRealRuns(t *testing.T) {
	t.Parallel()
	bin := os.Args[0] // miles-ci, with MILES_CI_TEST_MAIN=1 (main_test.go)
	root := testutil.TempTree(t, map[string]string{
		"tests/fast-gpu/test_a.py": hostTest, "tests/fast-gpu/test_b.py": hostTest,
		"tests/fast-gpu/test_c.py": hostTest, "tests/fast-gpu/test_d.py": hostTest,
	})
	path := testutil.ShellAsPython(t)
	downloads := t.TempDir()
	run := func(runID, attempt, sha, runner string, shard string) int {
		t.Helper()
		rep := filepath.Join(downloads, runID+"-"+attempt, "report-shard-"+shard, "report.json")
		require.NoError(t, os.MkdirAll(filepath.Dir(rep), 0o755))
		cmd := exec.Command(bin, "--root", root, "run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-fsdp",
			"--auto-partition-id", shard, "--auto-partition-size", "2", "--continue-on-error", "--json-report", rep)
		cmd.Env = []string{"PATH=" + path, "GITHUB_ACTIONS=", "RUNNER_NAME=" + runner, "GITHUB_SHA=" + sha, "MILES_CI_TEST_MAIN=1",
			"GITHUB_RUN_ID=" + runID, "GITHUB_RUN_ATTEMPT=" + attempt, "GITHUB_JOB=stage-b-2-gpu-h200",
			"GITHUB_REPOSITORY=radixark/miles"}
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Logf("%s", out)
			return exit.ExitCode()
		}
		require.NoError(t, err, "%s", out)
		return 0
	}
	const c1, c2, c3 = "6602428f6d1c0a3e9b7f4d2c8e5a1b3c7d9e0f21", "5dc05e3f507b40a877e6e4eef0ac8891afd5c672", "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"
	assert.Equal(t, 1, run("1001", "1", c1, "novita-host2", "0"))
	assert.Equal(t, 0, run("1001", "1", c1, "novita-host4", "1"))
	assert.Equal(t, 0, run("1002", "1", c2, "novita-host4", "0"))
	assert.Equal(t, 1, run("1002", "1", c2, "novita-host2", "1"))
	assert.Equal(t, 0, run("1002", "2", c2, "novita-host4", "1"), "the rerun lands on another runner and passes")
	assert.Equal(t, 1, run("1003", "1", c3, "novita-host5", "0"))
	assert.Equal(t, 0, run("1003", "2", c3, "novita-host4", "0"))
	assert.Equal(t, 0, run("1003", "1", c3, "novita-host4", "1"))

	var stdout, stderr bytes.Buffer
	hosts := exec.Command(bin, "report", "hosts", "--json", downloads)
	hosts.Stdout, hosts.Stderr = &stdout, &stderr
	hosts.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1")
	require.NoError(t, hosts.Run(), stderr.String())
	assert.Empty(t, stderr.String(), "every report names its host")
	var doc struct {
		Suspects []string `json:"suspects"`
		Hosts    []struct {
			Host         string   `json:"host"`
			Jobs         int      `json:"jobs"`
			FilesRun     int      `json:"files_run"`
			Passed       int      `json:"passed"`
			Failed       int      `json:"failed"`
			Contradicted int      `json:"contradicted"`
			PassedOn     []string `json:"passed_on"`
			Suspect      bool     `json:"suspect"`
		} `json:"hosts"`
		Jobs []struct{} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc), stdout.String())
	assert.Equal(t, []string{"novita-host2"}, doc.Suspects)
	assert.Len(t, doc.Jobs, 8)
	require.Len(t, doc.Hosts, 3)
	got := map[string][]any{}
	for _, h := range doc.Hosts {
		got[h.Host] = []any{h.Jobs, h.FilesRun, h.Passed, h.Failed, h.Contradicted, h.PassedOn, h.Suspect}
	}
	assert.Equal(t, map[string][]any{
		// Run 1001's failures were contradicted by no one: only run 1002's two count.
		"novita-host2": {2, 4, 0, 4, 2, []string{"novita-host4"}, true},
		"novita-host4": {5, 10, 10, 0, 0, []string{}, false},
		// One flaky failure, passed on novita-host4 at c3: not enough.
		"novita-host5": {1, 2, 1, 1, 1, []string{"novita-host4"}, false},
	}, got)

	// The text, and --strict's status.
	stdout.Reset()
	stderr.Reset()
	hosts = exec.Command(bin, "report", "hosts", "--strict", downloads)
	hosts.Stdout, hosts.Stderr = &stdout, &stderr
	hosts.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1")
	var exit *exec.ExitError
	require.ErrorAs(t, hosts.Run(), &exit, stdout.String())
	assert.Equal(t, 1, exit.ExitCode())
	t.Logf("%s", stdout.String())
	_, verdict, ok := strings.Cut(stdout.String(), "\nVerdict: ")
	require.True(t, ok, stdout.String())
	assert.Equal(t, "1 suspect host of 3\n  novita-host2: 2 jobs, 0 of 4 files passed; 4 infra failures (cuda-802 ×4); 2 failed files passed on novita-host4 at the same commit\n", verdict)
	assert.Contains(t, stdout.String(), "1002  2        stage-b-2-gpu-h200  1/2    5dc05e3f5  novita-host4  2/2 passed\n")
}
