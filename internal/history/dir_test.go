package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// writeReport writes a run report of suite: the given workflow run
// (local when runID is ""), shard id of 2, started at start, one file per
// name with one attempt of status st (none for report.NotRun).
func writeReport(t *testing.T, path, suite, cadence, runID string, id int, start time.Time, st report.Status, files ...string) *report.Report {
	t.Helper()
	r := &report.Report{Suite: suite, Backend: "cuda", Partition: &report.Partition{ID: id, Size: 2}, Cadence: cadence,
		Started: start.Format(report.StartedLayout), Host: &report.Host{Repository: "radixark/miles", RunID: runID, RunAttempt: "1", Job: "gpu", Hostname: "h"}}
	for i, f := range files {
		file := report.File{File: f, Status: st, EstTime: 60, AttemptsDetail: []report.Attempt{}}
		if st != report.NotRun {
			file.Attempts = 1
			file.AttemptsDetail = []report.Attempt{{Attempt: 1, Status: st, Elapsed: float64(10*i) + float64(start.Hour()), Timeout: 1800}}
		}
		r.Files = append(r.Files, file)
	}
	r.Finish()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, report.Write(path, r))
	return r
}

// rowKeys are the rows as sortable strings.
func rowKeys(rows []Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = fmt.Sprintf("%s|%s|%d|%s|%s|%g", r.Key(), r.File, r.Attempt, r.Status, r.Started.Format(time.RFC3339Nano), r.Elapsed)
	}
	slices.Sort(out)
	return out
}

func TestDir_AndPostgresKeepTheSameRowsForEveryFilter(t *testing.T) {
	dir := t.TempDir()
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var all []*report.Report
	for run := range 5 {
		start := day.Add(time.Duration(run) * 24 * time.Hour)
		cadence := "regular"
		if run%2 == 1 {
			cadence = "nightly"
		}
		for id := range 2 {
			// Shard 1 starts later than shard 0: a run's first start is
			// its shard 0's.
			all = append(all, writeReport(t, filepath.Join(dir, "gh", strconv.Itoa(run), fmt.Sprintf("s%d.json", id)), "stage-b", cadence,
				strconv.Itoa(900+run), id, start.Add(time.Duration(id)*time.Minute), report.Pass, fmt.Sprintf("tests/a%d.py", id), fmt.Sprintf("tests/b%d.py", id)))
		}
	}
	// A later run that never ran a file has no rows: the database has
	// none of it, and neither counts it among the latest runs.
	writeReport(t, filepath.Join(dir, "late.json"), "stage-b", "regular", "999", 0, day.Add(30*24*time.Hour), report.NotRun, "tests/a0.py")
	// Two local runs at the same moment, before the others, on another
	// suite, failed.
	for i := range 2 {
		all = append(all, writeReport(t, filepath.Join(dir, fmt.Sprintf("local%d.json", i)), "stage-c", "regular", "", i,
			day.Add(-24*time.Hour), report.Fail, "tests/c.py"))
	}
	// A copy of a report is read once.
	data, err := os.ReadFile(filepath.Join(dir, "gh", "0", "s0.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zz-copy.json"), data, 0o644))

	url := pgURL(t)
	p, err := OpenPostgres(context.Background(), url, ForWriting)
	require.NoError(t, err)
	defer p.Close()
	for _, r := range all {
		rows, err := RowsOf(r)
		require.NoError(t, err)
		_, err = p.Write(context.Background(), rows)
		require.NoError(t, err)
	}

	d := &Dir{Paths: []string{dir}}
	for _, f := range []Filter{
		{},
		{Suite: "stage-b"},
		{Cadence: "nightly"},
		{Since: day.Add(2 * 24 * time.Hour)},
		{LastRuns: 2},
		{LastRuns: 3, Suite: "stage-c"},
		{LastRuns: 1, Cadence: "nightly"},
		{LastRuns: 6, Statuses: []report.Status{report.Fail}},
		{Statuses: []report.Status{report.Pass}},
	} {
		want := rowKeys(scanAll(t, p, f))
		got := rowKeys(scanAll(t, d, f))
		assert.Equal(t, want, got, "%+v", f)
		assert.NotEmpty(t, got, "%+v", f)
	}
	assert.Equal(t, 1, d.Skipped.Duplicate.Count)
	assert.Len(t, scanAll(t, d, Filter{LastRuns: 2}), 8, "two workflow runs of two shards of two files")
	assert.Len(t, scanAll(t, d, Filter{LastRuns: 6, Statuses: []report.Status{report.Fail}}), 1,
		"the sixth latest run is one of the two local ones that started together (the greater key); they failed")
}

func TestDir_SkipsWhatIsNoRunReportAndSaysWhy(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	a := writeReport(t, filepath.Join(dir, "a.json"), "s", "regular", "1", 0, start, report.Pass, "tests/a.py")
	b := writeReport(t, filepath.Join(dir, "b.json"), "s", "regular", "1", 1, start, report.Pass, "tests/b.py")
	merged, err := report.Merge(a, b)
	require.NoError(t, err)
	require.NoError(t, report.Write(filepath.Join(dir, "merged.json"), merged))
	old := writeReport(t, filepath.Join(dir, "old.json"), "s", "regular", "2", 0, start, report.Pass, "tests/a.py")
	old.Started = ""
	require.NoError(t, report.Write(filepath.Join(dir, "old.json"), old))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.json"), []byte("{"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not json"), 0o644))

	d := &Dir{Paths: []string{dir}}
	assert.Len(t, scanAll(t, d, Filter{}), 2)
	assert.Equal(t, 2, d.Reports)
	assert.Equal(t, []string{
		`skipped 1 file(s) that are not run reports; the first: "` + filepath.Join(dir, "broken.json") + `": invalid JSON: unexpected end of JSON input`,
		`skipped 1 merged report(s) (report merge's; their shards' reports hold the same attempts); the first: "` + filepath.Join(dir, "merged.json") + `"`,
		`skipped 1 report(s) without "started" (written before reports said when their run began); the first: "` + filepath.Join(dir, "old.json") + `"`,
	}, d.Skipped.Warnings())
}

func TestRows_TextIsStoredAsAReportWritesIt(t *testing.T) {
	assert.Equal(t, "ok", clean("ok"))
	assert.Equal(t, "a\uFFFDb\uFFFD\uFFFDc", clean("a\x00b\xff\xfec"), "each bad byte, and NUL, is U+FFFD")
}

// A file a suite registers twice is listed twice in its report; the
// database keeps the first listing's rows (its key has no listing), and
// the directory reads the same rows, so both stores answer alike.
func TestDir_AndPostgresKeepOneListingOfAFileListedTwice(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC)
	writeReport(t, filepath.Join(dir, "r.json"), "stage-b", "nightly", "7", 0, start, report.Pass, "tests/a.py", "tests/b.py", "tests/a.py")
	fromDir := scanAll(t, &Dir{Paths: []string{dir}}, Filter{})
	require.Len(t, fromDir, 2, "a.py once, b.py once")

	url := pgURL(t)
	ctx := context.Background()
	p, err := OpenPostgres(ctx, url, ForWriting)
	require.NoError(t, err)
	defer p.Close()
	r, err := report.Read(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	rows, err := RowsOf(r)
	require.NoError(t, err)
	added, err := p.Write(ctx, rows)
	require.NoError(t, err)
	assert.Equal(t, 2, added)
	assert.Equal(t, rowKeys(fromDir), rowKeys(scanAll(t, p, Filter{})))
}
