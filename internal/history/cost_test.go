package history

import (
	"math"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
)

// costAtt is one attempt of costJobRows: its status, cause and seconds.
type costAtt struct {
	status  report.Status
	cause   report.Cause
	elapsed float64
}

// costJobRows are the rows of one job of suite s (cuda): file -> attempts
// in order, the files in the order given, and the job's setup (nil:
// unknown).
func costJobRows(id, suite, cadence string, setup *float64, files ...any) []Row {
	run := costRun(id, suite, cadence, setup)
	var rows []Row
	for i := 0; i < len(files); i += 2 {
		for n, a := range files[i+1].([]costAtt) {
			rows = append(rows, Row{Run: run, File: files[i].(string), Attempt: n + 1, Status: a.status, Cause: a.cause, Elapsed: a.elapsed})
		}
	}
	return rows
}

// costRun is the run of costJobRows.
func costRun(id, suite, cadence string, setup *float64) Run {
	return Run{Repository: "o/r", RunID: id, RunAttempt: "1", Job: "gpu", Suite: suite, Backend: "cuda", Cadence: cadence,
		Started: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Setup: setup}
}

func secs(v float64) *float64 { return &v }

// Two GPUs a job: every attempt in one category by its status, cause and
// the file's last attempt; each job's setup once, useful when an attempt
// of the job was, idle when none was, unknown when the run did not know
// it; the categories add up to the total.
func TestCost_EachAttemptAndSetupFallsInOneCategory(t *testing.T) {
	pass := costAtt{report.Pass, "", 10}
	fail := costAtt{report.Fail, report.CauseTest, 3}
	infra := costAtt{report.Fail, report.CauseInfra, 5}
	infraTimeout := costAtt{report.Timeout, report.CauseInfra, 7}
	timeout := costAtt{report.Timeout, report.CauseTimeout, 100}
	stop := costAtt{report.Interrupted, "", 1}
	a := NewCostAnswer(func(string, string) (int, GPUSource) { return 2, GPUsLabel })
	addRuns(t, a, [][]Row{
		costJobRows("1", "s", "nightly", secs(60),
			"a.py", []costAtt{pass},
			"b.py", []costAtt{fail, pass}, // retried, then passed
			"c.py", []costAtt{fail, fail}, // the failure stood: useful
			"d.py", []costAtt{infra, pass}, // infra, though it passed after
			"e.py", []costAtt{timeout, pass}, // a timeout, though it passed after
			"f.py", []costAtt{fail, stop}, // interrupted: the outcome never came
			"g.py", []costAtt{infraTimeout, timeout}), // infra first, then a timeout that stood
		costJobRows("2", "s", "nightly", secs(30), "a.py", []costAtt{infra, infra}), // nothing useful: idle setup
		costJobRows("3", "s", "regular", nil, "a.py", []costAtt{pass}),              // setup unknown
	})
	res := a.Result()
	want := Cost{}
	want[Passed] = 2 * (10 + 10 + 10 + 10 + 10) * 1000
	want[Failed] = 2 * (3 + 3) * 1000
	want[Setup] = 2 * 60 * 1000
	want[Infra] = 2 * (5 + 7 + 5 + 5) * 1000
	want[TimedOut] = 2 * (100 + 100) * 1000
	want[Retried] = 2 * 3 * 1000
	want[IdleSetup] = 2 * 30 * 1000
	want[Interrupted] = 2 * (3 + 1) * 1000
	assert.Equal(t, want, res.Cost)
	assert.Equal(t, res.Cost.Total(), res.Cost.Useful()+res.Cost.Wasted())
	assert.Equal(t, int64(2*(50+6+60)*1000), res.Cost.Useful())
	assert.Equal(t, [3]int{3, 16, 1}, [3]int{res.Jobs, res.Attempts, res.SetupUnknown})

	require.Len(t, res.Cadences, 2)
	assert.Equal(t, "nightly", res.Cadences[0].Cadence)
	assert.Equal(t, [2]int{2, 0}, [2]int{res.Cadences[0].Jobs, res.Cadences[0].SetupUnknown})
	assert.Equal(t, [2]int{1, 1}, [2]int{res.Cadences[1].Jobs, res.Cadences[1].SetupUnknown})
	assert.Equal(t, int64(2*10*1000), res.Cadences[1].Cost.Total())
	require.Len(t, res.Suites, 1)
	assert.Equal(t, res.Cost, res.Suites[0].Cost)

	// The files by wasted time: g (infra 7 + timeout 100), e (100), a
	// (infra 5+5 in job 2), d (5), f (3+1), b (3); c and the passes none.
	var files []string
	for _, f := range res.Files {
		files = append(files, f.File)
	}
	assert.Equal(t, []string{"g.py", "e.py", "a.py", "d.py", "f.py", "b.py"}, files)
	assert.Equal(t, int64(2*107*1000), res.Files[0].Cost.Wasted())
	assert.Zero(t, res.FilesLeftOut)
}

// The order the rows of a job's files come in (a database's, a
// directory's) changes no figure: the sums are whole GPU-milliseconds.
func TestCost_TheOrderOfJobsChangesNothing(t *testing.T) {
	jobs := [][]Row{
		costJobRows("1", "s", "nightly", secs(0.001), "a.py", []costAtt{{report.Pass, "", 0.1}}, "b.py", []costAtt{{report.Fail, report.CauseTest, 0.2}, {report.Pass, "", 0.3}}),
		costJobRows("2", "t", "nightly", secs(12.345), "a.py", []costAtt{{report.Fail, report.CauseInfra, 0.7}}),
		costJobRows("3", "s", "weekly", secs(1e6), "c.py", []costAtt{{report.Timeout, report.CauseTimeout, 1800.001}}),
	}
	gpus := func(suite, _ string) (int, GPUSource) { return len(suite) * 8, GPUsKey }
	a, b := NewCostAnswer(gpus), NewCostAnswer(gpus)
	addRuns(t, a, jobs)
	addRuns(t, b, [][]Row{jobs[2], jobs[0], jobs[1]})
	assert.Equal(t, a.Result(), b.Result())
}

// More files wasted time than the answer lists: the rest are counted,
// with the time they wasted.
func TestCost_TheFilesListIsBounded(t *testing.T) {
	var jobs [][]Row
	for i := range CostTopFiles + 3 {
		jobs = append(jobs, costJobRows(string(rune('a'+i)), "s", "nightly", nil,
			"f"+string(rune('a'+i))+".py", []costAtt{{report.Fail, report.CauseInfra, float64(i + 1)}}))
	}
	a := NewCostAnswer(func(string, string) (int, GPUSource) { return 1, GPUsNoCount })
	addRuns(t, a, jobs)
	res := a.Result()
	require.Len(t, res.Files, CostTopFiles)
	assert.Equal(t, "fm.py", res.Files[0].File, "the most wasted first")
	assert.Equal(t, 3, res.FilesLeftOut)
	assert.Equal(t, int64((1+2+3)*1000), res.LeftOutWasted)
}

// The GPUs of a job: the gpus key, else a `<N>gpu` label; none for a CPU
// run; one, said to be assumed, for a GPU suite whose labels name no
// count or that the configuration does not hold.
func TestConfigGPUs_FromTheKeyOrTheLabelElseOneAssumed(t *testing.T) {
	cfg, err := config.Parse("gpus.yaml", []byte(`extends: default
suites:
  cuda:
    - name: keyed
      runs_on: [h100, 8gpu]
      gpus: 4
    - name: bare
      runs_on: [h100]
  rocm:
    - name: labelled
      runs_on: [mi350, 8-gpu]
  cpu:
    - name: cpu
      runs_on: [ubuntu-latest]
`))
	require.NoError(t, err)
	gpus := ConfigGPUs(cfg)
	for _, c := range []struct {
		suite, backend string
		n              int
		src            GPUSource
	}{
		{"keyed", "cuda", 4, GPUsKey},
		{"labelled", "rocm", 8, GPUsLabel},
		{"bare", "cuda", 1, GPUsNoCount},
		{"cpu", "cpu", 0, GPUsCPU},
		{"cpu", "cuda", 0, GPUsCPU},
		{"gone", "cuda", 1, GPUsUnconfigured},
		{"gone", "cpu", 0, GPUsCPU},
	} {
		n, src := gpus(c.suite, c.backend)
		assert.Equal(t, c.n, n, "%s (%s)", c.suite, c.backend)
		assert.Equal(t, c.src, src, "%s (%s)", c.suite, c.backend)
		assert.Equal(t, src == GPUsNoCount || src == GPUsUnconfigured, src.Assumed())
	}
}

// BenchmarkCost_MillionRows: the answer's time per row, and the memory it
// keeps (retained-MB, after a collection): a Cost per suite, cadence and
// file, not the rows.
func BenchmarkCost_MillionRows(b *testing.B) {
	const n = 1_000_000
	for b.Loop() {
		a := NewCostAnswer(func(string, string) (int, GPUSource) { return 8, GPUsLabel })
		flakyBenchRows(n, func(r *Row) { _ = a.Add(r) })
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapAlloc)/1e6, "retained-MB")
		_ = a.Result()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/row")
}

// A job a GPU preflight stopped has its setup in preflight, whatever its
// attempts were (useful, or infra only), and wherever its stop row comes
// among its rows; a job stopped before its first test is its stop row
// alone, and costs the time it held its host; the attempts keep their
// categories.
func TestCost_TheSetupOfAJobAPreflightStoppedIsPreflight(t *testing.T) {
	stop := func(id string, setup *float64) Row {
		return Row{Run: costRun(id, "s", "nightly", setup), Status: report.NotRun, Stopped: true}
	}
	afterPass := costJobRows("1", "s", "nightly", secs(60), "a.py", []costAtt{{report.Pass, "", 10}},
		"b.py", []costAtt{{report.Fail, report.CauseInfra, 5}})
	afterInfra := costJobRows("2", "s", "nightly", secs(40), "a.py", []costAtt{{report.Fail, report.CauseInfra, 3}})
	atStart := []Row{stop("3", secs(125.5))}
	unknown := []Row{stop("4", nil)}
	plain := costJobRows("5", "s", "nightly", secs(20), "a.py", []costAtt{{report.Fail, report.CauseInfra, 2}})

	gpus := func(string, string) (int, GPUSource) { return 8, GPUsLabel }
	a, b := NewCostAnswer(gpus), NewCostAnswer(gpus)
	addRuns(t, a, [][]Row{append(slices.Clone(afterPass), stop("1", secs(60))), append(slices.Clone(afterInfra), stop("2", secs(40))),
		atStart, unknown, plain})
	addRuns(t, b, [][]Row{plain, unknown, atStart, append([]Row{stop("2", secs(40))}, afterInfra...),
		append([]Row{stop("1", secs(60))}, afterPass...)})
	res := a.Result()
	want := Cost{}
	want[Passed] = 8 * 10 * 1000
	want[Infra] = 8 * (5 + 3 + 2) * 1000
	want[Preflight] = 8 * (60 + 40 + 125.5) * 1000
	want[IdleSetup] = 8 * 20 * 1000
	assert.Equal(t, want, res.Cost)
	assert.True(t, Preflight.Wasted())
	assert.Equal(t, [3]int{5, 4, 1}, [3]int{res.Jobs, res.Attempts, res.SetupUnknown}, "a stop row is no attempt")
	assert.Equal(t, res, b.Result(), "the order of the rows changes nothing")

	// Without stop rows the same attempts cost what they always did.
	c := NewCostAnswer(gpus)
	addRuns(t, c, [][]Row{afterPass, afterInfra, plain})
	want = Cost{}
	want[Passed] = 8 * 10 * 1000
	want[Infra] = 8 * (5 + 3 + 2) * 1000
	want[Setup] = 8 * 60 * 1000
	want[IdleSetup] = 8 * (40 + 20) * 1000
	assert.Equal(t, want, c.Result().Cost)
}

// Times a report may hold (1e12 s an attempt, up to a million attempts)
// add up past an int64 of GPU-milliseconds in a few thousand attempts:
// the sums stop at the largest, never wrapping negative.
func TestCost_AbsurdTimesSaturateNeverWrap(t *testing.T) {
	huge := costAtt{report.Fail, report.CauseTest, 1e12}
	atts := make([]costAtt, 1200)
	for i := range atts {
		atts[i] = huge
	}
	a := NewCostAnswer(func(string, string) (int, GPUSource) { return 8, GPUsLabel })
	addRuns(t, a, [][]Row{
		costJobRows("1", "s", "nightly", secs(60), "a.py", atts),
		costJobRows("2", "s", "nightly", secs(60), "b.py", atts[:1]),
	})
	res := a.Result()
	for _, c := range []Cost{res.Cost, res.Suites[0].Cost, res.Cadences[0].Cost} {
		for _, cat := range Categories {
			assert.GreaterOrEqual(t, c.Of(cat), int64(0), "%v", cat)
		}
		assert.Positive(t, c.Useful())
		assert.GreaterOrEqual(t, c.Total(), c.Useful())
	}
	assert.Equal(t, int64(math.MaxInt64), res.Cost.Total())
}
