package history

import (
	"math"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/timings"
)

// SetupFilter is f for a SetupAnswer: the rows of one report must come
// together, so that the answer counts each run's setup once without
// remembering every run it saw.
func SetupFilter(f Filter) Filter {
	f.Grouped = true
	return f
}

// SuiteSetup is the job setup of a suite's runs: how long its jobs took
// from their start to their first test (see report.SetupSeconds), the
// time a shard spends before any test that target_minutes must leave
// room for.
type SuiteSetup struct {
	Suite, Backend string
	// Jobs counts the runs that knew their job's start; Unknown the runs
	// that did not (no MILES_CI_JOB_STARTED, no visible runner process)
	// or whose setup no job can have had (report.PlausibleSetup).
	Jobs, Unknown int
	// Median, P90 and Max are seconds, to the millisecond.
	Median, P90, Max float64
	samples          []float64
}

// SuggestedMinutes is the setup_minutes the configuration should count
// for the suite: the p90 of its setups in minutes, rounded up to a tenth
// of a minute, so nine jobs in ten take no longer to reach their first
// test; 0 when no run knew its setup.
func (s *SuiteSetup) SuggestedMinutes() float64 {
	if s.Jobs == 0 {
		return 0
	}
	return math.Ceil(math.Round(s.P90/6*1000)/1000) / 10
}

// SetupAnswer gathers each run's setup, by suite. It reads the rows of a
// SetupFilter scan: one report's rows together, in whichever order the
// reports come, and keeps one number per run, never a row.
type SetupAnswer struct {
	bySuite map[[2]string]*SuiteSetup
	last    Run
	seen    bool
}

var _ Answer = (*SetupAnswer)(nil)

// Filter is SetupFilter.
func (a *SetupAnswer) Filter(f Filter) Filter { return SetupFilter(f) }

// Add counts the run of r, once per report.
func (a *SetupAnswer) Add(r *Row) error {
	if a.seen && sameReport(&a.last, &r.Run) {
		return nil
	}
	a.last, a.seen = r.Run, true
	if a.bySuite == nil {
		a.bySuite = map[[2]string]*SuiteSetup{}
	}
	k := [2]string{r.Suite, r.Backend}
	s := a.bySuite[k]
	if s == nil {
		s = &SuiteSetup{Suite: r.Suite, Backend: r.Backend}
		a.bySuite[k] = s
	}
	// A setup no job can have had (stored by an older miles-ci, or
	// forged) is no known setup: counted, it would be the suggestion.
	if r.Setup == nil || !report.PlausibleSetup(*r.Setup) {
		s.Unknown++
		return nil
	}
	s.samples = append(s.samples, *r.Setup)
	return nil
}

// Suites returns the setups by suite, then backend (byte order): the same
// whichever store the rows came from.
func (a *SetupAnswer) Suites() []*SuiteSetup {
	out := make([]*SuiteSetup, 0, len(a.bySuite))
	for _, s := range a.bySuite {
		slices.Sort(s.samples)
		s.Jobs = len(s.samples)
		if s.Jobs > 0 {
			s.Median = report.Seconds(timings.SortedQuantile(s.samples, 0.5))
			s.P90 = report.Seconds(timings.SortedQuantile(s.samples, 0.9))
			s.Max = s.samples[len(s.samples)-1]
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(x, y *SuiteSetup) int {
		if c := strings.Compare(x.Suite, y.Suite); c != 0 {
			return c
		}
		return strings.Compare(x.Backend, y.Backend)
	})
	return out
}
