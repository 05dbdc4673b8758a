package view

import (
	"fmt"
	"strings"

	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/report"
)

// StepSummary renders r as the Markdown of GITHUB_STEP_SUMMARY (package
// ghactions owns the table): every file with its status, a flaky one as
// FLAKY (passed on attempt N), then the flaky and the retried files.
func StepSummary(r *report.Report) string {
	rows := make([]ghactions.SummaryRow, len(r.Files))
	for i := range r.Files {
		f := &r.Files[i]
		row := ghactions.SummaryRow{File: f.File, Status: string(f.Status), Attempts: f.Attempts,
			Elapsed: f.Elapsed, EstTime: float64(f.EstTime)}
		if f.Status != report.Pass {
			row.Detail = f.Reason
		}
		if f.Attempts > 1 {
			switch f.Status {
			case report.Pass:
				row.Retried = "passed"
			case report.Timeout:
				row.Retried = "timeout"
			default:
				row.Retried = "failed"
			}
		}
		if f.Flaky {
			row.PassedOnAttempt = f.Attempts
			for _, a := range f.AttemptsDetail {
				if a.Status.Failed() {
					row.Failures = append(row.Failures, fmt.Sprintf("attempt %d: %s", a.Attempt, a.Reason))
				}
			}
		}
		rows[i] = row
	}
	var missing ghactions.MissingShards
	if r.Shards != nil {
		missing = ghactions.MissingShards{IDs: r.Shards.Missing, Of: r.Shards.Size}
	}
	return ghactions.RunSummary(strings.ToUpper(r.Backend)+" "+r.Suite+onHost(r.Host), rows, missing)
}

// onHost names where a run happened for the heading: " on RUNNER
// (HOSTNAME)", either alone when the other is unknown or the same, "" for
// a report without a host (a merge, or one written before reports had
// one). RunSummary renders it inert with the rest of the title.
func onHost(h *report.Host) string {
	if name := h.Name(); name != "" {
		return " on " + name
	}
	return ""
}
