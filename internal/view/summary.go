package view

import (
	"fmt"
	"strings"

	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// StepSummary renders r as the Markdown of GITHUB_STEP_SUMMARY (package
// ghactions owns the table): every file with its status, a flaky one as
// FLAKY (passed on attempt N), then the flaky and the retried files, and
// the infra failures with the host they happened on (infraSection). The
// cause of a failed attempt is shown where it is infra: "exit code N" and
// "timeout after Ts" already say test and timeout, and a summary of a run
// without infra failures stays as it was. Then come the caller's own
// sections (run's Triage), which a person looks for before the picture,
// and last the timeline of the attempts (timelineSection), for a report
// that says when they started.
func StepSummary(r *report.Report, sections ...string) string {
	rows := make([]ghactions.SummaryRow, len(r.Files))
	for i := range r.Files {
		f := &r.Files[i]
		row := ghactions.SummaryRow{File: f.File, Status: string(f.Status), Attempts: f.Attempts,
			Elapsed: f.Elapsed, EstTime: float64(f.EstTime)}
		if f.Status != report.Pass {
			row.Detail = f.Reason
			if last, ok := f.LastAttempt(); ok && f.Cause == report.CauseInfra {
				row.Detail += ", infra: " + last.Fingerprint
			}
		}
		if f.Forgiven() {
			row.Status += " (quarantined)"
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
					row.Failures = append(row.Failures, fmt.Sprintf("attempt %d: %s%s", a.Attempt, a.Reason, infraOf(a)))
				}
			}
		}
		rows[i] = row
	}
	var missing ghactions.MissingShards
	if r.Shards != nil {
		missing = ghactions.MissingShards{IDs: r.Shards.Missing, Of: r.Shards.Size}
	}
	return ghactions.RunSummary(strings.ToUpper(r.Backend)+" "+r.Suite+OnHost(r.Host), rows, missing, hostNotReady(r)...) + infraSection(r) + quarantineSection(r) +
		strings.Join(sections, "") + timelineSection(r)
}

// quarantineSection lists the files that ran under the configuration's
// quarantine, each with its status, the entry's last day, owner and
// reason, and a passed one as a candidate for release; "" when there were
// none.
func quarantineSection(r *report.Report) string {
	var b strings.Builder
	for i := range r.Files {
		f := &r.Files[i]
		if !f.Quarantined {
			continue
		}
		outcome := string(f.Status) + " (" + f.Reason + "), which does not fail the run"
		if f.Status == report.Pass {
			outcome = "passed: a candidate for release (delete its entry)"
		}
		fmt.Fprintf(&b, "- %s %s; %s\n", textfmt.MarkdownCode(f.File), textfmt.Markdown(outcome),
			textfmt.Markdown(textfmt.OneLine(report.QuarantineNote(f))))
	}
	if b.Len() == 0 {
		return ""
	}
	return "**Quarantined files** (they ran; a failure of theirs does not fail the run):\n" + b.String() + "\n"
}

// infraOf is ", infra: FINGERPRINT" for an attempt with cause infra.
func infraOf(a report.Attempt) string {
	if a.Cause != report.CauseInfra {
		return ""
	}
	return ", infra: " + a.Fingerprint
}

// infraSection lists the attempts that failed with cause infra, each with
// its fingerprint and line, under the host they failed on, and names the
// command that finds the host's other runs; "" when there were none.
func infraSection(r *report.Report) string {
	var b strings.Builder
	for i := range r.Files {
		f := &r.Files[i]
		for _, a := range f.AttemptsDetail {
			if a.Cause == report.CauseInfra {
				fmt.Fprintf(&b, "- %s attempt %d: %s matched %s\n", textfmt.MarkdownCode(f.File), a.Attempt,
					textfmt.Markdown(a.Fingerprint), textfmt.MarkdownCode(a.CauseLine))
			}
		}
	}
	if b.Len() == 0 && !r.HostNotReady {
		return ""
	}
	host := r.Host.Name()
	if host == "" {
		host = "this host"
	}
	var s strings.Builder
	if b.Len() > 0 {
		fmt.Fprintf(&s, "**Infra failures on %s:** an output line matched an infra fingerprint: the host is to blame, not the code.\n%s\n",
			textfmt.Markdown(host), b.String())
	}
	// A run the first preflight stopped matched nothing: the Host not
	// ready notice under the heading says why; the way to the host's
	// other runs is the same.
	s.WriteString("To see this host's other runs: `miles-ci report hosts DIR`, DIR holding the JSON reports.\n\n")
	return s.String()
}

// hostNotReady is the notice of a run a GPU preflight stopped: the last
// preflight's reason and the GPU tool's last words, so the reader blames the
// host, not the tests.
func hostNotReady(r *report.Report) []ghactions.Notice {
	if !r.HostNotReady {
		return nil
	}
	text := "the GPU preflight stopped the run, so the tests not run here say nothing about the code; another runner may pass"
	if n := len(r.Preflights); n > 0 {
		pf := r.Preflights[n-1]
		text = fmt.Sprintf("%s (preflight %s, %s, %.1fs)", pf.Reason, pf.When, textfmt.CountNoun(pf.Tries, "try", "tries"), pf.Elapsed)
		if pf.Tries == 0 { // the GPU tool was not on PATH: nothing was asked
			text = fmt.Sprintf("%s (preflight %s)", pf.Reason, pf.When)
		}
		if pf.LastWords != "" {
			text += "; " + pf.Speaker() + " said: " + pf.LastWords
		}
		text += ". The tests not run here say nothing about the code; another runner may pass"
	}
	return []ghactions.Notice{{Label: "Host not ready", Text: text}}
}

// OnHost names where a run happened, for the heading and the preflight's
// log lines: " on RUNNER
// (HOSTNAME)", either alone when the other is unknown or the same, "" for
// a report without a host (a merge, or one written before reports had
// one). RunSummary renders it inert with the rest of the title.
func OnHost(h *report.Host) string {
	if name := h.Name(); name != "" {
		return " on " + name
	}
	return ""
}
