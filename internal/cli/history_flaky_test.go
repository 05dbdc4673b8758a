package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The month of synthetic nightly reports of the acceptance of issue 29:
// 30 nights of suite monthSuite in three shards, the shards of a night on
// the three hosts in turn (shard s of night n on monthHosts[(n+s)%3]),
// each job in a container with a hostname of its own.
//
//   - test_a.py (shard 0) fails, its retry too, one night in five
//     (nights 0, 5, …, 25): on every host in turn.
//   - test_b.py (shard 1) fails, its retry too, whenever it runs on
//     runner-x (the nights n with n%3 == 1); the job is then re-run
//     (run attempt 2), lands on runner-a and passes, at the same commit.
//     Night 1's retry on runner-x fails with cause infra (cuda-802).
//   - test_c.py (shard 2) fails its first attempt and passes its retry
//     every fourth night (0, 4, …, 28), on every host in turn.
//   - test_clean_N.py passes always.
//
// Beside them, five pull-request runs (cadence regular) of another suite,
// on runner-a, in which test_d.py always fails.
const (
	monthSuite   = "stage-c-8-gpu-h100"
	monthPRSuite = "stage-b-2-gpu-h200"
	monthNights  = 30
)

var (
	monthHosts = []string{"runner-a", "runner-b", "runner-x"}
	// monthStart is night 0's start; monthNow is when the tests ask.
	monthStart = time.Date(2026, 11, 1, 2, 0, 0, 0, time.UTC)
	monthNow   = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
)

// att is one attempt of a generated report: its status, cause and
// fingerprint.
type monthAtt struct {
	status report.Status
	cause  report.Cause
	print  string
}

var (
	mPass = monthAtt{status: report.Pass}
	mFail = monthAtt{status: report.Fail, cause: report.CauseTest}
)

// monthJob writes one job's report below dir.
func monthJob(t *testing.T, dir string, run report.Host, suite, cadence string, started time.Time, part *report.Partition, files map[string][]monthAtt) {
	t.Helper()
	r := &report.Report{Suite: suite, Backend: "cuda", Partition: part, Cadence: cadence,
		Started: started.Format(report.StartedLayout), Host: &run}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	// A report lists its files in plan order: any fixed order will do.
	slices.Sort(names)
	for _, name := range names {
		f := report.File{File: name, EstTime: 60}
		for i, a := range files[name] {
			att := report.Attempt{Attempt: i + 1, Status: a.status, Elapsed: 10 + float64(i), Timeout: 1800, Cause: a.cause, Fingerprint: a.print}
			if a.status != report.Pass {
				att.Reason = "exit 1"
			}
			f.AttemptsDetail = append(f.AttemptsDetail, att)
			f.Status, f.Attempts, f.Elapsed, f.Cause, f.Reason = a.status, i+1, att.Elapsed, a.cause, att.Reason
		}
		r.Files = append(r.Files, f)
	}
	r.Finish()
	data, err := report.Marshal(r)
	require.NoError(t, err)
	// The latest run first, as no store orders them: an answer must not
	// depend on the order it reads the jobs in.
	name := fmt.Sprintf("%d-%s/report-%s", 99999-atoi(t, run.RunID), run.RunAttempt, suite)
	if part != nil {
		name += fmt.Sprintf("-%d", part.ID)
	}
	path := filepath.Join(dir, name, "report.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// monthReports writes the month's reports into a new directory.
func monthReports(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for n := range monthNights {
		sha := fmt.Sprintf("%07x0c0ffee", n+1)
		for s := range 3 {
			runner := monthHosts[(n+s)%3]
			host := report.Host{Runner: runner, Hostname: fmt.Sprintf("c%02d%d", n, s), Repository: "radixark/miles",
				RunID: fmt.Sprint(5000 + n), RunAttempt: "1", Workflow: "Nightly", Event: "schedule", Job: "gpu", SHA: sha}
			started := monthStart.Add(time.Duration(n)*24*time.Hour + time.Duration(s)*time.Minute)
			part := &report.Partition{ID: s, Size: 3}
			files := map[string][]monthAtt{fmt.Sprintf("tests/e2e/test_clean_%d.py", s): {mPass}}
			switch s {
			case 0:
				files["tests/e2e/test_a.py"] = []monthAtt{mPass}
				if n%5 == 0 {
					files["tests/e2e/test_a.py"] = []monthAtt{mFail, mFail}
				}
			case 1:
				files["tests/e2e/test_b.py"] = []monthAtt{mPass}
				if runner == "runner-x" {
					second := mFail
					if n == 1 {
						second = monthAtt{status: report.Fail, cause: report.CauseInfra, print: "cuda-802"}
					}
					files["tests/e2e/test_b.py"] = []monthAtt{mFail, second}
					// The failed job re-run: another host, the same commit.
					rerun := host
					rerun.RunAttempt, rerun.Runner, rerun.Hostname = "2", monthHosts[(n+2)%3], fmt.Sprintf("c%02d%dr", n, s)
					monthJob(t, dir, rerun, monthSuite, "nightly", started.Add(2*time.Hour), part,
						map[string][]monthAtt{"tests/e2e/test_b.py": {mPass}, "tests/e2e/test_clean_1.py": {mPass}})
				}
			case 2:
				files["tests/e2e/test_c.py"] = []monthAtt{mPass}
				if n%4 == 0 {
					files["tests/e2e/test_c.py"] = []monthAtt{mFail, mPass}
				}
			}
			monthJob(t, dir, host, monthSuite, "nightly", started, part, files)
		}
	}
	for i := range 5 {
		pr := 300 + i
		host := report.Host{Runner: "runner-a", Hostname: fmt.Sprintf("pr%d", i), Repository: "radixark/miles",
			RunID: fmt.Sprint(9000 + i), RunAttempt: "1", Workflow: "PR Test", Event: "pull_request", Job: "gpu",
			SHA: fmt.Sprintf("%07xbadc0de", i+1), PR: &pr}
		monthJob(t, dir, host, monthPRSuite, "regular", monthStart.Add(time.Duration(i)*6*24*time.Hour+12*time.Hour), nil,
			map[string][]monthAtt{"tests/e2e/test_d.py": {mFail}, "tests/e2e/test_clean_pr.py": {mPass}})
	}
	return dir
}

// askAt runs miles-ci with args at monthNow.
func askAt(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := execFactory(t.TempDir(), nil)
	f.Now = func() time.Time { return monthNow }
	code := Main(append([]string{"--root", f.Root}, args...), f)
	return code, out.String(), errOut.String()
}

// askBoth asks the directory and each database the same question and
// requires the same answer, byte for byte, and the same exit status; it
// returns the directory's.
func askBoth(t *testing.T, dir string, urls []string, args ...string) (int, string) {
	t.Helper()
	code, out, errOut := askAt(t, append(args, "--from", dir)...)
	for i, url := range urls {
		pgCode, pgOut, pgErr := askAt(t, append(args, "--from", url)...)
		require.Equal(t, out, pgOut, "%v: the directory and database %d answer alike", args, i)
		require.Equal(t, code, pgCode, "%v: the exit status; directory: %s; database: %s", args, errOut, pgErr)
		require.Empty(t, pgErr, "%v", args)
	}
	return code, out
}

// monthStores writes the month's reports and puts them in the test
// PostgreSQL (historyStores): the two stores of the same runs.
func monthStores(t *testing.T) (dir string, urls []string) {
	dir = monthReports(t)
	// 90 nightly jobs of 2 files (+1 attempt for a, b or c's failures:
	// 6 + 10 + 8 more), 10 re-runs of 2, 5 PR runs of 2.
	return dir, historyStores(t, dir, fmt.Sprintf("history import: %d rows added, 0 already present, from 105 reports\n", 90*2+6+10+8+10*2+5*2))
}

// historyStores imports the reports of dir into a new database of the
// test PostgreSQL, requiring import's line to be imported, and writes
// the same rows into a second one in a shuffled order, one row at a time,
// as the shards of a fleet interleave them: its table does not keep a
// job's rows together, the answers must. It returns the two URLs.
func historyStores(t *testing.T, dir, imported string) []string {
	srv := testutil.Postgres(t)
	url := srv.NewDatabase(t)
	code, out, errOut := askAt(t, "history", "import", "--to", url, dir)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, imported, out)

	var rows []history.Row
	ctx := context.Background()
	require.NoError(t, (&history.Dir{Paths: []string{dir}}).Scan(ctx, history.Filter{Stops: true}, func(r *history.Row) error {
		rows = append(rows, *r)
		return nil
	}))
	// A fixed permutation: i -> i*k mod n with k prime to n.
	n := len(rows)
	k := 101
	for n%k == 0 {
		k += 2
	}
	shuffled := make([]history.Row, n)
	for i := range rows {
		shuffled[i*k%n] = rows[i]
	}
	url2 := srv.NewDatabase(t)
	store, err := history.OpenPostgres(ctx, url2, history.ForWriting)
	require.NoError(t, err)
	defer store.Close()
	added, err := store.Write(ctx, shuffled)
	require.NoError(t, err)
	require.Equal(t, n, added)
	return []string{url, url2}
}

func TestHistoryFlaky_AMonthOfNightliesNamesEachFileAlikeFromBothStores(t *testing.T) {
	testutil.SkipShort(t, "a month of nightlies in a directory and two databases")
	dir, urls := monthStores(t)

	code, out := askBoth(t, dir, urls, "history", "flaky")
	require.Equal(t, 0, code)
	assert.Equal(t, `FILE                 SUITE               RUNS  FAILED  RETRIED  SAME-SHA  RATE    ONLY ON
tests/e2e/test_d.py  stage-b-2-gpu-h200  5     5       0        0         100.0%  -
tests/e2e/test_c.py  stage-c-8-gpu-h100  30    0       8        0         26.7%   -
tests/e2e/test_b.py  stage-c-8-gpu-h100  40    10      0        10        25.0%   runner-x
tests/e2e/test_a.py  stage-c-8-gpu-h100  30    6       0        0         20.0%   -
4 files failed or passed only on a retry; 4 clean files: every run passed at the first attempt
ONLY ON: the file failed in two runs or more, every time on that host, and passed on another: see miles-ci history hosts
`, out)

	// The nightlies alone, by cadence or by suite: test_d goes.
	_, nightly := askBoth(t, dir, urls, "history", "flaky", "--cadence", "nightly")
	_, suite := askBoth(t, dir, urls, "history", "flaky", "--suite", monthSuite)
	assert.Equal(t, nightly, suite)
	assert.NotContains(t, nightly, "test_d.py")
	assert.Contains(t, nightly, "3 files failed or passed only on a retry; 3 clean files")
	_, pr := askBoth(t, dir, urls, "history", "flaky", "--cadence", "regular")
	assert.Equal(t, `FILE                 SUITE               RUNS  FAILED  RETRIED  SAME-SHA  RATE    ONLY ON
tests/e2e/test_d.py  stage-b-2-gpu-h200  5     5       0        0         100.0%  -
1 file failed or passed only on a retry; 1 clean file: every run passed at the first attempt
`, pr)

	// The last ten days (from 2026-11-21T00:00Z): nights 20-29, of which
	// test_a failed on 20 and 25, test_b ran on runner-x on 22, 25 and 28,
	// test_c needed its retry on 20, 24 and 28.
	var last struct {
		MinRate float64 `json:"min_rate"`
		Files   []struct {
			File             string  `json:"file"`
			Runs             int     `json:"runs"`
			Failures         int     `json:"failures"`
			PassedOnRetry    int     `json:"passed_on_retry"`
			PassedSameCommit int     `json:"passed_same_commit"`
			Rate             float64 `json:"rate"`
			OnlyOn           string  `json:"only_on"`
		} `json:"files"`
		Below int `json:"below_min_rate"`
		Clean int `json:"clean"`
	}
	_, days := askBoth(t, dir, urls, "history", "flaky", "--cadence", "nightly", "--days", "10", "--json")
	require.NoError(t, json.Unmarshal([]byte(days), &last))
	require.Len(t, last.Files, 3, days)
	got := map[string][5]int{}
	for _, f := range last.Files {
		got[f.File] = [5]int{f.Runs, f.Failures, f.PassedOnRetry, f.PassedSameCommit, len(f.OnlyOn)}
	}
	assert.Equal(t, map[string][5]int{
		"tests/e2e/test_c.py": {10, 0, 3, 0, 0},
		"tests/e2e/test_b.py": {13, 3, 0, 3, len("runner-x")},
		"tests/e2e/test_a.py": {10, 2, 0, 0, 0},
	}, got)
	assert.Equal(t, []string{"tests/e2e/test_c.py", "tests/e2e/test_b.py", "tests/e2e/test_a.py"},
		[]string{last.Files[0].File, last.Files[1].File, last.Files[2].File}, "by rate: 30%, 23.1%, 20%")
	assert.InDelta(t, 3.0/13, last.Files[1].Rate, 1e-12)
	assert.Equal(t, 3, last.Clean)

	// The latest five runs: nights 26-29 and night 28's re-run. test_a
	// did not fail; test_b failed once, which ties it to no host yet.
	_, last5 := askBoth(t, dir, urls, "history", "flaky", "--cadence", "nightly", "--last", "5")
	assert.Equal(t, `FILE                 SUITE               RUNS  FAILED  RETRIED  SAME-SHA  RATE   ONLY ON
tests/e2e/test_c.py  stage-c-8-gpu-h100  4     0       1        0         25.0%  -
tests/e2e/test_b.py  stage-c-8-gpu-h100  5     1       0        1         20.0%  -
2 files failed or passed only on a retry; 4 clean files: every run passed at the first attempt
`, last5)

	// --min-rate leaves out the files below it, and says how many.
	_, above := askBoth(t, dir, urls, "history", "flaky", "--min-rate", "25%")
	assert.Contains(t, above, "test_b.py")
	assert.NotContains(t, above, "test_a.py")
	assert.Contains(t, above, "3 files failed or passed only on a retry (1 more under --min-rate); 4 clean files")

	// The quarantine proposal (--quarantine) and the entries to release
	// (--release): see history_release_test.go.
}

func TestHistoryHosts_AMonthOfNightliesNamesTheOneHostAsReportHostsDoes(t *testing.T) {
	testutil.SkipShort(t, "a month of nightlies in a directory and two databases")
	dir, urls := monthStores(t)

	code, out := askBoth(t, dir, urls, "history", "hosts", "--strict")
	assert.Equal(t, exitFailure, code, "--strict: a host is suspect")
	assert.Contains(t, out, `Verdict: 1 suspect host of 3
  runner-x: 30 jobs, 48 of 60 files passed; 1 infra failure (cuda-802 ×1); 10 failed files passed on runner-a at the same commit
`)
	// Every job's files ran and no preflight stopped one: the history's
	// answer is report hosts' over the same reports, byte for byte.
	rcode, rout, rerr := askAt(t, "report", "hosts", "--strict", dir)
	assert.Equal(t, rcode, code, rerr)
	assert.Equal(t, rout, out)
	_, jsonOut := askBoth(t, dir, urls, "history", "hosts", "--json")
	_, rjson, _ := askAt(t, "report", "hosts", "--json", dir)
	assert.Equal(t, rjson, jsonOut)
	var doc struct {
		Hosts []struct {
			Host         string   `json:"host"`
			Hostnames    []string `json:"hostnames"`
			More         bool     `json:"more_hostnames"`
			Contradicted int      `json:"contradicted"`
			Suspect      bool     `json:"suspect"`
		} `json:"hosts"`
		Suspects []string `json:"suspects"`
	}
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &doc))
	assert.Equal(t, []string{"runner-x"}, doc.Suspects)
	require.Len(t, doc.Hosts, 3)
	assert.Equal(t, []string{"c000", "c011r", "c012"}, doc.Hosts[0].Hostnames, "runner-a: the least three of its containers' names")
	assert.True(t, doc.Hosts[0].More)
	assert.Equal(t, 10, doc.Hosts[2].Contradicted)

	// A stricter threshold leaves runner-x suspect by its infra failure
	// alone; the pull requests' runs alone have no suspect.
	_, strict := askBoth(t, dir, urls, "history", "hosts", "--min-contradicted", "11")
	assert.Contains(t, strict, "  runner-x: 30 jobs, 48 of 60 files passed; 1 infra failure (cuda-802 ×1)\n")
	code, pr := askBoth(t, dir, urls, "history", "hosts", "--cadence", "regular", "--strict")
	assert.Equal(t, 0, code)
	assert.Contains(t, pr, "Verdict: no suspect host among 1 host\n")
	// The last three days (nights 27-29): test_b failed on runner-x once
	// (night 28), which one flaky test could do: no suspect.
	code, recent := askBoth(t, dir, urls, "history", "hosts", "--days", "3", "--strict")
	assert.Equal(t, 0, code, recent)
	assert.Contains(t, recent, "Verdict: no suspect host among 3 hosts\n")
	assert.Equal(t, []string{"runner-x", "c272,c281,c290", "3", "6", "5", "1", "0", "1"}, hostLine(recent, "runner-x"))

	// A suite no run ran: no host, and --strict cannot vouch for one.
	for _, from := range append([]string{dir}, urls...) {
		code, out, errOut := askAt(t, "history", "hosts", "--suite", "nosuch", "--strict", "--from", from)
		assert.Equal(t, exitFailure, code, "%s", errOut)
		assert.Equal(t, noAttempt+"\n", out)
		assert.Equal(t, "error: "+strictNoHost+"\n", errOut)
		code, out, errOut = askAt(t, "history", "hosts", "--suite", "nosuch", "--from", from)
		assert.Equal(t, 0, code, "without --strict, nothing is an answer: %s", errOut)
		assert.Equal(t, noAttempt+"\n", out)
	}
}

// strictNoHost is the error of --strict over an answer with no host.
const strictNoHost = "--strict: the answer holds no host, so none is vouched for"

// history hosts --strict over nothing exits 1, as report hosts --strict
// does over the same nothing: an empty directory, or one of files that
// are no run reports. Without --strict, history hosts answers that no
// attempt matches.
func TestHistoryHosts_StrictOverNothingFailsAsReportHostsDoes(t *testing.T) {
	empty := t.TempDir()
	foreign := t.TempDir()
	testutil.WriteTree(t, foreign, map[string]string{
		"timings.json": `{"tests/e2e/test_a.py": 60}`,
		"notes.json":   `{"note": "not a report"}`,
	})
	for name, dir := range map[string]string{"an empty directory": empty, "a directory of non-reports": foreign} {
		t.Run(name, func(t *testing.T) {
			rcode, _, rerr := askAt(t, "report", "hosts", "--strict", dir)
			require.Equal(t, exitFailure, rcode, rerr)
			for _, args := range [][]string{{"--strict"}, {"--strict", "--json"}} {
				code, out, errOut := askAt(t, append([]string{"history", "hosts", "--from", dir}, args...)...)
				assert.Equal(t, rcode, code, "%v: %s", args, errOut)
				assert.True(t, strings.HasSuffix(errOut, "error: "+strictNoHost+"\n"), "%v: %s", args, errOut)
				if len(args) == 1 {
					assert.Equal(t, noAttempt+"\n", out)
				}
			}
			code, out, errOut := askAt(t, "history", "hosts", "--from", dir)
			assert.Equal(t, 0, code, errOut)
			assert.Equal(t, noAttempt+"\n", out)
		})
	}
}

func TestHistoryFlaky_NoRowAndBadFlags(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := askAt(t, "history", "flaky", "--from", dir)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, noAttempt+"\n", out)
	code, out, _ = askAt(t, "history", "hosts", "--from", dir)
	assert.Equal(t, 0, code)
	assert.Equal(t, noAttempt+"\n", out)
	for _, args := range [][]string{
		{"history", "flaky", "--from", dir, "--min-rate", "120%"},
		{"history", "flaky", "--from", dir, "--min-rate", "x"},
		{"history", "flaky", "--from", dir, "--json", "--quarantine"},
		{"history", "flaky"},
		{"history", "hosts", "--from", dir, "--min-contradicted", "0"},
	} {
		code, _, errOut := askAt(t, args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		first, _, _ := strings.Cut(errOut, "\n")
		assert.True(t, strings.HasPrefix(first, "error: --"), "%v: the error on one line: %s", args, errOut)
	}
}

// hostLine is the cells of host's line of the hosts table in out.
func hostLine(out, host string) []string {
	_, table, _ := strings.Cut(out, "\nHOST ")
	for _, line := range strings.Split(table, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == host {
			return f
		}
	}
	return nil
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// Real runs of miles-ci writing to the database as their files finish
// (two workflow runs of two shards, each run on its own runner): the
// database written live and the directory of the same runs' reports give
// history flaky and history hosts the same answer.
func TestHistoryFlaky_LiveRunsAnswerAsTheirReports(t *testing.T) {
	url := testutil.Postgres(t).NewDatabase(t)
	root := historyRepo(t)
	reports := t.TempDir()
	for round := range 2 {
		for id := range 2 {
			args := append(historyRunArgs(root, id, 2, filepath.Join(reports, fmt.Sprintf("r%d-shard%d.json", round, id))), "--history", url)
			out, err := milesCommand(t, root, ghEnv(2000+round), args...).CombinedOutput()
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				t.Fatal(err)
			}
			require.NotContains(t, string(out), "warning: history", string(out))
		}
	}
	_, flaky := askBoth(t, reports, []string{url}, "history", "flaky")
	assert.Equal(t, `FILE                     SUITE               RUNS  FAILED  RETRIED  SAME-SHA  RATE    ONLY ON
tests/e2e/test_fail.py   stage-b-2-gpu-h200  2     2       0        0         100.0%  -
tests/e2e/test_flaky.py  stage-b-2-gpu-h200  2     0       2        0         100.0%  -
2 files failed or passed only on a retry; 6 clean files: every run passed at the first attempt
`, flaky)
	code, hosts := askBoth(t, reports, []string{url}, "history", "hosts", "--strict")
	assert.Equal(t, 0, code, hosts)
	assert.Contains(t, hosts, "Verdict: no suspect host among 2 hosts\n")
}

// A directory named through a link answers as the directory does, in
// every reader: history hosts (exit status and all), history timings,
// history import and report hosts. A link found inside is not followed:
// its reports are not read twice, and a warning says so.
func TestHistory_ALinkNamedByFromIsTheDirectory(t *testing.T) {
	dir := monthReports(t)
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(dir, link))
	require.NoError(t, os.Symlink(dir, filepath.Join(dir, "again")))
	again := `(only a link named on the command line is followed); the first: "` + filepath.Join(link, "again") + `"`

	code, want, _ := askAt(t, "history", "hosts", "--strict", "--from", dir)
	require.Equal(t, exitFailure, code, "the month has a suspect host")
	code, out, errOut := askAt(t, "history", "hosts", "--strict", "--from", link)
	assert.Equal(t, exitFailure, code, errOut)
	assert.Equal(t, want, out)
	assert.Contains(t, errOut, "warning: history: skipped 1 link(s) found in a directory "+again+"\n")

	_, timingsWant, _ := askAt(t, "history", "timings", "--from", dir)
	code, out, errOut = askAt(t, "history", "timings", "--from", link)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, timingsWant, out)

	rcode, rwant, rerr := askAt(t, "report", "hosts", "--strict", dir)
	require.Equal(t, exitFailure, rcode, rerr)
	rcode, rout, rerr := askAt(t, "report", "hosts", "--strict", link)
	assert.Equal(t, exitFailure, rcode, rerr)
	assert.Equal(t, rwant, rout)
	assert.Contains(t, rerr, `warning: skipped "`+filepath.Join(link, "again")+`": a link found in a directory`)

	url := testutil.Postgres(t).NewDatabase(t)
	code, out, errOut = askAt(t, "history", "import", "--to", url, link)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, fmt.Sprintf("history import: %d rows added, 0 already present, from 105 reports\n", 90*2+6+10+8+10*2+5*2), out)
	code, out, _ = askAt(t, "history", "hosts", "--strict", "--from", url)
	assert.Equal(t, exitFailure, code)
	assert.Equal(t, want, out)
}
