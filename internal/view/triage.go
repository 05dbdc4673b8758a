package view

import (
	"fmt"
	"io"
	"strings"

	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/triage"
)

// Triage writes the verdicts of `report triage`: a line per failed file
// (its file, suite, verdict and evidence), then the count of each
// verdict, and what a missing history left unchecked. Every name and
// reason in it comes from a report or the history and is written inert
// (textfmt.Table).
func Triage(w io.Writer, fails []triage.Failure, reports int, withHistory bool) error {
	if len(fails) == 0 {
		_, err := fmt.Fprintf(w, "no failed file in %s\n", textfmt.CountNoun(reports, "report"))
		return err
	}
	rows := [][]string{{"FILE", "SUITE", "VERDICT", "EVIDENCE"}}
	for _, f := range fails {
		rows = append(rows, []string{f.File, f.Suite, string(f.Verdict), TriageEvidence(f.Evidence)})
	}
	line := textfmt.CountNoun(len(fails), "failed file") + ": " + verdictCounts(fails)
	if !withHistory {
		line += "; without a history (--from), suspect-host, flaky and broken-on-main are not checked"
	}
	_, err := io.WriteString(w, textfmt.Table(rows, len(rows[0]))+line+"\n")
	return err
}

// verdictCounts writes "1 infra, 2 new", the verdicts in triage.Order.
func verdictCounts(fails []triage.Failure) string {
	n := map[triage.Verdict]int{}
	for _, f := range fails {
		n[f.Verdict]++
	}
	var parts []string
	for _, v := range triage.Order {
		if n[v] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[v], v))
		}
	}
	return strings.Join(parts, ", ")
}

// TriageJSON writes the verdicts as `report triage --json` does: an array
// of one object per failed file, with its file, suite, status, verdict and
// evidence (the verdict's triage.*Evidence).
func TriageJSON(w io.Writer, fails []triage.Failure) error {
	type failure struct {
		File     string          `json:"file"`
		Suite    string          `json:"suite"`
		Status   string          `json:"status"`
		Verdict  triage.Verdict  `json:"verdict"`
		Evidence triage.Evidence `json:"evidence"`
	}
	out := make([]failure, len(fails))
	for i, f := range fails {
		out[i] = failure{File: f.File, Suite: f.Suite, Status: string(f.Status), Verdict: f.Verdict, Evidence: f.Evidence}
	}
	return writeJSON(w, out)
}

// TriageSection is the "Triage" section of a run's step summary: each
// failed file with its verdict and evidence, from the run history of the
// last days days; or, when the history could not be read, a note saying
// so. Names and reasons are rendered inert (textfmt.Markdown).
func TriageSection(fails []triage.Failure, days int, problem error) string {
	if problem != nil {
		return "**Triage:** no verdict: the run history could not be read (" +
			textfmt.Markdown(textfmt.OneLine(problem.Error())) + ").\n\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Triage** (what most likely failed each file, from the run history of the last %d days; `miles-ci help reports`):\n", days)
	for _, f := range fails {
		fmt.Fprintf(&b, "- %s **%s**: %s\n", textfmt.MarkdownCode(f.File), f.Verdict,
			textfmt.Markdown(textfmt.OneLine(TriageEvidence(f.Evidence))))
	}
	return b.String() + "\n"
}

// TriageEvidence writes a verdict's evidence as one sentence, as is: its
// caller makes it inert for where it goes.
func TriageEvidence(e triage.Evidence) string {
	switch e := e.(type) {
	case triage.InfraEvidence:
		if e.HostNotReady {
			return "the GPU preflight then found the host not ready: " + e.Preflight
		}
		if e.Fingerprint == "" {
			return fmt.Sprintf("attempt %d failed with cause infra", e.Attempt)
		}
		return fmt.Sprintf("attempt %d matched infra fingerprint %s: %s", e.Attempt, e.Fingerprint, e.Line)
	case triage.HostEvidence:
		return "host " + e.Host + " is suspect: " + strings.Join(e.Why, "; ")
	case triage.QuarantineEvidence:
		owner := ""
		if e.Owner != "" {
			owner = " (owner " + e.Owner + ")"
		}
		return "quarantined until " + e.Until + owner + ": " + e.Reason
	case triage.FlakyEvidence:
		s := fmt.Sprintf("%s of %s (%d failed, %d passed on a retry)", Percent(e.Rate), textfmt.CountNoun(e.Runs, "run"),
			e.Failures, e.PassedOnRetry)
		if e.PassedAtCommit {
			s += "; passed at this commit"
		}
		return s
	case triage.BrokenEvidence:
		if e.FailedRuns == 1 {
			return "failed the latest run on the default branch: " + mainRun(e.LatestRun, e.LatestSHA, e.LatestStarted)
		}
		return fmt.Sprintf("failed the latest %d runs on the default branch, since %s", e.FailedRuns,
			mainRun(e.SinceRun, e.SinceSHA, e.SinceStarted))
	case triage.NewEvidence:
		if !e.History {
			return "no infra cause, not quarantined: most likely this change"
		}
		return "nothing else explains it: most likely this change"
	}
	return ""
}

// mainRun names a run on the default branch: "run 5025 at 0000019c0 (2026-11-20)".
func mainRun(id, sha, started string) string {
	s := "a local run"
	if id != "" {
		s = "run " + id
	}
	if sha != "" {
		s += " at " + short(sha)
	}
	day, _, _ := strings.Cut(started, "T")
	return s + " (" + day + ")"
}
