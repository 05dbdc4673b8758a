package history

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
)

// releaseRows are the attempts of file in the run of suite that started
// on day d of November.
func releaseRows(d int, suite, file string, statuses ...report.Status) []Row {
	rows := flakyRows(strconv.Itoa(d), "c", "r", file, statuses...)
	for i := range rows {
		rows[i].Suite = suite
		rows[i].Started = time.Date(2026, 11, d, 2, 0, 0, 0, time.UTC)
	}
	return rows
}

func releaseOf(t *testing.T, n int, entries []config.QuarantineEntry, runs [][]Row) []Release {
	t.Helper()
	a := &ReleaseAnswer{Entries: entries, CleanRuns: n}
	addRuns(t, a, runs)
	return a.Result()
}

// An entry is to delete when the latest N runs of its file, in its
// suites, all passed at the first attempt, whatever order the runs come
// in; a run interrupted before the file failed or passed is not counted,
// an older failure does not count against it, and a file with fewer than
// N runs is kept.
func TestRelease_TheLatestRunsOfAnEntrysFileInItsSuites(t *testing.T) {
	p, f, i := report.Pass, report.Fail, report.Interrupted
	entries := []config.QuarantineEntry{
		{File: "a.py"},                            // failed on day 1, clean on 2-4, interrupted on 5
		{File: "b.py", Suites: []string{"s"}},     // clean in s; failed in t, which it does not cover
		{File: "c.py"},                            // passed on a retry on day 4
		{File: "d.py"},                            // two runs
		{File: "e.py", Suites: []string{"other"}}, // no run in its suite
	}
	runs := [][]Row{
		releaseRows(1, "s", "a.py", f),
		releaseRows(2, "s", "a.py", p),
		releaseRows(3, "s", "a.py", p),
		releaseRows(4, "s", "a.py", p),
		releaseRows(5, "s", "a.py", i),
		releaseRows(2, "s", "b.py", p),
		releaseRows(3, "s", "b.py", p),
		releaseRows(4, "s", "b.py", p),
		releaseRows(4, "t", "b.py", f, f),
		releaseRows(2, "s", "c.py", p),
		releaseRows(3, "s", "c.py", p),
		releaseRows(4, "s", "c.py", f, p),
		releaseRows(3, "s", "d.py", p),
		releaseRows(4, "s", "d.py", p),
		releaseRows(4, "s", "e.py", p),
		releaseRows(4, "s", "unquarantined.py", f),
	}
	want := []struct {
		runs, latest, dirty int
		since               int // day of November; 0: none
		del                 bool
	}{
		{4, 3, 0, 2, true},
		{3, 3, 0, 2, true},
		{3, 3, 1, 2, false},
		{2, 2, 0, 3, false},
		{0, 0, 0, 0, false},
	}
	for _, order := range []string{"as written", "reversed"} {
		in := slices.Clone(runs)
		if order == "reversed" {
			slices.Reverse(in)
		}
		got := releaseOf(t, 3, entries, in)
		require.Len(t, got, len(entries))
		for k, w := range want {
			g := got[k]
			assert.Equal(t, entries[k].File, g.Entry.File, order)
			assert.Equal(t, [3]int{w.runs, w.latest, w.dirty}, [3]int{g.Runs, g.Latest, g.Dirty}, "%s: %s: runs, latest, dirty", order, g.Entry.File)
			assert.Equal(t, w.del, g.Delete, "%s: %s", order, g.Entry.File)
			if w.since > 0 {
				assert.Equal(t, time.Date(2026, 11, w.since, 2, 0, 0, 0, time.UTC), g.Since, "%s: %s", order, g.Entry.File)
			} else {
				assert.True(t, g.Since.IsZero(), "%s: %s", order, g.Entry.File)
			}
		}
	}
}

// An answer that read no row keeps every entry.
func TestRelease_NoRowKeepsEveryEntry(t *testing.T) {
	got := releaseOf(t, 10, []config.QuarantineEntry{{File: "a.py"}}, nil)
	require.Len(t, got, 1)
	assert.False(t, got[0].Delete)
	assert.Zero(t, got[0].Runs)
}

// An entry past its until at the answer's time protects nothing: it is
// named expired, never to release, whether its file's latest runs were
// clean or not; an entry whose until is today still counts its runs.
func TestRelease_AnEntryPastItsUntilIsExpiredWhateverItsRuns(t *testing.T) {
	p, f := report.Pass, report.Fail
	day := func(d int) time.Time { return time.Date(2026, 11, d, 0, 0, 0, 0, time.UTC) }
	entries := []config.QuarantineEntry{
		{File: "a.py", Until: day(29)}, // clean, expired
		{File: "b.py", Until: day(29)}, // failing, expired
		{File: "c.py", Until: day(30)}, // clean, its last day
	}
	var runs [][]Row
	for d := 1; d <= 3; d++ {
		runs = append(runs, releaseRows(d, "s", "a.py", p), releaseRows(d, "s", "b.py", f), releaseRows(d, "s", "c.py", p))
	}
	a := &ReleaseAnswer{Entries: entries, CleanRuns: 3, At: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	addRuns(t, a, runs)
	got := a.Result()
	require.Len(t, got, 3)
	assert.Equal(t, [3]bool{true, true, false}, [3]bool{got[0].Expired, got[1].Expired, got[2].Expired})
	assert.Equal(t, [3]bool{false, false, true}, [3]bool{got[0].Delete, got[1].Delete, got[2].Delete})
	assert.Equal(t, [3]int{3, 3, 3}, [3]int{got[0].Latest, got[1].Latest, got[2].Latest}, "an expired entry's runs are still counted")
	assert.Equal(t, 3, got[1].Dirty)
}
