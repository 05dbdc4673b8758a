package ghactions

import (
	"fmt"
	"strings"

	"github.com/radixark/miles-ci/internal/textfmt"
)

// SummaryRow is one test file of a run for the step summary.
type SummaryRow struct {
	File     string
	Status   string // PASS, FAIL, TIMEOUT, NOT RUN, INTERRUPTED
	Attempts int
	Elapsed  float64 // seconds, every attempt
	EstTime  float64
	Detail   string // "exit code 3", "timeout after 60s", ...
	Retried  string // "" or the outcome after retrying: passed, failed, timeout
	// PassedOnAttempt is set for a flaky file (Status PASS after a failed
	// attempt): the attempt that passed. Failures then lists the failed
	// attempts, as "attempt 1: exit code 1".
	PassedOnAttempt int
	Failures        []string
}

// MissingShards are the shards (0-based ids, of Of) a merged summary has no
// report of.
type MissingShards struct {
	IDs []int
	Of  int
}

// Notice is a paragraph of a run's summary under its heading: Label, a
// phrase of miles-ci's own, in bold, then Text, rendered inert.
type Notice struct {
	Label string
	Text  string
}

// RunSummary renders a run as Markdown: a heading, the shards missing, the
// notices, a
// table of every file, the flaky files and the retried files. Every text of
// the rows and the title is rendered inert (textfmt.Markdown,
// textfmt.MarkdownCode): a file name, a suite or a reason can come from a
// pull request or from any report, and must show as text, never as a link,
// an image or HTML. The retried files are listed as the Python runner lists
// them, so an ordinary name is written as it is.
func RunSummary(title string, rows []SummaryRow, missing MissingShards, notices ...Notice) string {
	var b strings.Builder
	passed := 0
	var flaky []SummaryRow
	for _, r := range rows {
		if r.Status == "PASS" {
			passed++
		}
		if r.PassedOnAttempt > 0 {
			flaky = append(flaky, r)
		}
	}
	fmt.Fprintf(&b, "### %s: %d/%d passed", textfmt.Markdown(title), passed, len(rows))
	if len(flaky) > 0 {
		fmt.Fprintf(&b, " (%d flaky)", len(flaky))
	}
	if len(missing.IDs) > 0 {
		ids := make([]string, len(missing.IDs))
		for i, id := range missing.IDs {
			ids[i] = fmt.Sprint(id)
		}
		fmt.Fprintf(&b, ", %d of %d shards missing\n\n**Missing shard(s) %s of %d:** no report, so their tests are not in this table and the suite has not passed.",
			len(ids), missing.Of, strings.Join(ids, ", "), missing.Of)
	}
	for _, n := range notices {
		fmt.Fprintf(&b, "\n\n**%s:** %s", n.Label, textfmt.Markdown(textfmt.OneLine(n.Text)))
	}
	b.WriteString("\n\n")
	b.WriteString("| File | Status | Attempts | Elapsed / est. | Exit code or timeout |\n")
	b.WriteString("|---|---|---:|---:|---|\n")
	for _, r := range rows {
		status := r.Status
		if r.PassedOnAttempt > 0 {
			status = fmt.Sprintf("FLAKY (passed on attempt %d)", r.PassedOnAttempt)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.0fs / %.0fs | %s |\n",
			textfmt.MarkdownCode(r.File), status, r.Attempts, r.Elapsed, r.EstTime, textfmt.Markdown(r.Detail))
	}
	if len(flaky) > 0 {
		fmt.Fprintf(&b, "\n**Flaky %d test(s)** (failed, then passed on a later attempt):\n", len(flaky))
		for _, r := range flaky {
			fmt.Fprintf(&b, "- %s: passed on attempt %d; %s\n", textfmt.MarkdownCode(r.File), r.PassedOnAttempt,
				textfmt.Markdown(strings.Join(r.Failures, "; ")))
		}
	}
	var passedOnRetry, stillFailed []string
	for _, r := range rows {
		switch r.Retried {
		case "":
		case "passed":
			passedOnRetry = append(passedOnRetry, textfmt.Markdown(textfmt.OneLine(r.File)))
		default:
			stillFailed = append(stillFailed, textfmt.Markdown(textfmt.OneLine(r.File)))
		}
	}
	if n := len(passedOnRetry) + len(stillFailed); n > 0 {
		fmt.Fprintf(&b, "\n**Retried %d test(s):**\n", n)
		if len(passedOnRetry) > 0 {
			fmt.Fprintf(&b, "- Passed on retry: %s\n", strings.Join(passedOnRetry, ", "))
		}
		if len(stillFailed) > 0 {
			fmt.Fprintf(&b, "- Still failed: %s\n", strings.Join(stillFailed, ", "))
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// AppendStepSummary appends markdown to the step summary file at path,
// starting on a line of its own: after a line break when the file does not
// end in one, which would glue the summary's heading onto that line.
func AppendStepSummary(path, markdown string) error {
	f, err := openAppend(path, 0o644)
	if err != nil {
		return fmt.Errorf("write step summary %q: %w", path, err)
	}
	if _, err := f.WriteString(onNewLine(f, path) + markdown); err != nil {
		f.Close()
		return fmt.Errorf("write step summary %q: %w", path, err)
	}
	return f.Close()
}
