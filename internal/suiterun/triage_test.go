package suiterun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/testutil"
)

// triageNow is when the runs of these tests start.
var triageNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// nightlyHistory is a directory of one report: last night's scheduled
// run of suite s, in which bad.py failed and ok.py passed.
func nightlyHistory(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r := &report.Report{Suite: "s", Backend: "cuda", Cadence: "nightly", Started: report.Stamp(triageNow.Add(-10 * time.Hour)),
		Host: &report.Host{Runner: "gpu-1", Repository: "o/r", RunID: "77", RunAttempt: "1", Event: "schedule", SHA: "0ld5ha"},
		Files: []report.File{
			{File: "ok.py", Status: report.Pass, Attempts: 1, AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Pass}}},
			{File: "bad.py", Status: report.Fail, Attempts: 1, Cause: report.CauseTest,
				AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Fail, Cause: report.CauseTest}}},
		}}
	r.Finish()
	require.NoError(t, report.Write(filepath.Join(dir, "nightly.json"), r))
	return dir
}

// runForSummary runs ok.py (passes) and, when bad, bad.py (exits 4),
// with the history open gives, and returns the outcome, the step summary
// and stderr.
func runForSummary(t *testing.T, bad bool, open func(context.Context) (history.Reader, error)) (Outcome, string, string) {
	t.Helper()
	tree := map[string]string{"ok.py": "exit 0\n", "bad.py": "exit 0\n"}
	if bad {
		tree["bad.py"] = "exit 4\n"
	}
	root := testutil.TempTree(t, tree)
	summary := filepath.Join(t.TempDir(), "summary.md")
	env := map[string]string{"GITHUB_STEP_SUMMARY": summary, "GITHUB_EVENT_NAME": "pull_request", "GITHUB_SHA": "n3wsha",
		"RUNNER_NAME": "gpu-2", "GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "78", "GITHUB_RUN_ATTEMPT": "1"}
	var out, errOut bytes.Buffer
	got, err := Run(context.Background(), Spec{
		Root: root, Plan: gpuPlan("ok.py", "bad.py"), Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1},
		Getenv: func(k string) string { return env[k] }, Out: &out, ErrOut: &errOut,
		Start: (&testutil.Launcher{Shell: true}).Start, Now: func() time.Time { return triageNow },
		Hostname: func() (string, error) { return "box", nil }, Triage: open,
	})
	require.NoError(t, err)
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	return got, string(md), errOut.String()
}

// A failed run with a history gets a Triage section after its summary:
// bad.py failed in last night's scheduled run, so it is broken on main.
// The section is all that changes: without a history, and with one when
// nothing failed, the summary is what it was, byte for byte.
func TestRun_TheStepSummaryTriagesTheFailedFilesFromTheHistory(t *testing.T) {
	dir := nightlyHistory(t)
	open := func(context.Context) (history.Reader, error) { return &history.Dir{Paths: []string{dir}}, nil }

	got, without, errOut := runForSummary(t, true, nil)
	assert.Equal(t, 1, got.Code)
	assert.NotContains(t, without, "Triage")
	assert.Empty(t, errOut)

	got, with, errOut := runForSummary(t, true, open)
	assert.Equal(t, Outcome{Code: 1}, got)
	assert.Empty(t, errOut)
	lists, timeline, ok := strings.Cut(without, "**Timeline**")
	require.True(t, ok, "the summary draws its timeline:\n%s", without)
	assert.Equal(t, lists+"**Triage** (what most likely failed each file, from the run history of the last 30 days; `miles-ci help reports`):\n"+
		"- `bad.py` **broken-on-main**: failed the latest run on the default branch: run 77 at 0ld5ha (2026-12-01)\n\n"+
		"**Timeline**"+timeline, with, "the Triage section comes after the lists, before the timeline")

	_, clean, _ := runForSummary(t, false, nil)
	_, cleanWith, errOut := runForSummary(t, false, open)
	assert.Equal(t, clean, cleanWith, "nothing failed: no triage, and no read of the history")
	assert.Empty(t, errOut)
}

// A history that cannot be read is a note in the section and one
// warning: the run's outcome is its tests'.
func TestRun_AHistoryThatCannotBeReadIsANoteNeverAFailure(t *testing.T) {
	broken := func(context.Context) (history.Reader, error) {
		return nil, errors.New("connect: the server is not answering")
	}
	got, md, errOut := runForSummary(t, true, broken)
	assert.Equal(t, Outcome{Code: 1}, got)
	assert.Contains(t, md, "\n**Triage:** no verdict: the run history could not be read (connect: the server is not answering).\n\n")
	assert.Equal(t, "warning: history: no triage in the step summary: connect: the server is not answering\n", errOut)

	got, _, errOut = runForSummary(t, false, broken)
	assert.Equal(t, Outcome{}, got)
	assert.Empty(t, errOut, "nothing failed: the history is not read")
}
