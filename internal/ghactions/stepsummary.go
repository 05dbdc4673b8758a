package ghactions

import (
	"fmt"
	"os"
	"strings"
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
}

// cellEscaper keeps a value inside its Markdown table cell.
var cellEscaper = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\r", "<br>", "\n", "<br>")

// RunSummary renders a run as Markdown: a heading, a table of every file,
// and the retried files.
func RunSummary(title string, rows []SummaryRow) string {
	var b strings.Builder
	passed := 0
	for _, r := range rows {
		if r.Status == "PASS" {
			passed++
		}
	}
	fmt.Fprintf(&b, "### %s: %d/%d passed\n\n", cellEscaper.Replace(title), passed, len(rows))
	b.WriteString("| File | Status | Attempts | Elapsed / est. | Exit code or timeout |\n")
	b.WriteString("|---|---|---:|---:|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %d | %.0fs / %.0fs | %s |\n",
			strings.ReplaceAll(cellEscaper.Replace(r.File), "`", "'"), r.Status, r.Attempts, r.Elapsed, r.EstTime, cellEscaper.Replace(r.Detail))
	}
	var passedOnRetry, stillFailed []string
	for _, r := range rows {
		switch r.Retried {
		case "":
		case "passed":
			passedOnRetry = append(passedOnRetry, r.File)
		default:
			stillFailed = append(stillFailed, r.File)
		}
	}
	if n := len(passedOnRetry) + len(stillFailed); n > 0 {
		fmt.Fprintf(&b, "\n**Retried %d test(s):**\n", n)
		if len(passedOnRetry) > 0 {
			fmt.Fprintf(&b, "- Passed on retry: %s\n", cellEscaper.Replace(strings.Join(passedOnRetry, ", ")))
		}
		if len(stillFailed) > 0 {
			fmt.Fprintf(&b, "- Still failed: %s\n", cellEscaper.Replace(strings.Join(stillFailed, ", ")))
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// AppendStepSummary appends markdown to the step summary file at path.
func AppendStepSummary(path, markdown string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write step summary %q: %w", path, err)
	}
	if _, err := f.WriteString(markdown); err != nil {
		f.Close()
		return fmt.Errorf("write step summary %q: %w", path, err)
	}
	return f.Close()
}
