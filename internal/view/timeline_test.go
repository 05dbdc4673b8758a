package view

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// attemptAt is attempt n with status s, started offset seconds into its
// run and lasting elapsed.
func attemptAt(n int, s report.Status, offset, elapsed float64) report.Attempt {
	code := 0
	a := report.Attempt{Attempt: n, Status: s, Elapsed: elapsed, Offset: &offset, ExitCode: &code}
	if s.Failed() {
		code = 1
		a.ExitCode, a.Reason = &code, "exit code 1"
	}
	return a
}

// entry is a report's entry of a file whose status is its last attempt's.
func entry(name string, attempts ...report.Attempt) report.File {
	f := report.File{File: name, Status: report.NotRun, EstTime: 10, Attempts: len(attempts), AttemptsDetail: attempts}
	for _, a := range attempts {
		f.Status, f.Reason, f.ExitCode = a.Status, a.Reason, a.ExitCode
		f.Elapsed += a.Elapsed
	}
	return f
}

// A run's timeline: one bar per attempt on the run's clock, a retry a bar
// of its own, a failure crit, a quarantined file active, an interrupted
// attempt done, a file never run none; after the rest of the summary.
func TestTimeline_ARunShowsEachAttemptOnItsClock(t *testing.T) {
	r := &report.Report{Suite: "stage-x", Backend: "cuda", Partition: &report.Partition{ID: 1, Size: 2}, Files: []report.File{
		entry("tests/a.py", attemptAt(1, report.Pass, 0.512, 12.345)),
		entry("tests/flaky.py", attemptAt(1, report.Fail, 12.9, 1.1), attemptAt(2, report.Pass, 14.01, 5.99)),
		entry("tests/q.py", attemptAt(1, report.Timeout, 20, 60)),
		entry("tests/stop.py", attemptAt(1, report.Interrupted, 80.25, 0.75)),
		entry("tests/never.py"),
	}}
	r.Files[2].Quarantined = true
	r.Finish()
	want := "**Timeline** (each attempt, in seconds from the run's start; failed attempts in red):\n\n" +
		"```mermaid\n" +
		"gantt\n" +
		"    dateFormat x\n" +
		"    axisFormat %s\n" +
		"    todayMarker off\n" +
		"    section shard 2/2\n" +
		"    \"tests/a.py\" : 512, 12857\n" +
		"    \"tests/flaky.py\" attempt 1 FAIL : crit, 12900, 14000\n" +
		"    \"tests/flaky.py\" attempt 2 : 14010, 20000\n" +
		"    \"tests/q.py\" TIMEOUT quarantined : active, crit, 20000, 80000\n" +
		"    \"tests/stop.py\" INTERRUPTED : done, 80250, 81000\n" +
		"```\n\n"
	assert.Equal(t, want, timelineSection(r))
	assert.True(t, strings.HasSuffix(StepSummary(r), "\n\n"+want), "the timeline ends the summary")
	withTriage := StepSummary(r, "**Triage**\n\n")
	assert.True(t, strings.HasSuffix(withTriage, "**Triage**\n\n"+want), "a caller's section (run's Triage) comes before the picture:\n%s", withTriage)
}

// A merged report (report merge) shows its shards side by side: a section
// per shard on the clock of the earliest, each shard's rerun in its own
// section, a run of no shard last.
func TestTimeline_AMergeHasASectionPerShard(t *testing.T) {
	shard := func(id int, started string, files ...report.File) *report.Report {
		r := &report.Report{Suite: "s", Backend: "cuda", Partition: &report.Partition{ID: id, Size: 2}, Started: started, Files: files}
		r.Finish()
		return r
	}
	one := shard(1, "2026-12-02T10:00:05.500Z", entry("c.py", attemptAt(1, report.Fail, 1, 2)), entry("d.py", attemptAt(1, report.Pass, 3.25, 1.25)))
	zero := shard(0, "2026-12-02T10:00:00.000Z", entry("a.py", attemptAt(1, report.Pass, 0.5, 4)), entry("b.py", attemptAt(1, report.Pass, 4.5, 30)))
	rerun := shard(1, "2026-12-02T10:01:00.000Z", entry("c.py", attemptAt(1, report.Pass, 2.001, 2)))
	m, err := report.Merge(one, zero, rerun)
	require.NoError(t, err)
	assert.Equal(t, "**Timeline** (each attempt of the runs merged, in seconds from the first one's start; a section per shard, with its reruns; failed attempts in red):\n\n"+
		"```mermaid\n"+
		"gantt\n"+
		"    dateFormat x\n"+
		"    axisFormat %s\n"+
		"    todayMarker off\n"+
		"    section shard 1/2\n"+
		"    \"a.py\" : 500, 4500\n"+
		"    \"b.py\" : 4500, 34500\n"+
		"    section shard 2/2\n"+
		"    \"c.py\" attempt 1 FAIL : crit, 6500, 8500\n"+
		"    \"d.py\" : 8750, 10000\n"+
		"    \"c.py\" attempt 2 : 62001, 64001\n"+
		"```\n\n", timelineSection(m))

	// A report of an older run merged in has no offsets: its attempts are
	// counted under the chart; a run of no shard has a section of its own.
	old := shard(0, "2026-12-02T09:00:00.000Z", entry("e.py", report.Attempt{Attempt: 1, Status: report.Pass, Elapsed: 1}))
	whole := &report.Report{Suite: "s", Backend: "cuda", Started: "2026-12-02T10:00:00.000Z",
		Files: []report.File{entry("f.py", attemptAt(1, report.Pass, 0, 1))}}
	whole.Finish()
	m, err = report.Merge(zero, old, whole)
	require.NoError(t, err)
	got := timelineSection(m)
	assert.Contains(t, got, "    section shard 1/2\n    \"a.py\" : 3600500, 3604500\n    \"b.py\" : 3604500, 3634500\n    section run\n    \"f.py\" : 3600000, 3601000\n```\n\n")
	assert.True(t, strings.HasSuffix(got, "```\n\nNot on the timeline: 1 attempt of reports that do not say when their attempts started.\n\n"), got)
}

// ganttLine is every line a timeline's chart may hold: its settings, a
// section of miles-ci's, or a bar whose name (quoted, inert) is followed
// by words of miles-ci's, a ':' and the bar's tags, start and end.
var ganttLine = regexp.MustCompile(`^(gantt|    dateFormat x|    axisFormat %s|    todayMarker off|    section (shard \d+(/\d+)?|run)|` +
	`    "[^"\n:#;%` + "`" + `<>&]*"( attempt \d+)?( (FAIL|TIMEOUT|INTERRUPTED))?( quarantined)? : (active, )?((crit|done), )?\d+, \d+)$`)

// chartOf splits a summary into its Mermaid chart's lines and the rest.
func chartOf(t *testing.T, md string) (chart []string, rest string) {
	t.Helper()
	before, after, ok := strings.Cut(md, "\n```mermaid\n")
	require.True(t, ok, "a chart in:\n%s", md)
	body, tail, ok := strings.Cut(after, "\n```\n")
	require.True(t, ok, "the chart ends")
	return strings.Split(body, "\n"), before + "\n" + tail
}

func TestTimeline_HostileNamesStayInert(t *testing.T) {
	names := append([]string{
		"a:b.py", "crit, 0, 99\n    \"x\" : 0, 1", "#comment.py", "x;y.py", "%%{init: {'theme':'dark'}}%%", "a%b",
		"section evil", "title evil", "click task1 href \"https://evil\"", "gantt.py", "2024-01-01.py",
		"```\n# heading\n```", "back`tick.py", "\"quoted\".py", "rlo\u202egnp.py", "tab\there.py", "bad\xffutf8.py",
	}, hostile...)
	for _, h := range names {
		t.Run(h, func(t *testing.T) {
			r := &report.Report{Suite: "s", Backend: "cuda", Files: []report.File{
				entry(h, attemptAt(1, report.Fail, 0, 1), attemptAt(2, report.Pass, 1.5, 2)),
				entry(h+"2", attemptAt(1, report.Timeout, 3.5, 1)),
			}}
			r.Files[1].Quarantined = true
			r.Finish()
			chart, rest := chartOf(t, StepSummary(r))
			for _, line := range chart {
				assert.Regexp(t, ganttLine, line)
			}
			assert.Len(t, chart, 4+1+3, "the settings, one section, a bar per attempt")
			assertInert(t, rest, 5)
			for _, line := range strings.Split(rest, "\n") {
				assert.False(t, strings.HasPrefix(strings.TrimLeft(line, " "), "```"), "one code block, the chart's: %q", line)
			}
		})
	}
}

func TestTimeline_LeftOutAboveTheBound(t *testing.T) {
	withBars := func(n int) *report.Report {
		r := &report.Report{Suite: "s", Backend: "cuda"}
		for i := range n {
			r.Files = append(r.Files, entry(fmt.Sprintf("t%03d.py", i), attemptAt(1, report.Pass, float64(i), 1)))
		}
		r.Finish()
		return r
	}
	chart, _ := chartOf(t, StepSummary(withBars(TimelineMax)))
	assert.Len(t, chart, 4+1+TimelineMax)
	got := timelineSection(withBars(TimelineMax + 1))
	assert.Equal(t, "**Timeline** left out: 201 attempts, more than the 200 one shows (the JSON report has each attempt's `offset`).\n\n", got)
	assert.NotContains(t, StepSummary(withBars(TimelineMax+1)), "```mermaid")
}

// A report of an older run (no attempt has an offset) has no timeline:
// its summary is what it always was. The reports in testdata/docs are
// such reports.
func TestTimeline_NoneForAReportWithoutOffsets(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "docs", "*.json"))
	require.NoError(t, err)
	n := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		if strings.Contains(string(data), `"offset"`) || !strings.Contains(string(data), `"attempts_detail"`) {
			continue
		}
		r, err := report.Parse(data)
		require.NoError(t, err, p)
		assert.Empty(t, timelineSection(r), p)
		assert.NotContains(t, StepSummary(r), "mermaid", p)
		n++
	}
	assert.GreaterOrEqual(t, n, 3, "reports of older runs were read")
}
