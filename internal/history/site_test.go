package history

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// siteJob is the rows of one job: suite s, shard id of 2, started on day
// (of November 2026) at minute, on runner, scheduled or not; each file
// with its attempts' statuses and seconds.
func siteJob(run string, day, minute, shard int, runner string, scheduled bool, est float64, files ...any) []Row {
	r := Run{Repository: "o/r", RunID: run, RunAttempt: "1", Job: "gpu", Suite: "s", Backend: "cuda", Cadence: "nightly",
		Started: time.Date(2026, 11, day, 2, minute, 0, 0, time.UTC), ShardID: shard, ShardSize: 2, Runner: runner, SHA: run}
	if scheduled {
		r.Event = Scheduled
	}
	setup := 30.0
	r.Setup = &setup
	var rows []Row
	for i := 0; i < len(files); i += 2 {
		for n, a := range files[i+1].([]costAtt) {
			rows = append(rows, Row{Run: r, File: files[i].(string), Attempt: n + 1, Status: a.status, Cause: a.cause,
				Elapsed: a.elapsed, EstTime: est})
		}
	}
	return rows
}

func pass(s float64) costAtt { return costAtt{report.Pass, "", s} }
func fail(s float64) costAtt { return costAtt{report.Fail, report.CauseTest, s} }

// siteJobs are five nights of two shards and a pull request's run: b.py
// fails its first attempt on runner-x every other night, c.py slows down.
func siteJobs() [][]Row {
	var jobs [][]Row
	for d := 1; d <= 5; d++ {
		run := string(rune('0' + d))
		b := []costAtt{pass(20)}
		if d%2 == 1 {
			b = []costAtt{fail(5), pass(21)}
		}
		jobs = append(jobs,
			siteJob(run, d, 0, 0, "runner-a", true, 100, "a.py", []costAtt{pass(90 + float64(d))}, "b.py", b),
			siteJob(run, d, 1, 1, "runner-x", true, 100, "c.py", []costAtt{pass(100 + 10*float64(d))}))
	}
	jobs = append(jobs, siteJob("pr", 6, 0, 0, "runner-a", false, 100, "a.py", []costAtt{pass(1)}))
	// A job a preflight stopped after an infra failure: its stop row.
	stopped := siteJob("6", 6, 5, 1, "runner-x", false, 100, "c.py", []costAtt{{report.Fail, report.CauseInfra, 3}})
	stop := Row{Run: stopped[0].Run, Status: report.NotRun, Stopped: true}
	return append(jobs, append(stopped, stop))
}

func gpus2(string, string) (int, GPUSource) { return 2, GPUsLabel }

// feed adds the jobs' rows to each answer, the jobs in order.
func feed(t *testing.T, jobs [][]Row, answers ...Answer) {
	t.Helper()
	for _, job := range jobs {
		for i := range job {
			for _, a := range answers {
				f := a.Filter(Filter{})
				if !f.keepsStatus(job[i].Status) || job[i].Stopped && !f.Stops {
					continue
				}
				require.NoError(t, a.Add(&job[i]))
			}
		}
	}
}

// The page's answer is the questions' own answers fed the rows their
// own filters keep, whatever the order of the jobs.
func TestSite_ItsAnswersAreTheQuestionsOwn(t *testing.T) {
	jobs := siteJobs()
	cost, tim, flaky, hosts := NewCostAnswer(gpus2), &TimingsAnswer{}, &FlakyAnswer{}, NewHostsAnswer(2)
	feed(t, jobs, cost, tim, flaky, hosts)
	for _, order := range [][][]Row{jobs, reversed(jobs)} {
		a := NewSiteAnswer(gpus2, 2)
		feed(t, order, a)
		assert.Equal(t, cost.Result(), a.Cost.Result())
		assert.Equal(t, tim.Files(), a.Timings.Files())
		assert.Equal(t, flaky.Result(), a.Flaky.Result())
		assert.Equal(t, hosts.Result(), a.Hosts.Result())
		for _, f := range a.Flaky.Result().Files {
			assert.NotEmpty(t, f.File, "a stop row is no file's run")
		}
	}
}

func reversed(jobs [][]Row) [][]Row {
	out := slices.Clone(jobs)
	slices.Reverse(out)
	return out
}

// The cost of each day sums to the whole, in GPU-milliseconds; the days
// kept are the latest Max, whatever the order the rows come in.
func TestDaily_KeepsTheLatestDaysWhateverTheOrder(t *testing.T) {
	jobs := siteJobs()
	var results [][]string
	for _, order := range [][][]Row{jobs, reversed(jobs)} {
		d := &Daily[*CostAnswer]{Max: 3, New: func() *CostAnswer { return NewCostAnswer(gpus2) }}
		feed(t, order, d)
		days, answers := d.Days()
		assert.Equal(t, []string{"2026-11-04", "2026-11-05", "2026-11-06"}, days)
		results = append(results, days)
		var perDay []*CostResult
		for _, a := range answers {
			perDay = append(perDay, a.Result())
		}
		assert.Equal(t, 2, perDay[0].Jobs)
		assert.Equal(t, 2, perDay[2].Jobs, "the pull request's and the stopped job")
	}
	all := &Daily[*CostAnswer]{New: func() *CostAnswer { return NewCostAnswer(gpus2) }}
	whole := NewCostAnswer(gpus2)
	feed(t, jobs, all, whole)
	var sum int64
	_, answers := all.Days()
	for _, a := range answers {
		sum += a.Result().Cost.Total()
	}
	assert.Equal(t, whole.Result().Cost.Total(), sum)
}

// A file drifts when the p90 of its passed attempts is past its latest
// est_time × the timeout factor: c.py's 150 s against 100 (a limit of
// 125); a.py's 95 s does not.
func TestSite_ADriftIsAP90PastTheLimitOfTheLatestEstTime(t *testing.T) {
	jobs := siteJobs()
	// An older run declared c.py at 200: the latest est_time counts.
	jobs = append([][]Row{siteJob("0", 1, 0, 1, "runner-x", true, 200, "c.py", []costAtt{pass(100)})}, jobs...)
	for _, order := range [][][]Row{jobs, reversed(jobs)} {
		a := NewSiteAnswer(gpus2, 2)
		feed(t, order, a)
		drifts := a.Drifts(a.Timings.Files())
		require.Len(t, drifts, 1)
		assert.Equal(t, "c.py", drifts[0].File)
		assert.Equal(t, 100.0, drifts[0].EstTime)
		assert.Equal(t, 125.0, drifts[0].Limit)
		assert.Greater(t, drifts[0].P90, 125.0)
	}
}

// The timeline is the suite's latest scheduled run, both its shards,
// each attempt after the setup and the attempts before it in file order;
// the later pull request's run is no scheduled one.
func TestSite_TheTimelineIsTheLatestScheduledRunLaidOutByFile(t *testing.T) {
	for _, order := range [][][]Row{siteJobs(), reversed(siteJobs())} {
		a := NewSiteAnswer(gpus2, 2)
		feed(t, order, a)
		tl := a.Timelines()
		require.Len(t, tl, 1)
		assert.Equal(t, "5", tl[0].RunID)
		require.Len(t, tl[0].Shards, 2)
		s0 := tl[0].Shards[0]
		assert.Equal(t, "runner-a", s0.Host)
		assert.Equal(t, []TimelineBar{
			{File: "a.py", Attempt: 1, Status: report.Pass, Start: 30, Elapsed: 95},
			{File: "b.py", Attempt: 1, Status: report.Fail, Cause: report.CauseTest, Start: 125, Elapsed: 5},
			{File: "b.py", Attempt: 2, Status: report.Pass, Start: 130, Elapsed: 21},
		}, s0.Bars)
		assert.Equal(t, 151.0, s0.End)
		assert.Equal(t, 1, tl[0].Shards[1].ShardID)
	}
}
