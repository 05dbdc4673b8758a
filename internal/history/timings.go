package history

import (
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/timings"
)

// TimingsFilter is the filter the timings answer reads with: the passed
// attempts only, and of them only what Add reads. A failed attempt
// stopped early or ran into its limit, and says nothing of how long the
// test takes; a flaky file counts its passing attempt, as `run
// --timings-out` does.
func TimingsFilter(f Filter) Filter {
	f.Statuses = []report.Status{report.Pass}
	f.TimingOnly = true
	return f
}

// FileTiming is the timing of one test file as one suite (on one
// backend) ran it: how many runs passed it and the median, 90th
// percentile and greatest of their seconds, to the millisecond.
type FileTiming struct {
	File    string  `json:"file"`
	Suite   string  `json:"suite"`
	Backend string  `json:"backend"`
	Runs    int     `json:"runs"`
	Median  float64 `json:"median"`
	P90     float64 `json:"p90"`
	Max     float64 `json:"max"`
	// samples are the runs' seconds, sorted once the answer is complete.
	samples []float64
}

// Quantile is the q-quantile of the file's runs (see timings.Quantile).
func (t *FileTiming) Quantile(q float64) float64 { return timings.SortedQuantile(t.samples, q) }

// TimingsAnswer gathers the passed attempts of a scan into the timings of
// each file. It keeps one number per passed attempt and nothing else of
// a row: its memory is that of the answer (the files and their runs'
// seconds), never of the rows read (a million rows of a few hundred
// files are 8 MB of seconds).
type TimingsAnswer struct {
	byKey map[timingKey]*FileTiming
}

type timingKey struct{ file, suite, backend string }

var _ Answer = (*TimingsAnswer)(nil)

// Filter is TimingsFilter.
func (a *TimingsAnswer) Filter(f Filter) Filter { return TimingsFilter(f) }

// Add counts one row; an attempt that did not pass is left out.
func (a *TimingsAnswer) Add(r *Row) error {
	if r.Status != report.Pass {
		return nil
	}
	if a.byKey == nil {
		a.byKey = map[timingKey]*FileTiming{}
	}
	k := timingKey{r.File, r.Suite, r.Backend}
	t := a.byKey[k]
	if t == nil {
		t = &FileTiming{File: r.File, Suite: r.Suite, Backend: r.Backend}
		a.byKey[k] = t
	}
	t.samples = append(t.samples, r.Elapsed)
	return nil
}

// Files returns the timings, by file, then suite, then backend (byte
// order): the same order whichever store the rows came from and in
// whatever order it gave them.
func (a *TimingsAnswer) Files() []*FileTiming {
	out := make([]*FileTiming, 0, len(a.byKey))
	for _, t := range a.byKey {
		slices.Sort(t.samples)
		t.Runs = len(t.samples)
		// To the millisecond, as a report gives each attempt's seconds:
		// the interpolation adds no precision the measurements had.
		t.Median = report.Seconds(t.Quantile(0.5))
		t.P90 = report.Seconds(t.Quantile(0.9))
		t.Max = t.samples[len(t.samples)-1]
		out = append(out, t)
	}
	slices.SortFunc(out, func(x, y *FileTiming) int {
		if c := strings.Compare(x.File, y.File); c != 0 {
			return c
		}
		if c := strings.Compare(x.Suite, y.Suite); c != 0 {
			return c
		}
		return strings.Compare(x.Backend, y.Backend)
	})
	return out
}

// Measurements returns the passed attempts gathered as timings apply
// takes them: every run's seconds of each file, by the suite that ran it.
func (a *TimingsAnswer) Measurements() timings.Measurements {
	m := timings.Measurements{}
	for k, t := range a.byKey {
		src := timings.Source{Suite: k.suite, Backend: config.Backend(k.backend)}
		m[timings.Key{File: k.file, Source: src}] = t.samples
	}
	return m
}
