package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// gcEveryAllocation makes the garbage collector run all the time (GOGC=1:
// a collection whenever the heap grows by 1%), so that a finalizer of an
// *os.File dropped after writing a report runs before miles-ci writes again.
const gcEveryAllocation = "GOGC=1"

// descriptorRounds repeats each case: a collection is likely, not certain,
// to come between the report and the next write in one round (it came in
// 19 rounds of 20 before the fix).
const descriptorRounds = 5

// TestDescriptorReport_StdoutStaysOpenForTheStepSummary checks `report
// summary big.json --junit-xml /dev/stdout | cat`: writing the JUnit XML to
// /dev/stdout must not close stdout (an *os.File over descriptor 1 closed it
// when collected), so the step summary after it still arrives and the exit
// is 0.
func TestDescriptorReport_StdoutStaysOpenForTheStepSummary(t *testing.T) {
	testutil.SkipShort(t, "runs that keep a descriptor open past their end")
	t.Parallel()
	testutil.NeedLinux(t, "/dev/stdout")
	big := filepath.Join(t.TempDir(), "big.json")
	r := &report.Report{Suite: "stage-b-2-gpu-h200", Backend: "cuda"}
	for i := range 2000 {
		tail := strings.Repeat("output line\n", 100)
		r.Files = append(r.Files, report.File{File: fmt.Sprintf("tests/e2e/test_%04d.py", i), Status: report.Fail,
			Attempts: 1, Elapsed: 1, Reason: "exit code 1",
			AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Fail, Elapsed: 1, Reason: "exit code 1", OutputTail: &tail}}})
	}
	r.Finish()
	data, err := report.Marshal(r)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(big, data, 0o644))

	for round := range descriptorRounds {
		var stdout, stderr bytes.Buffer // a pipe each, as with | cat
		cmd := exec.Command(os.Args[0], "report", "summary", big, "--junit-xml", "/dev/stdout")
		cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=", gcEveryAllocation)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "round %d: stderr:\n%s", round, &stderr)
		assert.Empty(t, stderr.String())
		xml, summary, ok := strings.Cut(stdout.String(), "</testsuites>\n")
		require.True(t, ok, "round %d: no JUnit XML on stdout", round)
		assert.Contains(t, xml, `<testsuites`)
		assert.True(t, strings.HasPrefix(summary, "### CUDA stage-b-2-gpu-h200: 0/2000 passed"),
			"round %d: the step summary after the XML is missing: %.200q", round, summary)
	}
}

// TestDescriptorReport_RunWritesEverythingAfterAReportToStdout checks `run
// --enable-retry --junit-xml /dev/stdout … | cat` in a job whose step
// summary is stdout too: the JUnit XML is the first report written, and the
// JSON report, the timings and the step summary written after it must still
// find their descriptors (the collected *os.File over descriptor 1 closed
// stdout, so the step summary's /dev/stdout no longer opened, or closed
// the descriptor a later open had reused), and the exit is 0, with
// collections forced.
func TestDescriptorReport_RunWritesEverythingAfterAReportToStdout(t *testing.T) {
	t.Parallel()
	testutil.NeedLinux(t, "/dev/stdout")
	// Output to capture (--enable-retry keeps its tail): garbage to collect.
	chatty := testutil.ShellTest(registration, `i=0
while [ $i -lt 3000 ]; do
    echo "progress line $i of a test that prints a lot"
    i=$((i + 1))
done`)
	for round := range descriptorRounds {
		dir := t.TempDir()
		rep, tim := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.json")
		var stdout, stderr bytes.Buffer // a pipe each, as with | cat
		cmd, _ := startRunEnv(t, []string{gcEveryAllocation, "GITHUB_STEP_SUMMARY=/dev/stdout"}, "test_chatty.py", chatty,
			&stdout, &stderr, "--enable-retry", "--junit-xml", "/dev/stdout", "--json-report", rep, "--timings-out", tim)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			require.NoError(t, err, "round %d: stderr:\n%s", round, &stderr)
		case <-time.After(60 * time.Second):
			t.Fatalf("round %d: miles-ci did not finish:\n%s", round, &stderr)
		}
		assert.Empty(t, stderr.String(), "round %d", round)
		out := stdout.String()
		assert.Contains(t, out, "Test Summary: 1/1 passed")
		_, summary, ok := strings.Cut(out, "</testsuites>\n")
		require.True(t, ok, "round %d: no JUnit XML on stdout", round)
		// The heading names the host the run was on (miles-ci help reports).
		assert.Regexp(t, `^### CUDA stage-b-2-gpu-h200( on [^\n]*)?: 1/1 passed`, summary,
			"round %d: the step summary after the XML is missing: %.200q", round, summary)
		got, err := report.Read(rep)
		require.NoError(t, err, "round %d", round)
		assert.True(t, got.Passed)
		assert.FileExists(t, tim)
	}
}
