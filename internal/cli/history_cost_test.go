package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The month of the acceptance of issue 38: 30 nights of costSuite (8
// GPUs: runs_on [h100, 8gpu] in the built-in configuration) in three
// shards, shard s of night n on costHosts[(n+s)%3], beside a few runs of
// two other suites. Every job knows its setup but night 7's.
//
//   - runner-x is broken: the first file of each job there fails twice
//     with cause infra and a preflight stops the job (its other files NOT
//     RUN), but one night in four its retry passes and the job goes on,
//     and another night in four the preflight stops the job before its
//     first file (no file runs; the run took 61.375 s).
//   - test_flaky.py (shard 0) fails its first attempt and passes its
//     retry every third night.
//   - test_drift_a.py (shard 1) and test_drift_b.py (shard 2) get slower
//     every night: from night 21 drift_a runs into its 300 s limit twice
//     (the failure stands), from night 17 drift_b into its 150 s limit
//     once and passes its retry.
//   - test_real.py (shard 2) fails twice, cause test, every tenth night.
//   - stage-b-2-gpu-h200 (2 GPUs) runs five pull requests, the last one
//     interrupted in the retry of a failure; stage-z-own-runners, which the configuration does not
//     hold (1 GPU, assumed), runs twice a month.
const (
	costSuite   = "stage-c-8-gpu-h100"
	costPRSuite = "stage-b-2-gpu-h200"
	costOwn     = "stage-z-own-runners"
)

var costHosts = []string{"runner-a", "runner-b", "runner-x"}

// costAtt is an attempt of the month: status, cause, seconds.
type costAtt struct {
	status  report.Status
	cause   report.Cause
	elapsed float64
}

func cPass(s float64) costAtt    { return costAtt{report.Pass, "", s} }
func cFail(s float64) costAtt    { return costAtt{report.Fail, report.CauseTest, s} }
func cInfra(s float64) costAtt   { return costAtt{report.Fail, report.CauseInfra, s} }
func cTimeout(s float64) costAtt { return costAtt{report.Timeout, report.CauseTimeout, s} }

// costFile is a file of a job: its name and attempts (none: not run).
type costFile struct {
	name string
	atts []costAtt
}

// costJob writes one job's report below dir; setup < 0 is a job that did
// not know when it started. A job a preflight stopped before any of its
// files ran has no first test.
func costJob(t *testing.T, dir string, host report.Host, suite, cadence string, started time.Time, part *report.Partition,
	setup float64, stopped bool, files []costFile) {
	t.Helper()
	r := &report.Report{Suite: suite, Backend: "cuda", Partition: part, Cadence: cadence, Started: report.Stamp(started),
		Host: &host, HostNotReady: stopped}
	first := started.Add(time.Second)
	r.FirstTestStarted = first.Format(time.RFC3339Nano)
	if ran := slices.ContainsFunc(files, func(f costFile) bool { return len(f.atts) > 0 }); stopped && !ran {
		r.FirstTestStarted, r.Elapsed = "", 61.375
	}
	if setup >= 0 {
		r.JobStarted = first.Add(-time.Duration(math.Round(setup*1000)) * time.Millisecond).Format(time.RFC3339Nano)
	}
	for _, cf := range files {
		f := report.File{File: cf.name, EstTime: 120, Status: report.NotRun}
		if len(cf.atts) == 0 {
			f.Reason = "not run: host not ready"
		}
		for i, a := range cf.atts {
			att := report.Attempt{Attempt: i + 1, Status: a.status, Elapsed: a.elapsed, Timeout: 300, Cause: a.cause}
			if a.status == report.Fail && a.cause == report.CauseInfra {
				att.Fingerprint = "cuda-802"
			}
			if a.status != report.Pass {
				att.Reason = "exit 1"
			}
			f.AttemptsDetail = append(f.AttemptsDetail, att)
			f.Status, f.Attempts, f.Elapsed, f.Cause, f.Reason = a.status, i+1, a.elapsed, a.cause, att.Reason
		}
		r.Files = append(r.Files, f)
	}
	r.Finish()
	data, err := report.Marshal(r)
	require.NoError(t, err)
	name := fmt.Sprintf("%s-%s/report-%s", host.RunID, host.RunAttempt, suite)
	if part != nil {
		name += fmt.Sprintf("-%d", part.ID)
	}
	path := filepath.Join(dir, name, "report.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// costMonth writes the month's reports into a new directory and returns
// it with the number of attempts written and of jobs a preflight
// stopped.
func costMonth(t *testing.T) (dir string, attempts, stops int) {
	t.Helper()
	dir = t.TempDir()
	count := func(files []costFile) []costFile {
		for _, f := range files {
			attempts += len(f.atts)
		}
		return files
	}
	for n := range monthNights {
		for s := range 3 {
			runner := costHosts[(n+s)%3]
			host := report.Host{Runner: runner, Hostname: fmt.Sprintf("c%02d%d", n, s), Repository: "radixark/miles",
				RunID: fmt.Sprint(7000 + n), RunAttempt: "1", Workflow: "Nightly", Event: "schedule", Job: "gpu", SHA: fmt.Sprintf("%07xc0575", n+1)}
			var files []costFile
			switch s {
			case 0:
				flaky := []costAtt{cPass(40.25)}
				if n%3 == 0 {
					flaky = []costAtt{cFail(41.5), cPass(40.25)}
				}
				files = []costFile{{"tests/e2e/test_flaky.py", flaky}, {"tests/e2e/test_ok_0.py", []costAtt{cPass(12.001)}}}
			case 1:
				drift := []costAtt{cPass(200 + 5*float64(n))}
				if n > 20 {
					drift = []costAtt{cTimeout(300.004), cTimeout(300.002)}
				}
				files = []costFile{{"tests/e2e/test_drift_a.py", drift}, {"tests/e2e/test_ok_1.py", []costAtt{cPass(7.777)}}}
			case 2:
				drift := []costAtt{cPass(100.5 + 3*float64(n))}
				if n >= 17 {
					drift = []costAtt{cTimeout(150.001), cPass(149.5)}
				}
				real := []costAtt{cPass(20)}
				if n%10 == 9 {
					real = []costAtt{cFail(20), cFail(20.5)}
				}
				files = []costFile{{"tests/e2e/test_drift_b.py", drift}, {"tests/e2e/test_real.py", real}}
			}
			stopped := false
			if runner == "runner-x" {
				switch n % 4 {
				case 1:
					files[0].atts = []costAtt{cInfra(3.3), files[0].atts[len(files[0].atts)-1]}
				case 3:
					files[0].atts, files[1].atts = nil, nil
					stopped = true
					stops++
				default:
					files[0].atts = []costAtt{cInfra(3.3), cInfra(2.2)}
					files[1].atts = nil
					stopped = true
					stops++
				}
			}
			setup := 100 + 10*float64(s) + float64(n%7) + 0.123
			if n == 7 {
				setup = -1
			}
			costJob(t, dir, host, costSuite, "nightly", monthStart.Add(time.Duration(n)*24*time.Hour+time.Duration(s)*time.Minute),
				&report.Partition{ID: s, Size: 3}, setup, stopped, count(files))
		}
	}
	for i := range 5 {
		pr := 400 + i
		host := report.Host{Runner: "runner-a", Hostname: fmt.Sprintf("pr%d", i), Repository: "radixark/miles",
			RunID: fmt.Sprint(9500 + i), RunAttempt: "1", Workflow: "PR Test", Event: "pull_request", Job: "gpu", PR: &pr}
		atts := []costAtt{cPass(30.03)}
		if i == 4 {
			atts = []costAtt{cFail(12.5), {report.Interrupted, "", 5.5}}
		}
		costJob(t, dir, host, costPRSuite, "regular", monthStart.Add(time.Duration(i)*6*24*time.Hour+12*time.Hour), nil, 60,
			false, count([]costFile{{"tests/e2e/test_pr.py", atts}}))
	}
	for i := range 2 {
		host := report.Host{Runner: "runner-b", Hostname: fmt.Sprintf("own%d", i), Repository: "radixark/miles",
			RunID: fmt.Sprint(9600 + i), RunAttempt: "1", Workflow: "Weekly", Event: "schedule", Job: "own"}
		costJob(t, dir, host, costOwn, "weekly", monthStart.Add(time.Duration(i)*14*24*time.Hour+18*time.Hour), nil, 10,
			false, count([]costFile{{"tests/e2e/test_own.py", []costAtt{cPass(99.999)}}}))
	}
	return dir, attempts, stops
}

// costAnswerFigures is a cost as `history cost --json` gives it, its numbers
// as written.
type costAnswerFigures struct {
	GPUSeconds map[string]json.Number `json:"gpu_seconds"`
	GPUHours   map[string]json.Number `json:"gpu_hours"`
}

// costAnswer is `history cost --json`, read with its keys.
type costAnswer struct {
	Jobs         int `json:"jobs"`
	Attempts     int `json:"attempts"`
	SetupUnknown int `json:"setup_unknown"`
	costAnswerFigures
	Suites []struct {
		Suite        string `json:"suite"`
		Backend      string `json:"backend"`
		GPUs         int    `json:"gpus"`
		GPUsFrom     string `json:"gpus_from"`
		Jobs         int    `json:"jobs"`
		SetupUnknown int    `json:"setup_unknown"`
		costAnswerFigures
	} `json:"suites"`
	Cadences []struct {
		Cadence      string `json:"cadence"`
		Jobs         int    `json:"jobs"`
		SetupUnknown int    `json:"setup_unknown"`
		costAnswerFigures
	} `json:"cadences"`
	Files []struct {
		File  string `json:"file"`
		Suite string `json:"suite"`
		costAnswerFigures
	} `json:"top_wasted_files"`
	FilesLeftOut struct {
		Files  int         `json:"files"`
		Wasted json.Number `json:"wasted_gpu_seconds"`
	} `json:"files_left_out"`
}

// reportCost is the cost computed from the reports' JSON alone, as help
// history defines it: GPU-milliseconds by category.
type reportCost map[string]int64

func (c reportCost) sum(names ...string) int64 {
	var n int64
	for _, k := range names {
		n += c[k]
	}
	return n
}

var (
	usefulNames = []string{"passed", "failed", "setup"}
	wastedNames = []string{"infra", "timeout", "retried", "idle_setup", "preflight", "interrupted"}
)

// seconds writes GPU-milliseconds as the answer's GPU-seconds.
func (c reportCost) seconds() map[string]json.Number {
	out := map[string]json.Number{}
	for _, k := range append(slices.Clone(usefulNames), wastedNames...) {
		out[k] = json.Number(fmt.Sprintf("%d.%03d", c[k]/1000, c[k]%1000))
	}
	u, w := c.sum(usefulNames...), c.sum(wastedNames...)
	out["useful"] = json.Number(fmt.Sprintf("%d.%03d", u/1000, u%1000))
	out["wasted"] = json.Number(fmt.Sprintf("%d.%03d", w/1000, w%1000))
	out["total"] = json.Number(fmt.Sprintf("%d.%03d", (u+w)/1000, (u+w)%1000))
	return out
}

// costFromReports reads every report.json below dir as plain JSON (not
// through package report or history) and costs it: each attempt by its
// status, cause and its file's last attempt, each job's setup (from
// job_started to first_test_started; for a job no test of which started,
// to its end: started plus elapsed) as preflight when a preflight stopped
// the job (host_not_ready), else by whether an attempt of the job was
// useful, times the GPUs of the suite.
func costFromReports(t *testing.T, dir string, gpus map[string]int64) (total reportCost, suites, cadences, files map[string]reportCost, jobs, unknown int) {
	t.Helper()
	total, suites, cadences, files = reportCost{}, map[string]reportCost{}, map[string]reportCost{}, map[string]reportCost{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var r struct {
			Suite      string  `json:"suite"`
			Cadence    string  `json:"cadence"`
			JobStarted string  `json:"job_started"`
			FirstTest  string  `json:"first_test_started"`
			Started    string  `json:"started"`
			Elapsed    float64 `json:"elapsed"`
			Stopped    bool    `json:"host_not_ready"`
			Files      []struct {
				File     string `json:"file"`
				Attempts []struct {
					Status  string  `json:"status"`
					Cause   string  `json:"cause"`
					Elapsed float64 `json:"elapsed"`
				} `json:"attempts_detail"`
			} `json:"files"`
		}
		require.NoError(t, json.Unmarshal(data, &r))
		n, ok := gpus[r.Suite]
		require.True(t, ok, r.Suite)
		jobs++
		charge := func(cat string, ms int64, file string) {
			for _, c := range []reportCost{total, suites[r.Suite], cadences[r.Cadence]} {
				c[cat] += ms * n
			}
			if file != "" {
				files[file+" "+r.Suite][cat] += ms * n
			}
		}
		if suites[r.Suite] == nil {
			suites[r.Suite] = reportCost{}
		}
		if cadences[r.Cadence] == nil {
			cadences[r.Cadence] = reportCost{}
		}
		useful := false
		for _, f := range r.Files {
			if len(f.Attempts) == 0 {
				continue
			}
			if files[f.File+" "+r.Suite] == nil {
				files[f.File+" "+r.Suite] = reportCost{}
			}
			last := f.Attempts[len(f.Attempts)-1].Status
			for _, a := range f.Attempts {
				var cat string
				switch {
				case a.Status == "PASS":
					cat = "passed"
				case a.Cause == "infra":
					cat = "infra"
				case a.Status == "TIMEOUT":
					cat = "timeout"
				case a.Status == "FAIL" && last == "PASS":
					cat = "retried"
				case a.Status == "FAIL" && (last == "FAIL" || last == "TIMEOUT"):
					cat = "failed"
				default:
					cat = "interrupted"
				}
				useful = useful || cat == "passed" || cat == "failed"
				charge(cat, int64(math.Round(a.Elapsed*1000)), f.File)
			}
		}
		job, err1 := time.Parse(time.RFC3339Nano, r.JobStarted)
		first, err2 := time.Parse(time.RFC3339Nano, r.FirstTest)
		if r.FirstTest == "" && r.Stopped {
			started, err := time.Parse(time.RFC3339Nano, r.Started)
			require.NoError(t, err)
			first, err2 = started.Add(time.Duration(math.Round(r.Elapsed*1000))*time.Millisecond), nil
		}
		if err1 != nil || err2 != nil {
			unknown++
			return nil
		}
		cat := "idle_setup"
		switch {
		case r.Stopped:
			cat = "preflight"
		case useful:
			cat = "setup"
		}
		charge(cat, first.Sub(job).Milliseconds(), "")
		return nil
	})
	require.NoError(t, err)
	return total, suites, cadences, files, jobs, unknown
}

// Over a month of nightlies with a broken host, a flaky file and two
// drifting ones, `history cost --json` is what the reports' own JSON
// says, figure by figure, from the directory and from PostgreSQL (as
// imported, and written in a shuffled order) byte for byte; and the
// categories add up.
func TestHistoryCost_AMonthOfNightliesIsWhatTheReportsSayFromBothStores(t *testing.T) {
	testutil.SkipShort(t, "a month of nightlies in a directory and two databases")
	dir, attempts, stops := costMonth(t)
	require.Equal(t, 22, stops, "8 nights in 30 the job on runner-x goes on")
	// A row per attempt, and one per job a preflight stopped.
	urls := historyStores(t, dir, fmt.Sprintf("history import: %d rows added, 0 already present, from 97 reports\n", attempts+stops))

	code, out := askBoth(t, dir, urls, "history", "cost", "--json")
	require.Equal(t, 0, code)
	var got costAnswer
	require.NoError(t, json.Unmarshal([]byte(out), &got))

	gpus := map[string]int64{costSuite: 8, costPRSuite: 2, costOwn: 1}
	total, suites, cadences, files, jobs, unknown := costFromReports(t, dir, gpus)
	assert.Equal(t, [3]int{97, attempts, 3}, [3]int{got.Jobs, got.Attempts, got.SetupUnknown})
	assert.Equal(t, [2]int{jobs, unknown}, [2]int{got.Jobs, got.SetupUnknown})
	assert.Equal(t, total.seconds(), got.GPUSeconds)
	for _, k := range []string{"passed", "failed", "setup", "infra", "timeout", "retried", "idle_setup", "preflight", "interrupted"} {
		assert.NotZero(t, total[k], "the month has some of %s", k)
	}

	var gotSuites []string
	for _, s := range got.Suites {
		gotSuites = append(gotSuites, fmt.Sprintf("%s %s %d %s %d", s.Suite, s.Backend, s.GPUs, s.GPUsFrom, s.Jobs))
		assert.Equal(t, suites[s.Suite].seconds(), s.GPUSeconds, s.Suite)
	}
	assert.Equal(t, []string{
		costPRSuite + " cuda 2 runs_on 5", costSuite + " cuda 8 runs_on 90", costOwn + " cuda 1 unconfigured 2",
	}, gotSuites)
	var gotCadences []string
	for _, c := range got.Cadences {
		gotCadences = append(gotCadences, c.Cadence)
		assert.Equal(t, cadences[c.Cadence].seconds(), c.GPUSeconds, c.Cadence)
	}
	assert.Equal(t, []string{"nightly", "regular", "weekly"}, gotCadences)

	// The files by wasted GPU time, computed from the reports.
	type ranked struct {
		key    string
		wasted int64
	}
	var want []ranked
	for k, c := range files {
		if w := c.sum(wastedNames...); w > 0 {
			want = append(want, ranked{k, w})
		}
	}
	slices.SortFunc(want, func(x, y ranked) int {
		if x.wasted != y.wasted {
			return int(y.wasted - x.wasted)
		}
		return strings.Compare(x.key, y.key)
	})
	var gotFiles, wantFiles []string
	for _, f := range got.Files {
		gotFiles = append(gotFiles, f.File+" "+f.Suite)
		assert.Equal(t, files[f.File+" "+f.Suite].seconds(), f.GPUSeconds, f.File)
	}
	for _, w := range want {
		wantFiles = append(wantFiles, w.key)
	}
	assert.Equal(t, wantFiles, gotFiles, "fewer files than the bound wasted time: all of them, most first")
	assert.Equal(t, costSuite, got.Files[0].Suite)
	assert.Equal(t, "tests/e2e/test_drift_a.py", got.Files[0].File, "nine nights of two timeouts at 300 s")
	assert.Equal(t, 0, got.FilesLeftOut.Files)

	// The text says the same totals, and that one suite was assumed.
	code, text := askBoth(t, dir, urls, "history", "cost")
	require.Equal(t, 0, code)
	u, w := total.sum(usefulNames...), total.sum(wastedNames...)
	assert.Contains(t, text, fmt.Sprintf("in GPU-seconds, %s = %s + %s\n", total.seconds()["total"], json.Number(fmt.Sprintf("%d.%03d", u/1000, u%1000)),
		json.Number(fmt.Sprintf("%d.%03d", w/1000, w%1000))))
	assert.Contains(t, text, "\n"+costOwn+"  cuda     assumed: not configured     1     2 ")
	assert.Contains(t, text, "1 suite counted as 1 GPU a job (GPUS FROM: assumed)")
	assert.Contains(t, text, "3 jobs knew no setup (NO SETUP)")

	// history hosts counts the jobs a preflight stopped as report hosts
	// does over the same reports: the hosts' table and verdict are the
	// same bytes, in text and JSON (a job's own line differs only by the
	// files it never ran, which the history does not keep).
	_, hosts := askBoth(t, dir, urls, "history", "hosts")
	_, rhosts, _ := askAt(t, "report", "hosts", dir)
	hostTable := func(out string) string { return out[strings.Index(out, "\nHOST ")+1:] }
	assert.Equal(t, hostTable(rhosts), hostTable(hosts))
	assert.Contains(t, hosts, fmt.Sprintf("; %d jobs stopped by the GPU preflight: host not ready\n", stops))
	_, hostsJSON := askBoth(t, dir, urls, "history", "hosts", "--json")
	_, rhostsJSON, _ := askAt(t, "report", "hosts", "--json", dir)
	type hostsDoc struct {
		Hosts    []map[string]any `json:"hosts"`
		Suspects []string         `json:"suspects"`
	}
	var h, rh hostsDoc
	require.NoError(t, json.Unmarshal([]byte(hostsJSON), &h))
	require.NoError(t, json.Unmarshal([]byte(rhostsJSON), &rh))
	assert.Equal(t, rh, h)

	// The filters narrow it as every question's: the nightlies alone.
	_, nightly := askBoth(t, dir, urls, "history", "cost", "--cadence", "nightly", "--json")
	var n costAnswer
	require.NoError(t, json.Unmarshal([]byte(nightly), &n))
	assert.Equal(t, cadences["nightly"].seconds(), n.GPUSeconds)
	assert.Equal(t, 90, n.Jobs)
}

// A suite whose runs_on names no GPU count is charged one GPU a job and
// said to be; the gpus key wins over a label; an empty history is an
// answer, in text and in JSON.
func TestHistoryCost_TheGPUsComeFromTheConfiguration(t *testing.T) {
	from, err := filepath.Abs("../../testdata/docs/history-cost")
	require.NoError(t, err)
	overlay := func(suite string) string {
		path := filepath.Join(t.TempDir(), "ci.yaml")
		require.NoError(t, os.WriteFile(path, []byte("extends: default\nsuites:\n  cuda:\n"+suite), 0o644))
		return path
	}
	bare := overlay("    - name: stage-c-8-gpu-h100\n      runs_on: [h100]\n")
	code, out, errOut := askAt(t, "--config", bare, "history", "cost", "--from", from)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nstage-c-8-gpu-h100  cuda     assumed: no count in runs_on     1     4         1 ")
	assert.Contains(t, out, "total 2.035 GPU-hours of 4 jobs")
	assert.Contains(t, out, "\n1 suite counted as 1 GPU a job (GPUS FROM: assumed)")

	keyed := overlay("    - name: stage-c-8-gpu-h100\n      runs_on: [h100, 8gpu]\n      gpus: 4\n")
	code, out, errOut = askAt(t, "--config", keyed, "history", "cost", "--from", from, "--json")
	require.Equal(t, 0, code, errOut)
	var got costAnswer
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Len(t, got.Suites, 1)
	assert.Equal(t, [2]string{"4", "gpus"}, [2]string{fmt.Sprint(got.Suites[0].GPUs), got.Suites[0].GPUsFrom})
	assert.Equal(t, json.Number("29310.000"), got.GPUSeconds["total"], "half the 8 GPUs' 58620 GPU-seconds")

	empty := t.TempDir()
	code, out, _ = askAt(t, "history", "cost", "--from", empty)
	assert.Equal(t, 0, code)
	assert.Equal(t, noAttempt+"\n", out)
	code, out, _ = askAt(t, "history", "cost", "--from", empty, "--json")
	assert.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, json.Number("0.000"), got.GPUSeconds["total"])
	assert.Contains(t, out, `"suites": [],`)
	assert.Contains(t, out, `"top_wasted_files": [],`)
}

// Real runs writing to the database as their files finish: one whose
// host has no GPU tool in a GitHub Actions job (a preflight stops it
// before its first file, exit 75), one that runs. The database written
// live holds the stop row as the reports give it (an import adds
// nothing), and both stores give history cost and history hosts the
// same bytes, the stopped job's setup as preflight.
func TestHistoryCost_ALiveRunAPreflightStoppedWritesItsStopRow(t *testing.T) {
	testutil.SkipShort(t, "a live run against a database, then an import")
	url := testutil.Postgres(t).NewDatabase(t)
	root := historyRepo(t)
	reports := t.TempDir()
	for i, stopped := range []bool{true, false} {
		env := ghEnv(3000 + i)
		env["MILES_CI_JOB_STARTED"] = time.Now().Add(-2 * time.Minute).UTC().Format(time.RFC3339)
		if stopped {
			env["GITHUB_ACTIONS"] = "true" // a GPU job with no nvidia-smi on PATH
		}
		args := append(historyRunArgs(root, 0, 1, filepath.Join(reports, fmt.Sprintf("r%d.json", i))), "--history", url)
		cmd := milesCommand(t, root, env, args...)
		out, _ := cmd.CombinedOutput()
		want := exitFailure // test_fail.py fails
		if stopped {
			want = exitHostNotReady
		}
		require.Equal(t, want, cmd.ProcessState.ExitCode(), string(out))
		require.NotContains(t, string(out), "warning: history", string(out))
	}
	code, out, errOut := askAt(t, "history", "import", "--to", url, reports)
	require.Equal(t, 0, code, errOut)
	assert.Regexp(t, `^history import: 0 rows added, \d+ already present, from 2 reports\n$`, out, "the run wrote every row, the stop row too")

	_, costJSON := askBoth(t, reports, []string{url}, "history", "cost", "--json")
	var got costAnswer
	require.NoError(t, json.Unmarshal([]byte(costJSON), &got))
	assert.Equal(t, 2, got.Jobs)
	assert.NotEqual(t, json.Number("0.000"), got.GPUSeconds["preflight"], "the stopped job held its host about two minutes")
	_, hosts := askBoth(t, reports, []string{url}, "history", "hosts")
	assert.Contains(t, hosts, "1 job stopped by the GPU preflight: host not ready")
}

func TestCostCategoryRow(t *testing.T) {
	var cost history.Cost
	cost[history.Passed] = 3 * 3_600_000
	cost[history.Infra] = 3_600_000
	cases := []struct {
		name string
		cost history.Cost
		c    history.Category
		want []string
	}{
		{"a useful category and its share", cost, history.Passed, []string{"useful", "passed", "3.000", "75.0%"}},
		{"a wasted category, its name spelled with blanks", cost, history.IdleSetup, []string{"wasted", "idle setup", "0.000", "0.0%"}},
		{"no GPU time at all: no share", history.Cost{}, history.Infra, []string{"wasted", "infra", "0.000", "-"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, costCategoryRow(c.c, &c.cost))
		})
	}
}

func TestCostNotes(t *testing.T) {
	suites := []*history.SuiteCost{{Source: history.GPUsKey}, {Source: history.GPUsNoCount}, {Source: history.GPUsUnconfigured},
		{Source: history.GPUsCPU}}
	const (
		leftOut = "3 files more wasted 1.000 GPU-hours (the 10 that wasted the most are listed)\n"
		assumed = "2 suites counted as 1 GPU a job (GPUS FROM: assumed): give a suite gpus: N in the configuration (miles-ci help config)\n"
		noSetup = "1 job knew no setup (NO SETUP), which costs nothing here: set MILES_CI_JOB_STARTED in the job's first step (miles-ci help migrate)\n"
	)
	cases := []struct {
		name string
		res  history.CostResult
		want string
	}{
		{"nothing to say", history.CostResult{Suites: suites[:1]}, ""},
		{"the files left out", history.CostResult{FilesLeftOut: 3, LeftOutWasted: 3_600_000}, leftOut},
		{"the suites whose GPUs were assumed", history.CostResult{Suites: suites}, assumed},
		{"the jobs that knew no setup", history.CostResult{SetupUnknown: 1}, noSetup},
		{"all three, in that order", history.CostResult{Suites: suites, FilesLeftOut: 3, LeftOutWasted: 3_600_000, SetupUnknown: 1},
			leftOut + assumed + noSetup},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, costNotes(&c.res))
		})
	}
}

// GPU-hours round half up to a thousandth, the largest sum a cost holds
// (history.Cost saturates there) too: adding the half first wrapped it
// negative ("-2562047788015.-215").
func TestGPUHours_RoundsHalfUpUpToTheLargestSum(t *testing.T) {
	for ms, want := range map[int64]string{0: "0.000", 1799: "0.000", 1800: "0.001", 3600: "0.001", 5399: "0.001",
		5400: "0.002", 3_600_000: "1.000", math.MaxInt64: "2562047788015.216"} {
		assert.Equal(t, want, gpuHours(ms), "%d ms", ms)
	}
}
