package history

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
)

// SiteFilter is the filter the site answer reads with: every attempt and
// every column, and the stop rows (Filter.Stops), the rows of one report
// together (Filter.Grouped), as the grouped questions it asks read them.
func SiteFilter(f Filter) Filter {
	f.Statuses = nil
	f.Grouped = true
	f.Stops = true
	f.TimingOnly = false
	return f
}

// SiteAnswer asks, in one scan, every question the CI health page
// (`history site`) shows: the answers of history cost, timings, flaky and
// hosts themselves, fed the rows their own commands read (a question that
// reads fewer rows, as timings reads the passed attempts only, skips the
// others in its Add), so that each figure of the page is the one the
// question's `--json` gives. Beside them, the same cost and timings
// answers per day, the est_time of each file's latest run, and the
// rows of each suite's latest scheduled run, for its shard timeline.
type SiteAnswer struct {
	Cost    *CostAnswer
	Timings *TimingsAnswer
	Flaky   *FlakyAnswer
	Hosts   *HostsAnswer
	// CostByDay and TimingsByDay are the cost and timings answers of
	// each of the SiteDays latest days (UTC) a run started.
	CostByDay    *Daily[*CostAnswer]
	TimingsByDay *Daily[*TimingsAnswer]

	// questions are the answers above, each with whether it reads stop
	// rows (its own Filter's Stops): a row goes to those whose own
	// filter keeps it.
	questions []siteQuestion

	est    map[timingKey]estSeen
	shards map[shardKey]*TimelineShard
	cur    *TimelineShard // the shard report being read, when it counts
	curRun Run
	curSet bool
}

// SiteDays is how many days the page draws: the latest days that have a
// run. The answers per day keep these and no other, whatever the length
// of the history.
const SiteDays = 60

// NewSiteAnswer returns the answer of the page, whose cost charges each
// job the GPUs gpus gives (see ConfigGPUs) and whose hosts verdict calls
// a host suspect at minContradicted contradicted failures.
func NewSiteAnswer(gpus func(suite, backend string) (int, GPUSource), minContradicted int) *SiteAnswer {
	a := &SiteAnswer{
		Cost:    NewCostAnswer(gpus),
		Timings: &TimingsAnswer{},
		Flaky:   &FlakyAnswer{},
		Hosts:   NewHostsAnswer(minContradicted),
		CostByDay: &Daily[*CostAnswer]{Max: SiteDays,
			New: func() *CostAnswer { return NewCostAnswer(gpus) }},
		TimingsByDay: &Daily[*TimingsAnswer]{Max: SiteDays, New: func() *TimingsAnswer { return &TimingsAnswer{} }},
		est:          map[timingKey]estSeen{},
		shards:       map[shardKey]*TimelineShard{},
	}
	for _, q := range []Answer{a.Cost, a.Timings, a.Flaky, a.Hosts, a.CostByDay, a.TimingsByDay} {
		a.questions = append(a.questions, siteQuestion{q, q.Filter(Filter{}).Stops})
	}
	return a
}

type siteQuestion struct {
	Answer
	stops bool
}

var _ Answer = (*SiteAnswer)(nil)

// Filter is SiteFilter.
func (a *SiteAnswer) Filter(f Filter) Filter { return SiteFilter(f) }

// Add gives the row to every answer whose own filter keeps it: a stop
// row (Row.Stopped) only to those that read them (cost, hosts); it is
// no attempt, with no file, est_time or bar.
func (a *SiteAnswer) Add(r *Row) error {
	for _, q := range a.questions {
		if r.Stopped && !q.stops {
			continue
		}
		if err := q.Add(r); err != nil {
			return err
		}
	}
	if r.Stopped {
		return nil
	}
	a.addEst(r)
	a.addTimeline(r)
	return nil
}

// estSeen is the est_time of a file in the latest report read that ran
// it: the latest by start, ties broken by the greater report identity,
// so that the answer does not depend on the order of the rows.
type estSeen struct {
	started time.Time
	report  string
	est     float64
}

func (a *SiteAnswer) addEst(r *Row) {
	if r.EstTime <= 0 {
		return // not recorded
	}
	k := timingKey{r.File, r.Suite, r.Backend}
	seen, ok := a.est[k]
	if ok && r.Started.Before(seen.started) {
		return
	}
	id := r.Run.report()
	if ok && r.Started.Equal(seen.started) && id <= seen.report {
		return
	}
	a.est[k] = estSeen{started: r.Started, report: id, est: r.EstTime}
}

// Drift is a file whose p90 ran past the time limit its est_time earns
// (est_time × registry.TimeoutFactor, before the run's per-file floor):
// one run in ten, or more, is killed, or would be without the floor.
type Drift struct {
	*FileTiming
	// EstTime is the file's est_time in its latest run; Limit is EstTime
	// × registry.TimeoutFactor.
	EstTime, Limit float64
}

// Drifts returns the files of files (the timings answer's) whose p90 is
// past their est_time × registry.TimeoutFactor: the p90 over the est_time
// greatest first, then by file, suite and backend.
func (a *SiteAnswer) Drifts(files []*FileTiming) []Drift {
	var out []Drift
	for _, t := range files {
		seen, ok := a.est[timingKey{t.File, t.Suite, t.Backend}]
		if !ok {
			continue
		}
		if limit := seen.est * registry.TimeoutFactor; t.P90 > limit {
			out = append(out, Drift{FileTiming: t, EstTime: seen.est, Limit: limit})
		}
	}
	slices.SortStableFunc(out, func(x, y Drift) int {
		// x.P90/x.EstTime > y.P90/y.EstTime, without a division.
		return cmp.Compare(y.P90*x.EstTime, x.P90*y.EstTime)
	})
	return out
}

// Daily is an answer asked of each day (UTC) a run started: the rows of
// a run go to that day's answer, made by New. Only the Max latest days
// are kept (0: every day): a row of an earlier day than the Max kept is
// left out, and which days are kept does not depend on the order of the
// rows.
type Daily[A Answer] struct {
	New  func() A
	Max  int
	days map[string]A
	// floor is the latest day dropped: no row of it or before counts;
	// dropped counts the days dropped.
	floor   string
	dropped int
}

// Dropped counts the days left out: earlier than the Max kept.
func (d *Daily[A]) Dropped() int { return d.dropped }

// Day is the day (UTC) a run started, as the page names it.
func Day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// Filter is New's answer's.
func (d *Daily[A]) Filter(f Filter) Filter { return d.New().Filter(f) }

// Add gives the row to its day's answer.
func (d *Daily[A]) Add(r *Row) error {
	day := Day(r.Started)
	if d.floor != "" && day <= d.floor {
		return nil
	}
	a, ok := d.days[day]
	if !ok {
		if d.days == nil {
			d.days = map[string]A{}
		}
		a = d.New()
		d.days[day] = a
		if d.Max > 0 && len(d.days) > d.Max {
			first := ""
			for k := range d.days {
				if first == "" || k < first {
					first = k
				}
			}
			delete(d.days, first)
			d.floor = first
			d.dropped++
			if first == day {
				return nil
			}
		}
	}
	return a.Add(r)
}

// Days returns the days kept, earliest first, and each day's answer.
func (d *Daily[A]) Days() ([]string, []A) {
	days := make([]string, 0, len(d.days))
	for k := range d.days {
		days = append(days, k)
	}
	slices.Sort(days)
	answers := make([]A, len(days))
	for i, k := range days {
		answers[i] = d.days[k]
	}
	return days, answers
}

// Scheduled is the event of the runs whose shard timeline the page
// shows: the runs a schedule started (a nightly, a weekly).
const Scheduled = "schedule"

type shardKey struct {
	suite, backend string
	id, size       int
}

// TimelineShard is one shard's job in a suite's latest scheduled run:
// where it ran, its setup, and its attempts laid end to end.
type TimelineShard struct {
	Suite, Backend     string
	ShardID, ShardSize int
	RunID, RunAttempt  string
	// Host is the host's key (hostcheck.Host.Key).
	Host    string
	Started time.Time
	// Setup is the job's setup in seconds (nil: not known); Bars begin
	// after it.
	Setup *float64
	Bars  []TimelineBar
	// End is where the last bar ends, in seconds from the job's start.
	End float64

	run    Run
	report string
}

// TimelineBar is one attempt of a file on its shard's axis. The history
// keeps no start time per attempt: Start is the setup plus the elapsed
// seconds of the attempts before it, in file order (byte order of the
// names), then attempt order, which both stores give alike. It places a
// bar on the shard's length, not at the moment it ran.
type TimelineBar struct {
	File    string
	Attempt int
	Status  report.Status
	Cause   report.Cause
	Start   float64
	Elapsed float64
}

// Timeline is a suite's latest scheduled run: the shards of it that the
// history holds, by shard id.
type Timeline struct {
	Suite, Backend    string
	RunID, RunAttempt string
	Started           time.Time
	Shards            []*TimelineShard
}

// addTimeline keeps, per suite and shard, the rows of the latest
// scheduled report: the latest by start, ties broken by the greater
// report identity, whatever order the reports come in.
func (a *SiteAnswer) addTimeline(r *Row) {
	if r.Event != Scheduled {
		return
	}
	if !a.curSet || !sameReport(&a.curRun, &r.Run) {
		a.curRun, a.curSet, a.cur = r.Run, true, nil
		k := shardKey{r.Suite, r.Backend, r.ShardID, r.ShardSize}
		id := r.Run.report()
		old := a.shards[k]
		if old != nil && (r.Started.Before(old.Started) || r.Started.Equal(old.Started) && id <= old.report) {
			return
		}
		a.cur = &TimelineShard{Suite: r.Suite, Backend: r.Backend, ShardID: r.ShardID, ShardSize: r.ShardSize,
			RunID: r.RunID, RunAttempt: r.RunAttempt, Host: hostcheck.Host{Runner: r.Runner, Hostname: r.Hostname}.Key(),
			Started: r.Started, Setup: r.Setup, run: r.Run, report: id}
		a.shards[k] = a.cur
	}
	if a.cur != nil {
		a.cur.Bars = append(a.cur.Bars, TimelineBar{File: r.File, Attempt: r.Attempt, Status: r.Status, Cause: r.Cause, Elapsed: r.Elapsed})
	}
}

// Timelines returns, per suite (by suite, then backend), the shards of
// its latest scheduled run: the run of the latest shard report kept, and
// of the others those of the same run.
func (a *SiteAnswer) Timelines() []*Timeline {
	latest := map[[2]string]*TimelineShard{}
	for _, s := range a.shards {
		k := [2]string{s.Suite, s.Backend}
		if l := latest[k]; l == nil || s.Started.After(l.Started) || s.Started.Equal(l.Started) && s.report > l.report {
			latest[k] = s
		}
	}
	var out []*Timeline
	for k, l := range latest {
		t := &Timeline{Suite: k[0], Backend: k[1], RunID: l.RunID, RunAttempt: l.RunAttempt, Started: l.Started}
		key := l.run.Key()
		for _, s := range a.shards {
			if s.Suite == k[0] && s.Backend == k[1] && s.run.Key() == key {
				s.layOut()
				t.Shards = append(t.Shards, s)
				if s.Started.Before(t.Started) {
					t.Started = s.Started
				}
			}
		}
		slices.SortFunc(t.Shards, func(x, y *TimelineShard) int {
			return cmp.Or(cmp.Compare(x.ShardID, y.ShardID), cmp.Compare(x.ShardSize, y.ShardSize), x.Started.Compare(y.Started))
		})
		out = append(out, t)
	}
	slices.SortFunc(out, func(x, y *Timeline) int {
		return cmp.Or(strings.Compare(x.Suite, y.Suite), strings.Compare(x.Backend, y.Backend))
	})
	return out
}

// layOut orders the shard's bars (by file, then attempt) and places each
// after the setup and the bars before it, in whole milliseconds, so that
// the sums are the same whatever the order the rows came in.
func (s *TimelineShard) layOut() {
	slices.SortFunc(s.Bars, func(x, y TimelineBar) int {
		return cmp.Or(strings.Compare(x.File, y.File), cmp.Compare(x.Attempt, y.Attempt))
	})
	var at int64
	if s.Setup != nil && report.PlausibleSetup(*s.Setup) {
		at = millis(*s.Setup)
	}
	for i := range s.Bars {
		s.Bars[i].Start = float64(at) / 1000
		at += millis(s.Bars[i].Elapsed)
	}
	s.End = float64(at) / 1000
}
