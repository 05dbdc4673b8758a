package history

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// check says what is wrong with a row no run writes, by the rules a
// report's attempts and run are held to when it is read (report.Parse):
// a file, suite and backend named (a preflight's stop row, Row.Stopped,
// names no file and is no attempt); a known status and cause; a
// fingerprint's name; elapsed seconds from 0 to 1e12; a shard within its
// count (or none); and a setup in seconds within the same bounds (or
// none). A row from a report that reads passes; a row the database holds
// may not (written by hand, or by another program), and an answer built
// on it would print what no report could say (a negative timing, a NaN).
func (r *Row) check() error {
	switch {
	case r.Stopped && (r.File != "" || r.Attempt != 0 || r.Status != report.NotRun || r.Elapsed != 0):
		return errors.New(`is a preflight's stop and an attempt; expected a stop with no file, attempt 0, status "NOT RUN" and no elapsed time`)
	case r.File == "" && !r.Stopped:
		return errors.New("has no file")
	case r.Suite == "":
		return errors.New("has no suite")
	case r.Backend == "":
		return errors.New("has no backend")
	}
	if err := report.CheckAttempt(&report.Attempt{Status: r.Status, Cause: r.Cause, Fingerprint: r.Fingerprint, Elapsed: r.Elapsed}); err != nil {
		return err
	}
	if r.ShardID != 0 || r.ShardSize != 0 {
		if err := report.CheckPartition(report.Partition{ID: r.ShardID, Size: r.ShardSize}); err != nil {
			return err
		}
	}
	if r.Setup != nil && !report.ValidSeconds(*r.Setup) {
		return fmt.Errorf(`has setup %g; expected seconds, from 0 to 1e+12, or none`, *r.Setup)
	}
	return nil
}

// shownWidth bounds each name a warning quotes from a row.
const shownWidth = 80

// shown quotes a name from a row for a warning: cut to shownWidth
// characters, its control characters escaped.
func shown(s string) string { return strconv.Quote(textfmt.Cut(s, shownWidth)) }

// describe names a row in a warning: its file, attempt, suite and
// run, each shortened.
func (r *Row) describe() string {
	if r.Started.IsZero() {
		// A scan of the timing columns only (Filter.TimingOnly).
		return fmt.Sprintf("file %s of suite %s", shown(r.File), shown(r.Suite))
	}
	run := "started " + r.Started.UTC().Format(report.StartedLayout)
	if r.RunID != "" {
		run = "run " + shown(r.RunID)
	}
	if r.Stopped {
		return fmt.Sprintf("the preflight's stop of suite %s (%s)", shown(r.Suite), run)
	}
	return fmt.Sprintf("file %s attempt %d of suite %s (%s)", shown(r.File), r.Attempt, shown(r.Suite), run)
}

// rowSkips counts the rows one reason left out, and names the first.
type rowSkips struct{ Skip }

// add counts row, left out because of why.
func (s *rowSkips) add(r *Row, why string) {
	// The problem quotes the row's own value: bounded, on one line.
	s.Skip.add(r.describe(), textfmt.Cut(textfmt.Term(why), 2*shownWidth))
}

// warning says what was done to the rows counted ("skipped"), and
// more of them, or "" when there were none.
func (s *rowSkips) warning(done, more string) string {
	if s.Count == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s %s; the first: %s: %s", done, textfmt.CountNoun(s.Count, "row"), more, s.First, s.Why)
}
