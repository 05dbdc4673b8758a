package report

import (
	"errors"
	"fmt"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/timings"
)

// MergeTimings records the duration of every passed file of r into the
// timings file at path (package timings owns its format and the lock that
// lets shards share one file), creating it or merging into it. Only a
// passing attempt is measured: a flaky file counts the attempt that passed,
// not the failed ones before it. Each file is recorded as measured in the
// report's suite and backend, so that `timings apply` knows which of a
// file's register calls the seconds belong to.
func MergeTimings(path string, r *Report) error {
	d := &timings.Document{Seconds: timings.Timings{}}
	src := timings.Source{Suite: r.Suite, Backend: config.Backend(r.Backend)}
	_, known := config.ParseBackend(r.Backend)
	for i := range r.Files {
		f := &r.Files[i]
		if f.Status != Pass {
			continue
		}
		if last, ok := f.LastAttempt(); ok {
			d.Seconds[f.File] = last.Elapsed
		} else if f.Attempts == 1 {
			d.Seconds[f.File] = f.Elapsed
		} else {
			continue
		}
		if r.Suite != "" && known {
			if d.Sources == nil {
				d.Sources = map[string]timings.Source{}
			}
			d.Sources[f.File] = src
		}
	}
	return timings.Update(path, d)
}

// Outputs names the files a run writes its report to; "" leaves one out.
type Outputs struct {
	JUnitXML   string
	JSONReport string
	TimingsOut string
}

// WriteOutputs writes r to every file o names. Each is tried even when one
// before it failed (a run's reports matter most when something went
// wrong); the error joins every failure, each naming its file.
func WriteOutputs(o Outputs, r *Report) error {
	var errs []error
	for _, w := range []struct {
		what, path string
		write      func(string, *Report) error
	}{
		{"JUnit report", o.JUnitXML, WriteJUnit},
		{"JSON report", o.JSONReport, Write},
		{"timings", o.TimingsOut, MergeTimings},
	} {
		if w.path == "" {
			continue
		}
		if err := w.write(w.path, r); err != nil {
			errs = append(errs, fmt.Errorf("write %s %q: %w", w.what, w.path, err))
		}
	}
	return errors.Join(errs...)
}
