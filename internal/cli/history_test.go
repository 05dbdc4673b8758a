package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/timings"
)

// historyRepo is a repository of the report suite: six files that pass,
// one that fails its first attempt in each workflow run and passes the
// second (flaky), and one that always fails.
func historyRepo(t *testing.T) string {
	t.Helper()
	files := map[string]string{}
	for i := range 6 {
		name := fmt.Sprintf("tests/e2e/test_%d.py", i)
		files[name] = testutil.ShellTest(fmt.Sprintf(`register_cuda_ci(est_time=%d, suite="%s", labels=["fsdp"])`+"\n", 10+i*7, reportSuite),
			"i=0; while [ $i -lt "+strconv.Itoa(200*(i+1))+" ]; do i=$((i+1)); done")
	}
	files["tests/e2e/test_flaky.py"] = testutil.ShellTest(`register_cuda_ci(est_time=30, suite="`+reportSuite+`", labels=["fsdp"])`+"\n",
		`if [ ! -e "flaky.$GITHUB_RUN_ID" ]; then touch "flaky.$GITHUB_RUN_ID"; echo "AssertionError: loss 2.0 not less than 1.0"; exit 4; fi`)
	files["tests/e2e/test_fail.py"] = testutil.ShellTest(`register_cuda_ci(est_time=20, suite="`+reportSuite+`", labels=["fsdp"])`+"\n",
		`echo "RuntimeError: boom"; exit 3`)
	return execRepo(t, files)
}

// historyRunArgs are the arguments of shard id of size writing its
// report to path.
func historyRunArgs(root string, id, size int, path string) []string {
	return []string{"--root", root, "run", "--hw", "cuda", "--suite", reportSuite, "--labels", "run-ci-fsdp",
		"--auto-partition-id", strconv.Itoa(id), "--auto-partition-size", strconv.Itoa(size), "--continue-on-error",
		"--enable-retry", "--retry-wait-seconds", "0", "--json-report", path}
}

// ghEnv is the environment of a job of workflow run id.
func ghEnv(runID int) map[string]string {
	return map[string]string{"GITHUB_REPOSITORY": "radixark/miles", "GITHUB_RUN_ID": strconv.Itoa(runID),
		"GITHUB_RUN_ATTEMPT": "1", "GITHUB_JOB": "gpu", "GITHUB_WORKFLOW": "PR Test", "GITHUB_EVENT_NAME": "pull_request",
		"GITHUB_REF": "refs/pull/77/merge", "GITHUB_SHA": "5f1e", "RUNNER_NAME": "runner-" + strconv.Itoa(runID%3)}
}

// reportRows reads the attempts of every report in dir as plain JSON,
// apart from miles-ci's own reading: file -> the seconds of its passed
// attempts, and the count of all attempts.
func reportRows(t *testing.T, dir string) (map[string][]float64, int) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	passed := map[string][]float64{}
	total := 0
	for _, p := range paths {
		var doc struct {
			Files []struct {
				File     string `json:"file"`
				Attempts []struct {
					Status  string  `json:"status"`
					Elapsed float64 `json:"elapsed"`
				} `json:"attempts_detail"`
			} `json:"files"`
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &doc))
		for _, f := range doc.Files {
			for _, a := range f.Attempts {
				total++
				if a.Status == "PASS" {
					passed[f.File] = append(passed[f.File], a.Elapsed)
				}
			}
		}
	}
	return passed, total
}

// quantileOf is the q-quantile of xs by linear interpolation between the
// order statistics (numpy's default), written here from the definition.
func quantileOf(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[lo]*(1-(pos-float64(lo))) + s[lo+1]*(pos-float64(lo))
}

// countRows counts the rows of the history's table at url.
func countRows(t *testing.T, url string) int {
	return queryCount(t, url, "SELECT count(*) FROM miles_ci_attempts")
}

// countRowsNow is countRows that answers 0 while the database cannot be
// asked, for a test that waits for rows to arrive.
func countRowsNow(url string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0
	}
	defer conn.Close(ctx)
	var n int
	if conn.QueryRow(ctx, "SELECT count(*) FROM miles_ci_attempts").Scan(&n) != nil {
		return 0
	}
	return n
}

// queryCount answers a count(*) query on the database at url.
func queryCount(t *testing.T, url, query string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var n int
	require.NoError(t, conn.QueryRow(ctx, query).Scan(&n))
	return n
}

type timingsJSON struct {
	Files []struct {
		File   string  `json:"file"`
		Suite  string  `json:"suite"`
		Runs   int     `json:"runs"`
		Median float64 `json:"median"`
		P90    float64 `json:"p90"`
		Max    float64 `json:"max"`
	} `json:"files"`
}

// The acceptance scenario of issue 29: three workflow runs of four shards
// each, the shards of a run at the same moment, write to one database; the
// database and the directory of the same runs' reports give the same
// answers, byte for byte, and those answers are the quantiles of the
// reports' rows.
func TestHistory_ConcurrentShardsWriteAndBothStoresAnswerAlike(t *testing.T) {
	testutil.SkipShort(t, "concurrent shard runs writing to one database")
	url := testutil.Postgres(t).NewDatabase(t)
	root := historyRepo(t)
	reports := t.TempDir()
	for round := range 3 {
		var wg sync.WaitGroup
		results := make([]string, 4)
		codes := make([]int, 4)
		for id := range 4 {
			env := ghEnv(1000 + round)
			args := historyRunArgs(root, id, 4, filepath.Join(reports, fmt.Sprintf("r%d-shard%d.json", round, id)))
			// Half the shards take the URL from the flag, half from the
			// variable a workflow passes the secret in.
			if id%2 == 0 {
				args = append(args, "--history", url)
			} else {
				env[envHistoryURL] = url
			}
			cmd := milesCommand(t, root, env, args...)
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := cmd.CombinedOutput()
				results[id] = string(out)
				codes[id] = cmd.ProcessState.ExitCode()
				if err != nil && codes[id] < 0 {
					results[id] += err.Error()
				}
			}()
		}
		wg.Wait()
		for id := range 4 {
			require.Contains(t, []int{0, 1}, codes[id], results[id])
			assert.NotContains(t, results[id], "warning: history", "shard %d: %s", id, results[id])
			assert.Contains(t, results[id], "history: each file's attempts are written to the store")
			assert.NotContains(t, results[id], url, "the URL is never printed")
		}
	}
	passed, total := reportRows(t, reports)
	require.Len(t, passed, 7, "six passing files and the flaky one")
	assert.Equal(t, total, countRows(t, url), "every attempt of every report, once")

	ask := func(args ...string) string {
		code, out, errOut := miles(t, root, nil, append([]string{"history", "timings"}, args...)...)
		require.Equal(t, 0, code, errOut)
		assert.Empty(t, errOut)
		return out
	}
	for _, extra := range [][]string{nil, {"--json"}, {"--last", "2", "--json"}, {"--suite", reportSuite, "--cadence", "regular"}} {
		fromDB := ask(append([]string{"--from", url}, extra...)...)
		fromDir := ask(append([]string{"--from", reports}, extra...)...)
		assert.Equal(t, fromDir, fromDB, "history timings %v", extra)
	}
	text := ask("--from", reports)
	assert.Contains(t, text, "FILE                     SUITE               BACKEND  RUNS")
	assert.Contains(t, text, "tests/e2e/test_flaky.py  stage-b-2-gpu-h200  cuda        3")

	var doc timingsJSON
	require.NoError(t, json.Unmarshal([]byte(ask("--from", url, "--json")), &doc))
	require.Len(t, doc.Files, 7)
	for _, f := range doc.Files {
		xs := passed[f.File]
		require.Len(t, xs, 3, f.File)
		assert.Equal(t, 3, f.Runs, f.File)
		// Shown to the millisecond, as reports give seconds.
		assert.InDelta(t, quantileOf(xs, 0.5), f.Median, 0.0005+1e-9, f.File)
		assert.InDelta(t, quantileOf(xs, 0.9), f.P90, 0.0005+1e-9, f.File)
		assert.InDelta(t, quantileOf(xs, 1), f.Max, 1e-9, f.File)
	}
	var last timingsJSON
	require.NoError(t, json.Unmarshal([]byte(ask("--from", url, "--last", "2", "--json")), &last))
	for _, f := range last.Files {
		assert.Equal(t, 2, f.Runs, "the last two workflow runs: %s", f.File)
	}

	// -o writes what --timings and timings apply read: the p90 of each.
	out := filepath.Join(t.TempDir(), "p90.json")
	code, _, errOut := miles(t, root, nil, "history", "timings", "--from", url, "-o", out, "--quantile", "0.9")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "wrote the p90 of 7 files to "+out)
	var tf struct {
		Timings map[string]float64 `json:"timings"`
	}
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &tf))
	assert.InDelta(t, quantileOf(passed["tests/e2e/test_0.py"], 0.9), tf.Timings["tests/e2e/test_0.py"], 0.0005+1e-9)
	code, _, errOut = miles(t, root, nil, "partition", "--hw", "cuda", "--suite", reportSuite, "--labels", "run-ci-fsdp", "--timings", out)
	assert.Equal(t, 0, code, errOut)
}

// The database stopped in the middle of a run: the run's verdict, exit
// status and report are those of a run with the database up; one warning
// says so; `history import` then adds exactly the rows the run could not
// write, and a second import adds none.
func TestHistory_AStoreThatGoesAwayChangesNothingAndImportBackfills(t *testing.T) {
	testutil.SkipShort(t, "two runs, one stopping the database in its middle")
	srv := testutil.Postgres(t)
	root := historyRepo(t)
	// A file in the middle of the plan stops the database (the test's
	// server, at once) before it passes: it says it is there and waits
	// until the test has seen the rows of the files before it written
	// (the run writes them in the background, as late as load makes it)
	// and has stopped the server.
	testutil.WriteFile(t, root, "tests/e2e/test_stop.py", testutil.ShellTest(
		`register_cuda_ci(est_time=12, suite="`+reportSuite+`", labels=["fsdp"])`+"\n",
		`if [ -n "$STOP_SYNC" ]; then : > "$STOP_SYNC/reached"; while [ ! -e "$STOP_SYNC/stopped" ]; do sleep 0.05; done; fi`))
	run := func(report string, url string, env map[string]string) (int, string, string, map[string]any) {
		require.NoError(t, os.MkdirAll(filepath.Dir(report), 0o755))
		cmd := milesCommand(t, root, env, append(historyRunArgs(root, 0, 1, report), "--history", url)...)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		var doc map[string]any
		data, err := os.ReadFile(report)
		require.NoError(t, err, stderr.String())
		require.NoError(t, json.Unmarshal(data, &doc))
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String(), doc
	}
	upDir, downDir := t.TempDir(), t.TempDir()
	upURL := srv.NewDatabase(t)
	upCode, upOut, upErr, upDoc := run(filepath.Join(upDir, "up.json"), upURL, ghEnv(7))
	downURL := srv.NewDatabase(t)
	env := ghEnv(8)
	handshake := t.TempDir()
	env["STOP_SYNC"] = handshake
	var before int
	stopped, ran := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		defer os.WriteFile(filepath.Join(handshake, "stopped"), nil, 0o644)
		for _, err := os.Stat(filepath.Join(handshake, "reached")); err != nil; _, err = os.Stat(filepath.Join(handshake, "reached")) {
			select {
			case <-ran: // it never reached the file: the checks below say what went wrong
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
		// The rows of the files before it reach the database however
		// loaded the machine is; a run that never wrote one fails below.
		for deadline := time.Now().Add(2 * time.Minute); before == 0 && time.Now().Before(deadline); {
			if before = countRowsNow(downURL); before == 0 {
				time.Sleep(50 * time.Millisecond)
			}
		}
		pid := srv.Pid()
		_ = syscall.Kill(pid, syscall.SIGQUIT)
		for syscall.Kill(pid, 0) == nil {
			time.Sleep(50 * time.Millisecond)
		}
	}()
	var (
		downCode         int
		downOut, downErr string
		downDoc          map[string]any
	)
	func() {
		defer close(ran)
		downCode, downOut, downErr, downDoc = run(filepath.Join(downDir, "down.json"), downURL, env)
	}()
	<-stopped
	require.NoError(t, srv.Start(), "restart the server")

	assert.Equal(t, 1, upCode, upErr)
	assert.Equal(t, upCode, downCode, "the exit status")
	verdicts := func(out string) []string {
		var v []string
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "PASS") || strings.Contains(line, "FAIL") || strings.Contains(line, "Summary") {
				v = append(v, line)
			}
		}
		return v
	}
	assert.Equal(t, len(verdicts(upOut)), len(verdicts(downOut)), "the verdict lines:\n%s\n%s", upOut, downOut)
	assert.Empty(t, upErr)
	assert.Equal(t, 1, strings.Count(downErr, "warning: history:"), downErr)
	assert.Contains(t, downErr, "warning: history: the store --history names failed (")
	assert.NotContains(t, downErr, downURL)
	assert.NotContains(t, downErr, srv.Socket())
	assert.Equal(t, normalizedReport(upDoc), normalizedReport(downDoc), "the report")

	_, total := reportRows(t, downDir)
	require.Greater(t, before, 0, "the files before the stop were written")
	require.Equal(t, before, countRows(t, downURL), "nothing was written after the stop")
	require.Less(t, before, total, "the files after it were not")

	code, out, errOut := miles(t, root, nil, "history", "import", "--to", downURL, downDir)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, fmt.Sprintf("history import: %d rows added, %d already present, from 1 report\n", total-before, before), out)
	assert.Equal(t, total, countRows(t, downURL))
	code, out, errOut = miles(t, root, nil, "history", "import", "--to", downURL, filepath.Join(downDir, "down.json"))
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, fmt.Sprintf("history import: 0 rows added, %d already present, from 1 report\n", total), out)
	assert.Equal(t, total, countRows(t, downURL))
}

// normalizedReport is a report without what differs between two runs of
// the same tests: times, and the run's identity.
func normalizedReport(doc map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range doc {
		switch k {
		case "elapsed", "started", "job_started", "first_test_started", "host":
		case "files":
			var files []any
			for _, f := range v.([]any) {
				fm := map[string]any{}
				for fk, fv := range f.(map[string]any) {
					switch fk {
					case "elapsed":
					case "attempts_detail":
						var atts []any
						for _, a := range fv.([]any) {
							am := map[string]any{}
							for ak, av := range a.(map[string]any) {
								if ak != "elapsed" && ak != "offset" { // clock readings
									am[ak] = av
								}
							}
							atts = append(atts, am)
						}
						fm[fk] = atts
					default:
						fm[fk] = fv
					}
				}
				files = append(files, fm)
			}
			out[k] = files
		default:
			out[k] = v
		}
	}
	return out
}

// A fork's pull request gets an empty secret: one note, nothing written,
// the run as without a store.
func TestHistory_AnEmptyStoreIsANoteAndWritesNothing(t *testing.T) {
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	code, out, errOut := miles(t, root, map[string]string{envHistoryURL: ""}, runArgs()...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 1, strings.Count(out, "history: no store given (MILES_CI_HISTORY_URL is empty, as a secret is in a fork's pull request); nothing written\n"), out)
	assert.Empty(t, errOut)
	code, out, _ = miles(t, root, nil, append(runArgs(), "--history", "")...)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "history: no store given (--history is empty")
	code, out, _ = miles(t, root, nil, runArgs()...)
	require.Equal(t, 0, code)
	assert.NotContains(t, out, "history:", "no store configured: not a word")
}

// An unreachable store: one warning, the run's status its own.
func TestHistory_AnUnreachableStoreIsOneWarning(t *testing.T) {
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", ""), "tests/e2e/test_b.py": gpuTest("b", "")})
	url := "postgresql://u:s3cretpw@/db?host=" + t.TempDir()
	code, _, errOut := miles(t, root, map[string]string{envHistoryURL: url}, runArgs()...)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 1, strings.Count(errOut, "warning: history:"), errOut)
	assert.NotContains(t, errOut, "s3cretpw")
}

// history timings answers from a directory of reports with no server,
// and says what it skipped.
func TestHistoryTimings_ADirectorySaysWhatItSkipped(t *testing.T) {
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	dir := t.TempDir()
	for i := range 2 {
		code, _, errOut := miles(t, root, nil, runArgs("--json-report", filepath.Join(dir, fmt.Sprintf("r%d.json", i)), "--timings-out", filepath.Join(dir, "timings.json"))...)
		require.Equal(t, 0, code, errOut)
	}
	code, _, errOut := miles(t, root, nil, "report", "merge", "-o", filepath.Join(dir, "merged.json"), filepath.Join(dir, "r0.json"), filepath.Join(dir, "r1.json"))
	require.Equal(t, 0, code, errOut)
	code, out, errOut := miles(t, root, nil, "history", "timings", "--from", dir)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "tests/e2e/test_a.py  stage-b-2-gpu-h200  cuda        2")
	assert.Contains(t, errOut, `warning: history: skipped 1 file(s) that are not run reports; the first: "`+filepath.Join(dir, "timings.json")+`": a timings file`)
	assert.Contains(t, errOut, `warning: history: skipped 1 merged report(s)`)

	code, _, errOut = miles(t, root, nil, "history", "timings", "--from", dir, "--last", "1", "--days", "3")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--last counts runs and --days counts days; give one of them")
	code, _, errOut = miles(t, root, nil, "history", "timings", "--from", dir, "--quantile", "0.9")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--quantile is the figure -o writes; give -o FILE")
	code, _, errOut = miles(t, root, nil, "history", "timings", "--from", dir, "-o", filepath.Join(dir, "x.json"), "--quantile", "1.5")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "invalid quantile \"1.5\"")
}

// writeHistoryReports writes one run report per run into a new directory:
// run i passed each file in runs[file][i] seconds, on the suite
// stage-c-8-gpu-h100, a day apart.
func writeHistoryReports(t *testing.T, runs map[string][]float64) string {
	t.Helper()
	dir := t.TempDir()
	n := 0
	for _, xs := range runs {
		n = max(n, len(xs))
	}
	files := make([]string, 0, len(runs))
	for f := range runs {
		files = append(files, f)
	}
	sort.Strings(files)
	for i := range n {
		r := &report.Report{Suite: "stage-c-8-gpu-h100", Backend: "cuda", Partition: &report.Partition{ID: 0, Size: 1},
			Cadence: "nightly", Started: time.Date(2026, 11, 1+i, 3, 0, 0, 0, time.UTC).Format(report.StartedLayout),
			Host: &report.Host{Repository: "radixark/miles", RunID: strconv.Itoa(500 + i), RunAttempt: "1", Job: "gpu"}}
		for _, f := range files {
			if i >= len(runs[f]) {
				continue
			}
			atts := []report.Attempt{}
			if f == "tests/e2e/test_moves.py" && i == 2 {
				// A failed attempt says nothing of the test's time.
				atts = append(atts, report.Attempt{Attempt: 1, Status: report.Fail, Elapsed: 9999, Timeout: 1800})
			}
			atts = append(atts, report.Attempt{Attempt: len(atts) + 1, Status: report.Pass, Elapsed: runs[f][i], Timeout: 1800})
			r.Files = append(r.Files, report.File{File: f, Status: report.Pass, Attempts: len(atts), EstTime: 100, AttemptsDetail: atts})
		}
		r.Finish()
		require.NoError(t, report.Write(filepath.Join(dir, fmt.Sprintf("run-%d.json", i)), r))
	}
	return dir
}

// timings apply --quantile 0.9 --from a directory of reports rewrites
// exactly the est_time literals whose p90 drifted past the threshold, and
// the Python registry reads the new values.
func TestTimingsApply_QuantileFromHistoryRewritesTheDriftedP90s(t *testing.T) {
	reg := func(est int) string {
		return fmt.Sprintf("register_cuda_ci(est_time=%d, suite=\"stage-c-8-gpu-h100\", labels=[\"short\"])\n", est)
	}
	root := testutil.TempTree(t, map[string]string{
		"tests/e2e/test_moves.py":  reg(100),
		"tests/e2e/test_steady.py": reg(100),
		"tests/e2e/test_slow.py":   reg(10),
	})
	dir := writeHistoryReports(t, map[string][]float64{
		// median 105, within 60s of 100; p90 110 + 0.6 * 190 = 224.
		"tests/e2e/test_moves.py": {300, 95, 105, 100, 110},
		// p90 103.6: within the threshold either way.
		"tests/e2e/test_steady.py": {100, 101, 102, 103, 104},
		// median 220, p90 236: both drift.
		"tests/e2e/test_slow.py": {200, 210, 220, 230, 240},
	})
	before := readTree(t, root)

	f, out, errOut := suitesFactory(root, nil)
	require.Equal(t, 1, Main([]string{"--root", root, "timings", "apply", "--from", dir, "--check"}, f), errOut.String())
	assert.Equal(t, "tests/e2e/test_slow.py:1 declared 10 measured 220 proposed 220\n", out.String(), "the median moves one")

	f, out, _ = suitesFactory(root, map[string]string{"GITHUB_ACTIONS": "true"})
	require.Equal(t, 1, Main([]string{"--root", root, "timings", "apply", "--quantile", "p90", "--from", dir, "--check"}, f))
	assert.Contains(t, out.String(), "::error file=tests/e2e/test_moves.py,line=1,title=est_time::est_time 100 drifted: measured 224s (p90 of 5 run(s)); proposed 230\n")

	f, out, errOut = suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "timings", "apply", "--quantile", "0.9", "--from", dir}, f), errOut.String())
	assert.Equal(t, "tests/e2e/test_moves.py:1 est_time 100 -> 230 (measured 224s)\n"+
		"tests/e2e/test_slow.py:1 est_time 10 -> 240 (measured 236s)\n", out.String())
	after := readTree(t, root)
	assert.Equal(t, string(before["tests/e2e/test_steady.py"]), string(after["tests/e2e/test_steady.py"]))
	assert.Equal(t, reg(230), string(after["tests/e2e/test_moves.py"]))
	assert.Equal(t, reg(240), string(after["tests/e2e/test_slow.py"]))

	py := testutil.NeedPython(t)
	cmd := exec.Command(py, "-c", `
import json
from tests.ci.ci_register import ut_parse_one_file
print(json.dumps({f: [r.est_time for r in ut_parse_one_file(f)] for f in ["tests/e2e/test_moves.py", "tests/e2e/test_slow.py", "tests/e2e/test_steady.py"]}))`)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "PYTHONPATH="+testutil.MilesRef(t))
	pyOut, err := cmd.CombinedOutput()
	require.NoError(t, err, string(pyOut))
	var pyEst map[string][]float64
	require.NoError(t, json.Unmarshal(pyOut, &pyEst))
	assert.Equal(t, map[string][]float64{"tests/e2e/test_moves.py": {230}, "tests/e2e/test_slow.py": {240}, "tests/e2e/test_steady.py": {100}}, pyEst)

	f, out, errOut = suitesFactory(root, nil)
	require.Equal(t, 0, Main([]string{"--root", root, "timings", "apply", "--quantile", "p90", "--from", dir, "--check"}, f), errOut.String())
	assert.Empty(t, out.String(), "a second apply finds nothing drifted")
}

// A store that accepts the connection and never answers costs the run
// its bound (5 seconds to connect), one warning, and nothing else.
func TestHistory_AStoreThatNeverAnswersCostsItsBound(t *testing.T) {
	testutil.SkipShort(t, "a run that waits out the 5 s bound")
	// A short directory: a socket's path has at most 107 bytes.
	dir, err := os.MkdirTemp("", "pg")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, ".s.PGSQL.5432"))
	require.NoError(t, err)
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			c.Close()
		}
	})
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", ""), "tests/e2e/test_b.py": gpuTest("b", "exit 5")})
	code, out, errOut := miles(t, root, map[string]string{envHistoryURL: "postgresql://u:pw@/db?host=" + dir}, runArgs("--continue-on-error")...)
	assert.Equal(t, 1, code, "test_b's failure, as without a store")
	assert.Contains(t, out, "FAILED:\n  tests/e2e/test_b.py (exit code 5)")
	assert.Equal(t, 1, strings.Count(errOut, "warning: history:"), errOut)
	assert.Contains(t, errOut, "warning: history: the store MILES_CI_HISTORY_URL names failed (connect: ")
	assert.NotContains(t, errOut, dir)
}

// The store's URL is a secret: the tests a run starts do not see it.
func TestHistory_TheTestsDoNotSeeTheURL(t *testing.T) {
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", `echo "url=[$MILES_CI_HISTORY_URL]"`)})
	cmd := milesCommand(t, root, map[string]string{envHistoryURL: "postgresql://u:pw@/db?host=" + t.TempDir()},
		historyRunArgs(root, 0, 1, filepath.Join(t.TempDir(), "r.json"))...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Contains(t, string(out), "url=[]\n")
	assert.NotContains(t, string(out), "pw@")
}

// A command timings apply suggests names the variable, never the URL.
func TestTimingsApply_ASuggestedCommandNeverPrintsTheURL(t *testing.T) {
	f, _, _ := suitesFactory(".", nil)
	opts := &TimingsApplyOptions{From: "postgresql://u:hunter2@db.example/history", Threshold: applyDefaultThreshold,
		MinRuns: applyDefaultMinRuns, TimeoutPerFile: applyDefaultTimeout, Quantile: "0.9",
		historyFilterFlags: historyFilterFlags{Last: 20}}
	assert.Equal(t, `miles-ci timings apply --quantile 0.9 --last 20 --from "$MILES_CI_HISTORY_URL"`, opts.command(f, timings.Write))
	opts.From, opts.Inputs = "reports/", []string{"-odd.json"}
	assert.Equal(t, `miles-ci timings apply --quantile 0.9 --last 20 --from reports/ --check -- -odd.json`, opts.command(f, timings.Check))
}

// --last 0 and --days 0 once read the whole history (timings apply
// rewrote est_time values from every run): every command that takes the
// flags refuses a 0 as a usage error naming the flag, and still takes 1.
func TestHistoryFilters_ZeroLastOrDaysIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	root := NewCmdRoot(&Factory{})
	var takers []string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
		if c.Flags().Lookup("last") == nil && c.Flags().Lookup("days") == nil {
			return
		}
		takers = append(takers, strings.Join(path, " "))
		from, flags := []string{"--from", dir}, []string{"--last", "--days"}
		if strings.Join(path, " ") == "report hosts" {
			// Its --days is the window of its drain: it reads the reports
			// it is given, and counts no runs.
			from, flags = []string{dir, "--drain"}, []string{"--days"}
		}
		for _, flag := range flags {
			require.NotNil(t, c.Flags().Lookup(flag[2:]), "%v takes --last and --days together", path)
			for _, spelling := range [][]string{{flag, "0"}, {flag + "=0"}, {flag, "-0"}} {
				args := append(append(slices.Clone(path), from...), spelling...)
				code, out, errOut := askAt(t, args...)
				assert.Equal(t, exitUsage, code, "%v: %s", args, errOut)
				assert.Empty(t, out, "%v", args)
				first, _, _ := strings.Cut(errOut, "\n")
				assert.Contains(t, first, `"`+flag+`"`, "%v: the error names the flag", args)
				assert.Contains(t, first, "not a whole number >= 1", "%v", args)
			}
			args := append(append(slices.Clone(path), from...), flag, "1")
			if strings.Join(path, " ") == "report triage" {
				args = append(args, "../../testdata/docs/attempt-1-shard-0.json") // the run it triages
			}
			code, _, errOut := askAt(t, args...)
			assert.NotEqual(t, exitUsage, code, "%v: 1 is a count: %s", args, errOut)
		}
	}
	walk(root, nil)
	want := []string{"timings apply", "report hosts", "report triage"}
	for _, q := range historyQuestionNames() {
		want = append(want, "history "+q)
	}
	assert.ElementsMatch(t, want, takers)
}
