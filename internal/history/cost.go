package history

import (
	"math"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
)

// CostFilter is the filter the cost answer reads with: every attempt and
// every job's stop row (Filter.Stops), the rows of one report together
// and each file's attempts in attempt order (Filter.Grouped), so that a
// file's last attempt is known when its attempts are costed and a job's
// setup is counted once, in the category its stop, if any, says.
func CostFilter(f Filter) Filter {
	f.Statuses = nil
	f.Grouped = true
	f.Stops = true
	return f
}

// Category is where a GPU-second of the history went. Every attempt and
// every job's setup falls in exactly one, so that the categories add up
// to the total; the first three are useful, the others wasted. The
// definitions are those of `miles-ci help history` (history cost).
type Category int

const (
	// Passed: an attempt that passed.
	Passed Category = iota
	// Failed: an attempt that failed with cause test (or none) in a run
	// whose last attempt of the file failed too: a failure that stood.
	Failed
	// Setup: the setup of a job at least one of whose attempts was
	// useful (Passed or Failed).
	Setup
	// Infra: an attempt that failed with cause infra, whatever came after.
	Infra
	// TimedOut: an attempt that ran into its time limit with no infra
	// fingerprint (status TIMEOUT, cause not infra).
	TimedOut
	// Retried: an attempt that failed with cause test (or none) of a file
	// whose last attempt in the run passed.
	Retried
	// IdleSetup: the setup of a job none of whose attempts was useful (a
	// job whose every file failed on infra or timed out) and that no
	// preflight stopped.
	IdleSetup
	// Preflight: the setup of a job a GPU preflight stopped (Row.Stopped),
	// before its first test or after an infra failure, whatever its
	// attempts were: the files it left must run again on another host.
	// For a job stopped before its first test, the setup is the time
	// from its start to the stop (see Run.StopRow). A run starts no
	// attempt after its preflight stopped it; the attempts before keep
	// their categories.
	Preflight
	// Interrupted: an attempt a signal or a cancelled job stopped, and a
	// failed attempt before it of the same file, whose outcome never
	// came.
	Interrupted

	numCategories
)

// Categories lists every category, the useful ones first: the order of
// the answer's tables and JSON.
var Categories = []Category{Passed, Failed, Setup, Infra, TimedOut, Retried, IdleSetup, Preflight, Interrupted}

var categoryNames = [numCategories]string{"passed", "failed", "setup", "infra", "timeout", "retried", "idle_setup", "preflight", "interrupted"}

// String is the category's name in the answer's JSON.
func (c Category) String() string { return categoryNames[c] }

// Wasted reports whether the category is wasted, not useful.
func (c Category) Wasted() bool { return c >= Infra }

// Cost is GPU time by category, in GPU-milliseconds: an elapsed time (to
// the millisecond, as reports give it) times a whole count of GPUs. Whole
// numbers add up in any order, so both stores, whose rows come in
// different orders, give the same sums to the last digit.
type Cost [numCategories]int64

// Of returns the GPU-milliseconds of category c.
func (c *Cost) Of(cat Category) int64 { return c[cat] }

// Useful, Wasted and Total sum the categories; Useful + Wasted = Total.
func (c *Cost) Useful() int64 { return c.sum(false) }
func (c *Cost) Wasted() int64 { return c.sum(true) }
func (c *Cost) Total() int64  { return addSat(c.Useful(), c.Wasted()) }

func (c *Cost) sum(wasted bool) int64 {
	var n int64
	for _, cat := range Categories {
		if cat.Wasted() == wasted {
			n = addSat(n, c[cat])
		}
	}
	return n
}

// addSat adds two sums of GPU-milliseconds (never negative), stopping at
// the largest int64: times a report may hold (1e12 s an attempt, a
// million attempts) pass it in a few thousand attempts, and a sum that
// wrapped would read as negative hours. Stopping there is as independent
// of the order of the rows as adding.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// GPUSource says where a suite's count of GPUs came from.
type GPUSource string

// The sources of a count of GPUs. The last two are assumptions: the
// suite is counted as one GPU per job, and the answer says so.
const (
	GPUsKey          GPUSource = "gpus"         // the suite's gpus key
	GPUsLabel        GPUSource = "runs_on"      // a `<N>gpu` label of its runs_on
	GPUsCPU          GPUSource = "cpu"          // a CPU suite: no GPU, no GPU-hour
	GPUsNoCount      GPUSource = "no_count"     // a GPU suite whose labels name no count: 1
	GPUsUnconfigured GPUSource = "unconfigured" // a suite the configuration has not: 1
)

// Assumed reports whether the count is an assumption (1 GPU per job).
func (s GPUSource) Assumed() bool { return s == GPUsNoCount || s == GPUsUnconfigured }

// ConfigGPUs returns the count of GPUs of each job of a suite as the
// configuration says (config.Suite.GPUsNeeded: the gpus key, else a
// `<N>gpu` label of runs_on), for NewCostAnswer. A run of the CPU
// backend holds no GPU; a GPU suite whose labels name no count, or that
// the configuration does not hold (renamed, removed, another
// repository's), counts as one.
func ConfigGPUs(cfg *config.Config) func(suite, backend string) (int, GPUSource) {
	return func(suite, backend string) (int, GPUSource) {
		if backend == string(config.CPU) {
			return 0, GPUsCPU
		}
		s, ok := cfg.Suite(suite)
		switch {
		case !ok:
			return 1, GPUsUnconfigured
		case s.Backend == config.CPU:
			return 0, GPUsCPU
		case s.GPUs > 0:
			return s.GPUs, GPUsKey
		}
		if n := s.GPUsNeeded(); n > 0 {
			return n, GPUsLabel
		}
		return 1, GPUsNoCount
	}
}

// SuiteCost is the GPU time of one suite's runs on one backend.
type SuiteCost struct {
	Suite, Backend string
	// GPUs is the count each job of the suite is charged, from Source.
	GPUs   int
	Source GPUSource
	// Jobs counts the suite's jobs (reports: a run of the suite or of one
	// shard); SetupUnknown those whose setup is not known (see
	// CostResult.SetupUnknown), not counted in Cost.
	Jobs, SetupUnknown int
	Cost               Cost
}

// CadenceCost is the GPU time of the runs of one cadence ("" when the
// reports did not say).
type CadenceCost struct {
	Cadence            string
	Jobs, SetupUnknown int
	Cost               Cost
}

// FileCost is the GPU time of one file's attempts in one suite (a setup
// is a job's, no file's).
type FileCost struct {
	File, Suite string
	Cost        Cost
}

// CostTopFiles is how many files the answer lists by wasted GPU time; the
// rest are counted (CostResult.FilesLeftOut).
const CostTopFiles = 10

// CostResult is the whole answer.
type CostResult struct {
	Cost Cost
	// Jobs counts the jobs read, Attempts the attempts; SetupUnknown the
	// jobs whose setup is not known: the run did not know when its job
	// started, or its stored setup is one no job has
	// (report.PlausibleSetup). Their setup costs nothing in Cost.
	Jobs, Attempts, SetupUnknown int
	// Suites by suite then backend, Cadences by cadence (byte order).
	Suites   []*SuiteCost
	Cadences []*CadenceCost
	// Files are the CostTopFiles files with the most wasted GPU time
	// (more first, then by file and suite); FilesLeftOut counts the other
	// files that wasted any, LeftOutWasted their wasted GPU-milliseconds.
	Files         []*FileCost
	FilesLeftOut  int
	LeftOutWasted int64
}

// CostAnswer costs the attempts and setups of a grouped scan
// (CostFilter). Its memory is that of the answer: a Cost per suite,
// cadence and file, and the attempts of the one file of one job being
// read.
type CostAnswer struct {
	gpus     func(suite, backend string) (int, GPUSource)
	suites   map[[2]string]*SuiteCost
	cadences map[string]*CadenceCost
	files    map[flakyKey]*FileCost
	job      costJob
	res      CostResult
}

// costJob is the job (one report) whose rows are coming in, and the file
// of it whose attempts are.
type costJob struct {
	open    bool
	run     Run
	gpus    int64
	suite   *SuiteCost
	cadence *CadenceCost
	useful  bool
	stopped bool // a preflight stopped the job (its stop row came)
	file    string
	atts    []costAttempt
}

type costAttempt struct {
	attempt int
	status  report.Status
	cause   report.Cause
	ms      int64
}

// NewCostAnswer returns an answer charging each job of a suite the GPUs
// gpus gives (see ConfigGPUs).
func NewCostAnswer(gpus func(suite, backend string) (int, GPUSource)) *CostAnswer {
	return &CostAnswer{gpus: gpus, suites: map[[2]string]*SuiteCost{}, cadences: map[string]*CadenceCost{},
		files: map[flakyKey]*FileCost{}}
}

var _ Answer = (*CostAnswer)(nil)

// Filter is CostFilter.
func (a *CostAnswer) Filter(f Filter) Filter { return CostFilter(f) }

// Add takes one row. A report's rows come together, each file's attempts
// together (Filter.Grouped): a new report ends the job being read, a new
// file the file.
func (a *CostAnswer) Add(r *Row) error {
	j := &a.job
	if !j.open || !sameReport(&j.run, &r.Run) {
		a.endJob()
		a.startJob(r)
	}
	if r.Stopped {
		// No attempt: it says where the job's setup goes.
		j.stopped = true
		return nil
	}
	a.res.Attempts++
	if len(j.atts) > 0 && j.file != r.File {
		a.endFile()
	}
	j.file = r.File
	j.atts = append(j.atts, costAttempt{attempt: r.Attempt, status: r.Status, cause: r.Cause, ms: millis(r.Elapsed)})
	return nil
}

// millis is seconds as whole milliseconds, the precision of a report.
func millis(s float64) int64 { return int64(math.Round(s * 1000)) }

func (a *CostAnswer) startJob(r *Row) {
	k := [2]string{r.Suite, r.Backend}
	s := a.suites[k]
	if s == nil {
		s = &SuiteCost{Suite: r.Suite, Backend: r.Backend}
		s.GPUs, s.Source = a.gpus(r.Suite, r.Backend)
		a.suites[k] = s
	}
	c := a.cadences[r.Cadence]
	if c == nil {
		c = &CadenceCost{Cadence: r.Cadence}
		a.cadences[r.Cadence] = c
	}
	a.job = costJob{open: true, run: r.Run, gpus: int64(s.GPUs), suite: s, cadence: c, atts: a.job.atts[:0]}
}

// charge adds GPU-milliseconds of a category to the job's suite and
// cadence, the total and (given) a file.
func (a *CostAnswer) charge(cat Category, ms int64, file *FileCost) {
	j := &a.job
	v := ms * j.gpus
	j.suite.Cost[cat] = addSat(j.suite.Cost[cat], v)
	j.cadence.Cost[cat] = addSat(j.cadence.Cost[cat], v)
	a.res.Cost[cat] = addSat(a.res.Cost[cat], v)
	if file != nil {
		file.Cost[cat] = addSat(file.Cost[cat], v)
	}
}

// endFile costs the attempts of the file being read: each attempt in one
// category, by its status and cause and how the file's last attempt
// went.
func (a *CostAnswer) endFile() {
	j := &a.job
	if len(j.atts) == 0 {
		return
	}
	last := j.atts[0]
	for _, at := range j.atts[1:] {
		if at.attempt >= last.attempt {
			last = at
		}
	}
	k := flakyKey{j.file, j.run.Suite}
	f := a.files[k]
	if f == nil {
		f = &FileCost{File: j.file, Suite: j.run.Suite}
		a.files[k] = f
	}
	for _, at := range j.atts {
		cat := costCategory(at.status, at.cause, last.status)
		if !cat.Wasted() {
			j.useful = true
		}
		a.charge(cat, at.ms, f)
	}
	j.atts = j.atts[:0]
}

// costCategory is the category of an attempt of a file whose last
// attempt in the run had status last. The cases are tried in order, so
// that each attempt has one category: an infra failure is infra even
// when it timed out or the file passed later, a timeout is a timeout
// even when the file passed on a retry.
func costCategory(status report.Status, cause report.Cause, last report.Status) Category {
	switch {
	case status == report.Pass:
		return Passed
	case status.Failed() && cause == report.CauseInfra:
		return Infra
	case status == report.Timeout:
		return TimedOut
	case status == report.Fail && last == report.Pass:
		return Retried
	case status == report.Fail && last.Failed():
		return Failed
	}
	return Interrupted
}

// endJob costs the last file of the job being read and the job's setup.
func (a *CostAnswer) endJob() {
	j := &a.job
	if !j.open {
		return
	}
	a.endFile()
	j.open = false
	a.res.Jobs++
	j.suite.Jobs++
	j.cadence.Jobs++
	setup := j.run.Setup
	if setup == nil || !report.PlausibleSetup(*setup) {
		a.res.SetupUnknown++
		j.suite.SetupUnknown++
		j.cadence.SetupUnknown++
		return
	}
	cat := IdleSetup
	switch {
	case j.stopped:
		cat = Preflight
	case j.useful:
		cat = Setup
	}
	a.charge(cat, millis(*setup), nil)
}

// Result costs the last job and gives the answer, sorted so that it is
// the same whichever store the rows came from.
func (a *CostAnswer) Result() *CostResult {
	a.endJob()
	res := a.res
	for _, s := range a.suites {
		res.Suites = append(res.Suites, s)
	}
	slices.SortFunc(res.Suites, func(x, y *SuiteCost) int {
		if c := strings.Compare(x.Suite, y.Suite); c != 0 {
			return c
		}
		return strings.Compare(x.Backend, y.Backend)
	})
	for _, c := range a.cadences {
		res.Cadences = append(res.Cadences, c)
	}
	slices.SortFunc(res.Cadences, func(x, y *CadenceCost) int { return strings.Compare(x.Cadence, y.Cadence) })
	var wasted []*FileCost
	for _, f := range a.files {
		if f.Cost.Wasted() > 0 {
			wasted = append(wasted, f)
		}
	}
	slices.SortFunc(wasted, func(x, y *FileCost) int {
		if x, y := x.Cost.Wasted(), y.Cost.Wasted(); x != y {
			if x > y {
				return -1
			}
			return 1
		}
		if c := strings.Compare(x.File, y.File); c != 0 {
			return c
		}
		return strings.Compare(x.Suite, y.Suite)
	})
	if len(wasted) > CostTopFiles {
		for _, f := range wasted[CostTopFiles:] {
			res.FilesLeftOut++
			res.LeftOutWasted = addSat(res.LeftOutWasted, f.Cost.Wasted())
		}
		wasted = wasted[:CostTopFiles]
	}
	res.Files = wasted
	return &res
}
