package runner

import (
	"time"

	"github.com/radixark/miles-ci/internal/report"
)

// Document returns the report of the run (package report owns the
// document, package view its step summary) for the given suite and backend.
func (rep *Results) Document(suite, backend string) *report.Report {
	doc := &report.Report{Suite: suite, Backend: backend, Interrupted: rep.Interrupted,
		HostNotReady: rep.HostNotReady, Elapsed: seconds(rep.Elapsed), Files: make([]report.File, len(rep.Files))}
	for i := range rep.Files {
		f := &rep.Files[i]
		last := f.Last()
		df := report.File{File: f.File, Status: f.Status, Attempts: len(f.Attempts),
			Elapsed: seconds(f.Elapsed()), ExitCode: last.ExitCode, TimedOut: f.Status == Timeout,
			EstTime: report.EstTime(f.EstTime), Cause: last.Cause, AttemptsDetail: make([]report.Attempt, len(f.Attempts))}
		if f.Status != Pass {
			df.Reason = f.Reason()
		}
		if f.Status == Timeout {
			t := last.TimeoutAfter
			df.TimeoutAfter = &t
		}
		for j, a := range f.Attempts {
			da := report.Attempt{Attempt: a.Number, Status: a.Status, Elapsed: seconds(a.Elapsed),
				ExitCode: a.ExitCode, TimedOut: a.Status == Timeout, Reason: a.Reason(),
				Cause: a.Cause, CauseLine: a.CauseLine, Fingerprint: a.Fingerprint}
			if a.Status == Timeout {
				t := a.TimeoutAfter
				da.TimeoutAfter = &t
			}
			if a.Output != nil {
				out := string(a.Output)
				da.OutputTail = &out
			}
			df.AttemptsDetail[j] = da
		}
		doc.Files[i] = df
	}
	doc.Finish()
	return doc
}

func seconds(d time.Duration) float64 { return report.Seconds(d.Seconds()) }
