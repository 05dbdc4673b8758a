package suiterun

import (
	"context"
	"fmt"
	"time"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/triage"
	"github.com/radixark/miles-ci/internal/view"
)

// The bounds of the step summary's triage: the runs of the last
// TriageDays days are read, within TriageTimeout for the whole read
// (connecting, scanning, answering), so that a slow or large history
// costs the end of a job a bounded wait.
const (
	TriageDays    = 30
	TriageTimeout = 30 * time.Second
)

// triageSection is the "Triage" section of the step summary of a run in
// which a file failed and a history is configured (Spec.Triage): each
// failed file's verdict, as `report triage --from` gives it, from the
// runs of the last TriageDays days but this one. A history that cannot
// be read within TriageTimeout is a note in the section and one warning,
// never a failure: the run's verdict and exit status are its tests'.
// Without a history, or without a failed file, it is "" and the summary
// is what it always was.
func triageSection(ctx context.Context, s Spec, doc *report.Report, now func() time.Time) string {
	if s.Triage == nil || !triage.Failed(doc) {
		return ""
	}
	fails, err := triageRun(ctx, s.Triage, doc, now())
	if err != nil {
		fmt.Fprintf(s.ErrOut, "warning: history: no triage in the step summary: %s\n", textfmt.OneLine(err.Error()))
	}
	return view.TriageSection(fails, TriageDays, err)
}

// triageRun reads the history open gives and decides the failed files'
// verdicts.
func triageRun(ctx context.Context, open func(context.Context) (history.Reader, error), doc *report.Report, now time.Time) ([]triage.Failure, error) {
	ctx, cancel := context.WithTimeout(ctx, TriageTimeout)
	defer cancel()
	r, err := open(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	reports := []*report.Report{doc}
	answer := history.NewTriageAnswer(reports, hostcheck.DefaultMinContradicted)
	filter := history.Filter{Since: now.UTC().AddDate(0, 0, -TriageDays)}
	if err := r.Scan(ctx, answer.Filter(filter), answer.Add); err != nil {
		return nil, err
	}
	return triage.Decide(reports, answer.Result(), triage.DefaultMinRate), nil
}
