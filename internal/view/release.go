package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// Release writes the answer of `history flaky --release`: a line per
// quarantine entry whose file passed its last n runs at the first attempt
// (where the entry stands, its file, suites, the runs seen, when the
// earliest of the n started, and its reason), then how many entries stay
// and why; then, when some entry is past its until, a line per expired
// entry (it protects nothing: to delete, or to renew) and their count.
// place names the configuration an entry stands in. Every name in it (a
// file, a reason, a suite) is anyone's text, written inert (textfmt.Table,
// textfmt.Cell).
func Release(w io.Writer, rel []history.Release, n int, place func(config.Pos) string) error {
	rows := [][]string{{"ENTRY", "FILE", "SUITES", "RUNS", "SINCE", "REASON"}}
	expired := [][]string{{"ENTRY", "FILE", "SUITES", "UNTIL", "REASON"}}
	failed, few := 0, 0
	for _, r := range rel {
		e := r.Entry
		switch {
		case r.Expired:
			expired = append(expired, []string{entryPlace(e, place), e.File, entrySuites(e), e.UntilText(), e.Reason})
		case r.Delete:
			rows = append(rows, []string{entryPlace(e, place), e.File, entrySuites(e),
				strconv.Itoa(r.Runs), r.Since.UTC().Format(config.UntilLayout), e.Reason})
		case r.Dirty > 0:
			failed++
		default:
			few++
		}
	}
	var b strings.Builder
	if len(rows) > 1 {
		b.WriteString(textfmt.Table(rows, len(rows[0])))
	}
	switch {
	case len(rows) > 1:
		fmt.Fprintf(&b, "%s to delete: the file passed its last %s at the first attempt (SINCE: the earliest of them)",
			textfmt.CountNoun(len(rows)-1, "quarantine entry", "quarantine entries"), textfmt.CountNoun(n, "run"))
	case len(expired) > 1:
		fmt.Fprintf(&b, "no quarantine entry to release: no quarantined file under an unexpired entry passed its last %s at the first attempt", textfmt.CountNoun(n, "run"))
	default:
		fmt.Fprintf(&b, "no quarantine entry to delete: no quarantined file passed its last %s at the first attempt", textfmt.CountNoun(n, "run"))
	}
	var kept []string
	if failed > 0 {
		kept = append(kept, fmt.Sprintf("%d failed or passed only on a retry in its last %s", failed, textfmt.CountNoun(n, "run")))
	}
	if few > 0 {
		kept = append(kept, fmt.Sprintf("%d ran fewer times", few))
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, "; %d kept: %s", failed+few, strings.Join(kept, ", "))
	}
	b.WriteString("\n")
	if len(expired) > 1 {
		b.WriteString(textfmt.Table(expired, len(expired[0])))
		fmt.Fprintf(&b, "%s to delete: expired, past its UNTIL it protects nothing, whatever its runs say (renew the until instead if the reason still holds)\n",
			textfmt.CountNoun(len(expired)-1, "expired quarantine entry", "expired quarantine entries"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// entryPlace is where a quarantine entry stands: its file and line.
func entryPlace(e config.QuarantineEntry, place func(config.Pos) string) string {
	return place(e.At) + ":" + strconv.Itoa(e.At.Line)
}

// entrySuites writes an entry's suites, "all" when it names none.
func entrySuites(e config.QuarantineEntry) string {
	if len(e.Suites) == 0 {
		return "all"
	}
	return strings.Join(e.Suites, ",")
}

// The verdicts of `history flaky --release --json`.
const (
	ReleaseVerdict = "release" // the file passed its last N runs: delete the entry
	KeepVerdict    = "keep"    // it did not, or ran fewer times
	ExpiredVerdict = "expired" // past its until the entry protects nothing: delete or renew it
)

// jsonRelease is one entry of `history flaky --release --json`.
type jsonRelease struct {
	Entry  string   `json:"entry"`
	File   string   `json:"file"`
	Suites []string `json:"suites"`
	Reason string   `json:"reason"`
	Until  string   `json:"until"`
	Owner  string   `json:"owner"`
	// Runs counts the file's runs in the history, Checked the latest of
	// them considered (at most N), Dirty those that failed or passed only
	// on a retry; Since is when the earliest considered started.
	Runs    int    `json:"runs"`
	Checked int    `json:"runs_checked"`
	Dirty   int    `json:"runs_not_clean"`
	Since   string `json:"since"`
	Expired bool   `json:"expired"`
	Verdict string `json:"verdict"`
	Why     string `json:"why"`
}

// ReleaseJSON writes the answer of `history flaky --release --json`: the
// runs asked for and one object per quarantine entry, in the
// configuration's order, with its verdict (ReleaseVerdict, KeepVerdict,
// ExpiredVerdict) and why.
func ReleaseJSON(w io.Writer, rel []history.Release, n int, place func(config.Pos) string) error {
	entries := make([]jsonRelease, len(rel))
	for i, r := range rel {
		e := r.Entry
		j := jsonRelease{Entry: entryPlace(e, place), File: e.File, Suites: nonNil(e.Suites), Reason: e.Reason,
			Until: e.UntilText(), Owner: e.Owner, Runs: r.Runs, Checked: r.Latest, Dirty: r.Dirty, Expired: r.Expired}
		if !r.Since.IsZero() {
			j.Since = r.Since.UTC().Format(config.UntilLayout)
		}
		runs := textfmt.CountNoun(n, "run")
		switch {
		case r.Expired:
			j.Verdict, j.Why = ExpiredVerdict, "expired after "+e.UntilText()+": it protects nothing; delete the entry, or renew its until if the reason still holds"
		case r.Delete:
			j.Verdict, j.Why = ReleaseVerdict, "passed its last "+runs+" at the first attempt: delete the entry"
		case r.Dirty > 0:
			j.Verdict, j.Why = KeepVerdict, fmt.Sprintf("%d of its last %s failed or passed only on a retry", r.Dirty, runs)
		default:
			j.Verdict, j.Why = KeepVerdict, fmt.Sprintf("ran %s, fewer than the %s asked for", textfmt.CountNoun(r.Latest, "time"), runs)
		}
		entries[i] = j
	}
	return writeJSON(w, struct {
		CleanRuns int           `json:"clean_runs"`
		Entries   []jsonRelease `json:"entries"`
	}{n, entries})
}
