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
// and why. place names the configuration an entry stands in. Every name
// in it (a file, a reason, a suite) is anyone's text, written inert
// (textfmt.Table, textfmt.Cell).
func Release(w io.Writer, rel []history.Release, n int, place func(config.Pos) string) error {
	rows := [][]string{{"ENTRY", "FILE", "SUITES", "RUNS", "SINCE", "REASON"}}
	failed, few := 0, 0
	for _, r := range rel {
		switch {
		case r.Delete:
			e := r.Entry
			suites := "all"
			if len(e.Suites) > 0 {
				suites = strings.Join(e.Suites, ",")
			}
			rows = append(rows, []string{place(e.At) + ":" + strconv.Itoa(e.At.Line), e.File, suites,
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
	if len(rows) > 1 {
		fmt.Fprintf(&b, "%s to delete: the file passed its last %s at the first attempt (SINCE: the earliest of them)",
			textfmt.CountNoun(len(rows)-1, "quarantine entry", "quarantine entries"), textfmt.CountNoun(n, "run"))
	} else {
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
	_, err := io.WriteString(w, b.String())
	return err
}
