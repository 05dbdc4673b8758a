package suiterun

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/testutil"
)

// tickingClock reads a quarter of a second later at each call: a run's
// times are then exact and the same on any machine, however loaded.
func tickingClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	now := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now = now.Add(250 * time.Millisecond)
		return now
	}
}

// timelineBar is a bar of a step summary's timeline, as read back.
type timelineBar struct {
	file       string
	attempt    int // 0 when the bar does not say (a file of one attempt)
	status     string
	crit       bool
	start, end int64 // milliseconds from the run's start
}

var barLine = regexp.MustCompile(`^    "([^"]*)"(?: attempt (\d+))?(?: (FAIL|TIMEOUT|INTERRUPTED))?(?: quarantined)? : (?:active, )?(?:(crit|done), )?([0-9]+), ([0-9]+)$`)

// ms is seconds in whole milliseconds.
func ms(seconds float64) int64 { return int64(math.Round(seconds * 1000)) }

// readTimeline parses the Mermaid gantt chart of a step summary back into
// its sections' names and its bars.
func readTimeline(t *testing.T, md string) (sections []string, bars []timelineBar) {
	t.Helper()
	_, after, ok := strings.Cut(md, "\n```mermaid\n")
	require.True(t, ok, "a chart in:\n%s", md)
	body, _, ok := strings.Cut(after, "\n```\n")
	require.True(t, ok, "the chart ends")
	lines := strings.Split(body, "\n")
	require.Equal(t, []string{"gantt", "    dateFormat x", "    axisFormat %s", "    todayMarker off"}, lines[:4])
	for _, l := range lines[4:] {
		if name, ok := strings.CutPrefix(l, "    section "); ok {
			sections = append(sections, name)
			continue
		}
		m := barLine.FindStringSubmatch(l)
		require.NotNil(t, m, "a bar: %q", l)
		b := timelineBar{file: m[1], status: m[3], crit: m[4] == "crit"}
		if m[2] != "" {
			b.attempt, _ = strconv.Atoi(m[2])
		}
		var err error
		b.start, err = strconv.ParseInt(m[5], 10, 64)
		require.NoError(t, err)
		b.end, err = strconv.ParseInt(m[6], 10, 64)
		require.NoError(t, err)
		bars = append(bars, b)
	}
	return sections, bars
}

// A run records when each attempt started, after the run's start; its
// step summary draws each attempt as a bar at that time, a retry as a bar
// of its own, a failure in red: the bars read back are the report's
// attempts.
func TestRun_TheStepSummaryDrawsEachAttemptOnTheRunsClock(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"ok.py": "echo ok\n",
		// Fails once with an AssertionError (retriable), then passes.
		"flaky.py": "if [ -f flaky.ran ]; then echo ok; else : > flaky.ran; echo AssertionError >&2; exit 1; fi\n",
		"bad.py":   "exit 4\n",
	})
	dir := t.TempDir()
	reportPath, summaryPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "summary.md")
	start := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	got, err := Run(context.Background(), Spec{
		Root: root, Plan: gpuPlan("ok.py", "flaky.py", "bad.py"),
		Limits:  runner.Limits{TimeoutPerFile: 60, EnableRetry: true, MaxAttempts: 2},
		Outputs: report.Outputs{JSONReport: reportPath}, Out: &out, ErrOut: &out,
		Getenv: envOf(map[string]string{"GITHUB_STEP_SUMMARY": summaryPath}),
		Start:  (&testutil.Launcher{Shell: true}).Start, Now: tickingClock(start),
	})
	require.NoError(t, err, out.String())
	assert.Equal(t, 1, got.Code)
	rep, err := report.Read(reportPath)
	require.NoError(t, err)
	md, err := os.ReadFile(summaryPath)
	require.NoError(t, err)

	// The report: every attempt has an offset, each after the one before
	// it ended, the first after the run's start.
	began, err := time.Parse(time.RFC3339Nano, rep.Started)
	require.NoError(t, err)
	assert.True(t, began.After(start), rep.Started)
	var attempts []timelineBar
	prevEnd := 0.0
	for _, f := range rep.Files {
		for _, a := range f.AttemptsDetail {
			require.NotNil(t, a.Offset, "%s attempt %d", f.File, a.Attempt)
			assert.Greater(t, *a.Offset, prevEnd, "%s attempt %d starts after the attempt before it ended", f.File, a.Attempt)
			end := report.Seconds(*a.Offset + a.Elapsed)
			prevEnd = end
			b := timelineBar{file: f.File, crit: a.Status.Failed(), start: ms(*a.Offset), end: ms(*a.Offset) + ms(a.Elapsed)}
			if len(f.AttemptsDetail) > 1 {
				b.attempt = a.Attempt
			}
			if a.Status != report.Pass {
				b.status = string(a.Status)
			}
			attempts = append(attempts, b)
		}
	}
	require.Len(t, attempts, 4, "ok, flaky twice, bad")
	assert.Equal(t, timelineBar{file: "flaky.py", attempt: 1, status: "FAIL", crit: true, start: attempts[1].start, end: attempts[1].end}, attempts[1])
	assert.Equal(t, timelineBar{file: "bad.py", status: "FAIL", crit: true, start: attempts[3].start, end: attempts[3].end}, attempts[3])

	// The step summary's chart, read back, is those attempts.
	sections, bars := readTimeline(t, string(md))
	assert.Equal(t, []string{"run"}, sections)
	assert.Equal(t, attempts, bars)
	assert.True(t, slices.IsSortedFunc(bars, func(x, y timelineBar) int { return int(x.start - y.start) }))
}
