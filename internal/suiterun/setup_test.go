package suiterun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/testutil"
)

// runTimed runs one passing GPU file on a clock stopped at now, with
// limits and env, and returns the report's text, the report and the log.
func runTimed(t *testing.T, limits runner.Limits, env map[string]string, now time.Time) (string, *report.Report, string, string) {
	t.Helper()
	root := testutil.TempTree(t, map[string]string{"ok.py": "echo ok\n"})
	reportPath := filepath.Join(t.TempDir(), "r.json")
	var out, errOut bytes.Buffer
	_, err := Run(context.Background(), Spec{
		Root: root, Plan: gpuPlan("ok.py"), Limits: limits,
		Outputs: report.Outputs{JSONReport: reportPath}, Out: &out, ErrOut: &errOut,
		Getenv: envOf(env), Hostname: func() (string, error) { return "gpu-box-7", nil },
		Start: (&testutil.Launcher{Shell: true}).Start, Now: func() time.Time { return now },
	})
	require.NoError(t, err, out.String())
	data, err := os.ReadFile(reportPath)
	require.NoError(t, err)
	rep, err := report.Read(reportPath)
	require.NoError(t, err)
	return string(data), rep, out.String(), errOut.String()
}

func TestRun_TheReportSaysWhenTheJobAndItsFirstTestStarted(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 30, 0, 500e6, time.FixedZone("CET", 3600))
	once := runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1}
	env := map[string]string{"MILES_CI_JOB_STARTED": "2026-12-02T08:25:00Z"}
	text, rep, out, errOut := runTimed(t, once, env, now)
	assert.Equal(t, "2026-12-02T08:30:00.500Z", rep.FirstTestStarted, "UTC, to the millisecond")
	assert.Equal(t, "2026-12-02T08:25:00.000Z", rep.JobStarted)
	setup, ok := report.SetupSeconds(rep)
	assert.True(t, ok)
	assert.Equal(t, 300.5, setup)
	assert.Contains(t, out, "[CI Setup] 5.0 min (300.5 s) of setup: the job started at 2026-12-02T08:25:00.000Z (MILES_CI_JOB_STARTED), its first test at 2026-12-02T08:30:00.500Z\n")
	assert.Contains(t, text, `"first_test_started": "2026-12-02T08:30:00.500Z",`)
	assert.Empty(t, errOut)

	// Not known: the key is there, empty, and no setup is claimed.
	text, rep, out, _ = runTimed(t, once, nil, now)
	assert.Equal(t, "2026-12-02T08:30:00.500Z", rep.FirstTestStarted)
	assert.Contains(t, text, `"job_started": "",`)
	assert.NotContains(t, out, "[CI Setup]")

	// A value that is no time: a warning, and the run goes on without it.
	_, rep, out, errOut = runTimed(t, once, map[string]string{"MILES_CI_JOB_STARTED": "yesterday"}, now)
	assert.Empty(t, rep.JobStarted)
	assert.Equal(t, `warning: MILES_CI_JOB_STARTED is "yesterday", not an RFC 3339 time such as 2026-12-02T08:23:59Z; the job's start is not taken from it`+"\n", errOut)
	assert.NotContains(t, out, "[CI Setup]")

	// No test started (--max-attempts 0 allows none): no first test.
	text, rep, out, _ = runTimed(t, runner.Limits{TimeoutPerFile: 60, EnableRetry: true}, env, now)
	assert.Contains(t, text, `"first_test_started": "",`)
	assert.Equal(t, "2026-12-02T08:25:00.000Z", rep.JobStarted)
	assert.NotContains(t, out, "[CI Setup]")
}

// A job start no job can have had (year 1, or after the run) is refused
// with one warning line: the report has no job_started, the log no setup.
func TestRun_AnImplausibleJobStartIsLeftOut(t *testing.T) {
	now := time.Date(2026, 12, 2, 9, 30, 0, 500e6, time.UTC)
	once := runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1}
	for _, v := range []string{"0001-01-01T00:00:00Z", "2026-12-03T09:30:00Z"} {
		text, rep, out, errOut := runTimed(t, once, map[string]string{"MILES_CI_JOB_STARTED": v}, now)
		assert.Empty(t, rep.JobStarted, v)
		assert.Contains(t, text, `"job_started": "",`)
		assert.NotContains(t, out, "[CI Setup]")
		assert.Regexp(t, `^warning: MILES_CI_JOB_STARTED is "`+v+`", more than .* this run started \(2026-12-02T09:30:00.500Z\); the job's start is not taken from it\n$`, errOut)
	}
}
