package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// The names a forged report can carry (an artifact anyone's job uploads,
// or the database rows imported from it): a name of 200 kB, a workflow
// command, a line break followed by one, and terminal escapes.
var (
	forgedHuge    = "tests/" + strings.Repeat("x", 200_000) + ".py"
	forgedCommand = "::error title=forged::file.py"
	forgedNewline = "tests/a.py\n::warning::forged"
	forgedEscape  = "tests/\x1b[2J\x1b]0;title\x07b.py"
	forgedNames   = []string{forgedHuge, forgedCommand, forgedNewline, forgedEscape}
	// forgedHugeHost is the hostname of the job that names them.
	forgedHugeHost = strings.Repeat("h", 200_000)
)

var (
	failTwice   = []report.Status{report.Fail, report.Fail}
	passOnRetry = []report.Status{report.Fail, report.Pass}
	passAtOnce  = []report.Status{report.Pass}
)

// forgedRuns is how many ordinary jobs stand beside the forged one: the
// rows a long name would widen.
const forgedRuns = 40

// forgedJob writes one job's report below dir, on runner at commit c1:
// each file with an attempt of each status (the last one the file's).
func forgedJob(t *testing.T, dir string, n int, runner, hostname, runID, suite string, statuses []report.Status, files []string) {
	t.Helper()
	started := monthStart.Add(time.Duration(n) * time.Hour)
	r := &report.Report{Suite: suite, Backend: "cuda", Cadence: "nightly", Started: report.Stamp(started),
		JobStarted: report.Stamp(started.Add(-90 * time.Second)), FirstTestStarted: report.Stamp(started),
		Host: &report.Host{Runner: runner, Hostname: hostname, Repository: "o/r", RunID: runID, RunAttempt: "1",
			Workflow: "Nightly", Event: "schedule", Job: "gpu", SHA: "c1"}}
	for _, name := range files {
		f := report.File{File: name, EstTime: 60}
		for i, st := range statuses {
			a := report.Attempt{Attempt: i + 1, Status: st, Elapsed: 10 + float64(i), Timeout: 1800}
			if st != report.Pass {
				a.Cause, a.Reason = report.CauseTest, "exit 1"
			}
			f.AttemptsDetail = append(f.AttemptsDetail, a)
			f.Status, f.Attempts, f.Elapsed, f.Cause, f.Reason = st, i+1, a.Elapsed, a.Cause, a.Reason
		}
		r.Files = append(r.Files, f)
	}
	r.Finish()
	data, err := report.Marshal(r)
	require.NoError(t, err)
	path := filepath.Join(dir, fmt.Sprintf("job-%03d", n), "report.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// forgedReports writes the forged job (its runner, hostname, run id,
// suite and files forged), where every file fails; a job of an ordinary runner
// where the same files pass at the same commit, so that the forged runner
// is suspect and named in the verdict; and forgedRuns ordinary jobs.
func forgedReports(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	forgedJob(t, dir, 0, "::error::runner\x1b[31m", forgedHugeHost, "::warning::1001", "::set-output name=x::y", failTwice, forgedNames)
	forgedJob(t, dir, 1, "runner-b", "ct", "1002", "::set-output name=x::y", passAtOnce, forgedNames)
	for i := range forgedRuns {
		forgedJob(t, dir, i+2, "runner-a", "ct", fmt.Sprint(2000+i), "stage-c", passOnRetry, []string{fmt.Sprintf("tests/e2e/test_%d.py", i)})
	}
	return dir
}

// assertInert requires out to be what a forged name may cost: at most
// limit bytes, no line the runner reads as a workflow command, no ESC or
// BEL byte.
func assertInert(t *testing.T, what, out string, limit int) {
	t.Helper()
	assert.LessOrEqual(t, len(out), limit, "%s: %d bytes", what, len(out))
	assert.Empty(t, forgedLines(out), "%s", what)
	assert.NotContains(t, out, "\x1b", "%s", what)
	assert.NotContains(t, out, "\x07", "%s", what)
}

// Every table and line of the history and hosts commands shows a forged
// name bounded, on its line, unable to start a workflow command and with
// no terminal escape; --json keeps each name whole.
func TestForgedReports_NamesCostABoundedWidthAndStayInert(t *testing.T) {
	dir := forgedReports(t)
	// 42 jobs of one or four files: a few kB of table, where padding every
	// row to the 200 kB name wrote more than 8 MB.
	const limit = 32 << 10
	for _, args := range append(questionArgs("--from", dir), []string{"report", "hosts", dir}) {
		code, out, errOut := askAt(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		assertInert(t, strings.Join(args[:2], " "), out+errOut, limit)
	}

	_, out, _ := askAt(t, "history", "timings", "--from", dir)
	assert.Contains(t, out, "\ntests/"+strings.Repeat("x", textfmt.CellWidth-6)+"…  ", "the long name is shown, cut")
	assert.Contains(t, out, `"::error title=forged::file.py"  `, "a name that would start a command is quoted")
	assert.Contains(t, out, `tests/\x1b[2J\x1b]0;title\x07b.py`, "an escape is written as text")
	assert.Contains(t, out, `tests/a.py\n::warning::forged`)

	_, out, _ = askAt(t, "report", "hosts", dir)
	assert.Contains(t, out, "\n\"::warning::1001\"  1 ", "the run id")
	assert.Contains(t, out, "\n  \"::error::runner\\x1b[31m\": 1 job, 0 of 4 files passed;", "the verdict's line")

	// --json keeps every name whole.
	code, out, errOut := askAt(t, "history", "timings", "--json", "--from", dir)
	require.Equal(t, 0, code, errOut)
	var timings struct {
		Files fileEntries `json:"files"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &timings))
	assert.Subset(t, timings.Files.names(), forgedNames)

	code, out, errOut = askAt(t, "history", "setup", "--json", "--from", dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"suite": "::set-output name=x::y"`)

	code, out, errOut = askAt(t, "report", "hosts", "--json", dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `"run_id":"::warning::1001"`)
	assert.Contains(t, out, `"runner":"::error::runner\u001b[31m"`)
	assert.Contains(t, out, `"hostname":"`+forgedHugeHost+`"`)
}

// A file named with a line break (a PR can add one) stays one line of the
// proposed quarantine list, its second part never a line of its own.
func TestHistoryFlakyQuarantine_ANameWithALineBreakStaysOnItsLine(t *testing.T) {
	dir := forgedReports(t)
	code, out, errOut := askAt(t, "history", "flaky", "--quarantine", "--from", dir)
	require.Equal(t, 0, code, errOut)
	assertInert(t, "history flaky --quarantine", out, len(forgedHuge)+32<<10)
	assert.Contains(t, out, `  - file: "tests/a.py\n::warning::forged"`+"\n")
	assert.Contains(t, out, `  - file: "tests/\e[2J\e]0;title\ab.py"`+"\n")
	assert.Contains(t, out, "  - file: tests/e2e/test_0.py\n", "an ordinary name as it was")

	// The list, read back, holds the names whole.
	var doc struct {
		Quarantine fileEntries `yaml:"quarantine"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(out), &doc))
	assert.Subset(t, doc.Quarantine.names(), forgedNames)
}

// fileEntries is the list of files of a --json answer or a quarantine list.
type fileEntries []struct {
	File string `json:"file" yaml:"file"`
}

func (e fileEntries) names() []string {
	var names []string
	for _, f := range e {
		names = append(names, f.File)
	}
	return names
}

// The topics say how wide a table's cell is: the width the tables use.
func TestHelpHistory_StatesTheCellWidth(t *testing.T) {
	for _, topic := range []string{"history", "hosts"} {
		code, out, errOut := askAt(t, "help", topic)
		require.Equal(t, 0, code, errOut)
		assert.Contains(t, strings.Join(strings.Fields(out), " "), fmt.Sprintf("%d characters", textfmt.CellWidth), topic)
	}
}

// `history timings` and `history setup` show report data inert, as
// `history flaky` and `hosts` do: an ESC, a BEL, a CR or another control
// character in a file name, a suite, a backend or a host (of a report, or
// of a report's path in a skip warning) is written as text, on stdout and
// stderr alike.
func TestHistoryTimingsAndSetup_ReportDataIsInert(t *testing.T) {
	dir := t.TempDir()
	hostile := "\x1b[2J\x07\r\x1b]0;t\x07\u009b\x7f\x01"
	forgedJob(t, dir, 0, "runner"+hostile, "host"+hostile, "1", "suite"+hostile, passAtOnce,
		[]string{"tests/a" + hostile + ".py", "tests/b.py"})
	// A file that is not a report, its path and content hostile: a skip warning names it.
	bad := filepath.Join(dir, "job"+hostile, "x"+hostile+".json")
	require.NoError(t, os.MkdirAll(filepath.Dir(bad), 0o755))
	require.NoError(t, os.WriteFile(bad, []byte(`{"suite": "`+hostile+`", "files": 3}`), 0o644))
	for _, q := range []string{"timings", "setup"} {
		code, out, errOut := askAt(t, "history", q, "--from", dir)
		require.Equal(t, 0, code, "%s: %s", q, errOut)
		assert.Contains(t, out, `suite\x1b[2J\x07\r\x1b]0;t\x07\x9b\x7f\x01  cuda  `, q)
		for _, c := range []string{"\x1b", "\x07", "\r", "\x7f", "\x01", "\u009b"} {
			assert.NotContains(t, out, c, "%s: stdout holds %q", q, c)
			assert.NotContains(t, errOut, c, "%s: stderr holds %q", q, c)
		}
	}
}

// report summary and report triage print a forged report's names with no
// terminal escape: the summary's Markdown writes ESC and BEL as text, as
// the other answers do.
func TestForgedReports_SummaryAndTriageWriteNoTerminalEscape(t *testing.T) {
	dir := t.TempDir()
	forgedJob(t, dir, 0, "runner\x1b]0;title\x07", "ct\x1b[31m", "1001", "stage-c", failTwice,
		[]string{forgedEscape, forgedCommand, forgedNewline, "tests/\u202egnp.py"})
	path := filepath.Join(dir, "job-000", "report.json")
	for _, args := range [][]string{{"report", "summary", path}, {"report", "triage", path}} {
		code, out, errOut := askAt(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		assertInert(t, strings.Join(args[:2], " "), out+errOut, 32<<10)
		assert.NotContains(t, out, "\u202e", "%v", args)
	}
	_, out, _ := askAt(t, "report", "summary", path)
	assert.Contains(t, out, `tests/\x1b[2J\x1b]0;title\x07b.py`, "an escape is written as text")
}
