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

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// triageMonth is the month of history_flaky_test.go's nightlies and pull
// requests, plus three runs pushed to the default branch after the last
// night, in which tests/e2e/test_broken.py passed, then failed twice; and
// the reports of a pull request's run of monthSuite (run 9100, its three
// shards), written into the same directory, as a history that already
// holds the run triaged. It returns the directory and the run's reports.
//
// The pull request's five planted failures: test_clean_0.py with an infra
// fingerprint (shard 0, runner-a); test_b.py on runner-x, which the month
// finds suspect (shard 1); test_c.py, which the month saw pass on a retry
// 8 times in 30 runs; test_broken.py, broken on the default branch; and
// test_clean_2.py, which never failed before (shard 2, runner-b). Beside
// them test_a.py fails under the quarantine (shard 0).
func triageMonth(t *testing.T) (dir string, prReports []string) {
	t.Helper()
	dir = monthReports(t)
	last := monthStart.Add((monthNights - 1) * 24 * time.Hour)
	for i, broken := range []bool{false, true, true} {
		host := report.Host{Runner: "runner-a", Hostname: fmt.Sprintf("push%d", i), Repository: "radixark/miles",
			RunID: fmt.Sprint(6000 + i), RunAttempt: "1", Workflow: "PR Test", Event: "push", Job: "gpu", SHA: fmt.Sprintf("%07xfeed", i+1)}
		att := mPass
		if broken {
			att = mFail
		}
		monthJob(t, dir, host, monthSuite, "regular", last.Add(time.Duration(4*(i+1))*time.Hour), nil,
			map[string][]monthAtt{"tests/e2e/test_broken.py": {att}})
	}
	pr := 400
	started := monthNow.Add(-time.Hour)
	infra := monthAtt{status: report.Fail, cause: report.CauseInfra, print: "cuda-802"}
	for s, shard := range []struct {
		runner string
		files  map[string][]monthAtt
	}{
		{"runner-a", map[string][]monthAtt{"tests/e2e/test_a.py": {mFail}, "tests/e2e/test_clean_0.py": {mFail, infra}}},
		{"runner-x", map[string][]monthAtt{"tests/e2e/test_b.py": {mFail}, "tests/e2e/test_clean_1.py": {mPass}}},
		{"runner-b", map[string][]monthAtt{"tests/e2e/test_c.py": {mFail, mFail}, "tests/e2e/test_broken.py": {mFail},
			"tests/e2e/test_clean_2.py": {mFail}}},
	} {
		host := report.Host{Runner: shard.runner, Hostname: fmt.Sprintf("pr9100-%d", s), Repository: "radixark/miles",
			RunID: "9100", RunAttempt: "1", Workflow: "PR Test", Event: "pull_request", Job: "gpu", SHA: "5eedc0de", PR: &pr}
		monthJob(t, dir, host, monthSuite, "regular", started.Add(time.Duration(s)*time.Minute), &report.Partition{ID: s, Size: 3}, shard.files)
	}
	// The infra failure's line, and the quarantine, which monthJob does
	// not write.
	for s := range 3 {
		path := filepath.Join(dir, fmt.Sprintf("%d-1/report-%s-%d/report.json", 99999-9100, monthSuite, s))
		r, err := report.Read(path)
		require.NoError(t, err)
		for i := range r.Files {
			f := &r.Files[i]
			switch f.File {
			case "tests/e2e/test_a.py":
				f.Quarantined, f.QuarantineReason, f.QuarantineUntil = true, "::error::forged <b>x</b>", "2027-01-31"
			case "tests/e2e/test_clean_0.py":
				f.AttemptsDetail[1].CauseLine = "CUDA error: unknown error (802)"
			}
		}
		r.Finish()
		require.NoError(t, report.Write(path, r))
		prReports = append(prReports, path)
	}
	return dir, prReports
}

// The acceptance of issue 36: report triage of a pull request's run over
// a month of nightlies, pull requests and pushes, from a directory and
// from PostgreSQL alike, gives each of its five planted failures its
// verdict (and the quarantined file its own), the run's own rows left
// out of the history; --strict exits 1 for the new one.
func TestReportTriage_AMonthGivesEachPlantedFailureItsVerdictFromBothStores(t *testing.T) {
	testutil.SkipShort(t, "a month of nightlies in a directory and two databases")
	dir, prs := triageMonth(t)
	// The month's rows (see monthStores), 3 pushes of 1, the run's 3
	// shards: 3 + 2 + 4 rows.
	urls := historyStores(t, dir, fmt.Sprintf("history import: %d rows added, 0 already present, from %d reports\n",
		90*2+6+10+8+10*2+5*2+3+9, 105+3+3))

	args := append([]string{"report", "triage"}, prs...)
	code, out := askBoth(t, dir, urls, args...)
	assert.Equal(t, 0, code)
	assert.Equal(t, `FILE                       SUITE               VERDICT         EVIDENCE
tests/e2e/test_a.py        stage-c-8-gpu-h100  quarantined     quarantined until 2027-01-31: ::error::forged <b>x</b>
tests/e2e/test_clean_0.py  stage-c-8-gpu-h100  infra           attempt 2 matched infra fingerprint cuda-802: CUDA error: unknown error (802)
tests/e2e/test_b.py        stage-c-8-gpu-h100  suspect-host    host runner-x is suspect: 1 infra failure (cuda-802 ×1); 10 failed files passed on runner-a at the same commit
tests/e2e/test_broken.py   stage-c-8-gpu-h100  broken-on-main  failed the latest 2 runs on the default branch, since run 6001 at 0000002fe (2026-11-30)
tests/e2e/test_c.py        stage-c-8-gpu-h100  flaky           26.7% of 30 runs (0 failed, 8 passed on a retry)
tests/e2e/test_clean_2.py  stage-c-8-gpu-h100  new             nothing else explains it: most likely this change
6 failed files: 1 infra, 1 suspect-host, 1 quarantined, 1 flaky, 1 broken-on-main, 1 new
`, out)
	assert.Empty(t, forgedLines(out))

	code, _ = askBoth(t, dir, urls, append(args, "--strict")...)
	assert.Equal(t, exitFailure, code, "--strict: a verdict is new")
	code, _ = askBoth(t, dir, urls, "report", "triage", "--strict", prs[0], prs[1])
	assert.Equal(t, 0, code, "--strict: infra, quarantined and a suspect host are not this change's")

	_, js := askBoth(t, dir, urls, append(args, "--json")...)
	var doc []struct {
		File     string         `json:"file"`
		Suite    string         `json:"suite"`
		Status   string         `json:"status"`
		Verdict  string         `json:"verdict"`
		Evidence map[string]any `json:"evidence"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc), js)
	require.Len(t, doc, 6)
	got := map[string]string{}
	for _, d := range doc {
		got[d.File] = d.Verdict
		assert.Equal(t, monthSuite, d.Suite)
		assert.Equal(t, "FAIL", d.Status)
	}
	assert.Equal(t, map[string]string{"tests/e2e/test_a.py": "quarantined", "tests/e2e/test_clean_0.py": "infra",
		"tests/e2e/test_b.py": "suspect-host", "tests/e2e/test_broken.py": "broken-on-main", "tests/e2e/test_c.py": "flaky",
		"tests/e2e/test_clean_2.py": "new"}, got)
	assert.Equal(t, map[string]any{"failed_runs": 2.0, "since_run": "6001", "since_sha": "0000002feed",
		"since_started": "2026-11-30T10:00:00.000Z", "latest_run": "6002", "latest_sha": "0000003feed",
		"latest_started": "2026-11-30T14:00:00.000Z"}, doc[3].Evidence)
	assert.Equal(t, map[string]any{"rate": 8.0 / 30, "runs": 30.0, "failures": 0.0, "passed_on_retry": 8.0, "passed_at_commit": false}, doc[4].Evidence)
	assert.Equal(t, map[string]any{"history": true}, doc[5].Evidence)

	// --days narrows the history: the last three days (nights 27-29, the
	// pushes) hold no suspect host and test_c's one retry in 3 runs.
	_, recent := askBoth(t, dir, urls, append(args, "--days", "3")...)
	assert.Contains(t, recent, "tests/e2e/test_b.py        stage-c-8-gpu-h100  new ")
	assert.Contains(t, recent, "tests/e2e/test_c.py        stage-c-8-gpu-h100  flaky           33.3% of 3 runs (0 failed, 1 passed on a retry)\n")
}

// Without a history, the verdicts that need one are never claimed: the
// infra cause and the quarantine are the reports' own.
func TestReportTriage_WithoutAHistoryClaimsNoHistoryVerdict(t *testing.T) {
	_, prs := triageMonth(t)
	code, out, errOut := askAt(t, append([]string{"report", "triage", "--strict"}, prs...)...)
	assert.Equal(t, exitFailure, code, errOut)
	assert.Equal(t, `FILE                       SUITE               VERDICT      EVIDENCE
tests/e2e/test_a.py        stage-c-8-gpu-h100  quarantined  quarantined until 2027-01-31: ::error::forged <b>x</b>
tests/e2e/test_clean_0.py  stage-c-8-gpu-h100  infra        attempt 2 matched infra fingerprint cuda-802: CUDA error: unknown error (802)
tests/e2e/test_b.py        stage-c-8-gpu-h100  new          no infra cause, not quarantined: most likely this change
tests/e2e/test_broken.py   stage-c-8-gpu-h100  new          no infra cause, not quarantined: most likely this change
tests/e2e/test_c.py        stage-c-8-gpu-h100  new          no infra cause, not quarantined: most likely this change
tests/e2e/test_clean_2.py  stage-c-8-gpu-h100  new          no infra cause, not quarantined: most likely this change
6 failed files: 1 infra, 1 quarantined, 4 new; without a history (--from), suspect-host, flaky and broken-on-main are not checked
`, out)
	assert.Empty(t, errOut)

	code, out, _ = askAt(t, "report", "triage", "--strict", prs[1])
	assert.Equal(t, exitFailure, code)
	code, out, errOut = askAt(t, "report", "triage", "--json", filepath.Join("..", "..", "testdata", "docs", "attempt-1-shard-0.json"))
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "[]\n", out, "a run with no failed file")
}

// Bad input is one line naming the problem, never a panic; a URL given
// to --from is never printed.
func TestReportTriage_BadInputIsOneLine(t *testing.T) {
	dir := t.TempDir()
	notReport := filepath.Join(dir, "timings.json")
	require.NoError(t, os.WriteFile(notReport, []byte(`{"tests/a.py": 3}`), 0o644))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, exitUsage, "error: no input file given; expected the run's reports (run --json-report)"},
		{[]string{filepath.Join(dir, "nosuch.json")}, exitFailure, "error: read report "},
		{[]string{notReport}, exitFailure, "error: read report "},
		{[]string{dir}, exitFailure, "error: read report "},
		{[]string{notReport, "--min-rate", "2"}, exitUsage, "error: --min-rate: "},
		{[]string{notReport, "--days", "3"}, exitUsage, "error: --cadence, --last and --days narrow the history: give --from too"},
		{[]string{notReport, "--from", "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1"}, exitFailure, "error: read report "},
	} {
		code, out, errOut := askAt(t, append([]string{"report", "triage"}, tc.args...)...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errOut)
		assert.Empty(t, out, "%v", tc.args)
		first, _, _ := strings.Cut(errOut, "\n")
		assert.True(t, strings.HasPrefix(first, tc.want), "%v: %s", tc.args, errOut)
		assert.NotContains(t, errOut, "s3cret")
	}
	// An unreachable database: one line, the URL not shown.
	_, prs := triageMonth(t)
	code, out, errOut := askAt(t, "report", "triage", prs[0], "--from", "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1")
	assert.Equal(t, exitFailure, code)
	assert.Empty(t, out)
	assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
	assert.True(t, strings.HasPrefix(errOut, "error: history: "), errOut)
	assert.NotContains(t, errOut, "s3cret")
}

// The flags land in the options (nothing runs).
func TestNewCmdReportTriage_ParsesItsFlags(t *testing.T) {
	var got *ReportTriageOptions
	f, _, _ := execFactory(t.TempDir(), nil)
	cmd := NewCmdReportTriage(f, func(o *ReportTriageOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"a.json", "b.json", "--from", "reports/", "--days", "30", "--json", "--strict", "--min-rate", "10%"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, []string{"a.json", "b.json"}, got.Inputs)
	assert.Equal(t, []any{"reports/", 30, true, true, "10%"}, []any{got.From, got.Days, got.JSON, got.Strict, got.MinRate})
}

// run with a history writes the Triage section into its step summary
// when a file failed: test_fail.py failed in last night's scheduled run,
// so in the pull request's run it is broken on main. A history that
// cannot be read is a note and a warning, and the exit status is the
// tests' all the same.
func TestRun_TheStepSummaryTriagesFromTheHistoryItWritesTo(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	root := historyRepo(t)
	run := func(runID int, event, url string) (int, string, string) {
		dir := t.TempDir()
		env := ghEnv(runID)
		env["GITHUB_EVENT_NAME"] = event
		if event != "pull_request" {
			delete(env, "GITHUB_REF")
		}
		env["GITHUB_STEP_SUMMARY"] = filepath.Join(dir, "summary.md")
		cmd := milesCommand(t, root, env, append(historyRunArgs(root, 0, 1, filepath.Join(dir, "r.json")), "--history", url)...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		_ = cmd.Run()
		md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		require.NoError(t, err, stderr.String())
		return cmd.ProcessState.ExitCode(), string(md), stderr.String()
	}
	code, nightly, errOut := run(3001, "schedule", url)
	assert.Equal(t, exitFailure, code, errOut)
	assert.Contains(t, nightly, "- `tests/e2e/test_fail.py` **new**: nothing else explains it: most likely this change\n",
		"its own rows are not evidence")

	code, pr, errOut := run(3002, "pull_request", url)
	assert.Equal(t, exitFailure, code, errOut)
	assert.Empty(t, errOut)
	assert.Contains(t, pr, "\n**Triage** (what most likely failed each file, from the run history of the last 30 days; `miles-ci help reports`):\n"+
		"- `tests/e2e/test_fail.py` **broken-on-main**: failed the latest run on the default branch: run 3001 at 5f1e (")

	gone := "postgres://u:s3cret@127.0.0.1:1/db?connect_timeout=1"
	code, md, errOut := run(3003, "pull_request", gone)
	assert.Equal(t, exitFailure, code, "the tests' status: %s", errOut)
	assert.Contains(t, md, "\n**Triage:** no verdict: the run history could not be read (")
	assert.Contains(t, errOut, "warning: history: no triage in the step summary: ")
	assert.NotContains(t, md+errOut, "s3cret")
}
