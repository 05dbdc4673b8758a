package history

import (
	"context"
	"fmt"
	"io"
)

// Recorder writes the rows of a run to the fleet's store as its files
// finish. The store never decides anything about the run: a store that
// cannot be reached, refuses a write or does not answer within its bounds
// gets one warning for the whole run, and nothing more is tried; the run
// goes on, its verdict, exit status and reports as they would be without
// a store, and its JSON report keeps every attempt for `history import`
// to add later.
type Recorder struct {
	// URL is the store's; Where says how it was given ("--history",
	// "MILES_CI_HISTORY_URL"), for the warning, which never shows URL.
	URL   string
	Where string
	// Warn receives the one warning line.
	Warn io.Writer
	// Open opens the store; nil is OpenPostgres for writing.
	Open func(ctx context.Context, url string) (Writer, error)

	w      Writer
	failed bool
	// Written counts the rows the store added.
	Written int
}

// Start opens the store and brings its schema up to date, within the
// store's bounds, before the first test runs.
func (r *Recorder) Start(ctx context.Context) {
	open := r.Open
	if open == nil {
		open = func(ctx context.Context, url string) (Writer, error) { return OpenPostgres(ctx, url, ForWriting) }
	}
	w, err := open(ctx, r.URL)
	if err != nil {
		r.fail(err)
		return
	}
	r.w = w
}

// Record writes the rows of one finished file. A run interrupted after
// the file still writes them (the write has its own bound): a cancelled
// job keeps what it ran.
func (r *Recorder) Record(ctx context.Context, rows []Row) {
	if r.failed || r.w == nil || len(rows) == 0 {
		return
	}
	n, err := r.w.Write(context.WithoutCancel(ctx), rows)
	r.Written += n
	if err != nil {
		r.fail(err)
	}
}

// Close closes the store.
func (r *Recorder) Close() {
	if r.w != nil {
		r.warnRefused()
		r.w.Close()
		r.w = nil
	}
}

// warnRefused says which rows the store refused, if it says (a row the
// server cannot store costs no other row, but is said once).
func (r *Recorder) warnRefused() {
	if p, ok := r.w.(interface{ Warnings() []string }); ok && r.Warn != nil {
		for _, w := range p.Warnings() {
			fmt.Fprintf(r.Warn, "warning: history: %s\n", w)
		}
	}
}

// fail says once that the store failed, and stops writing to it.
func (r *Recorder) fail(err error) {
	r.failed = true
	if r.w != nil {
		r.warnRefused()
		r.w.Close()
		r.w = nil
	}
	if r.Warn != nil {
		fmt.Fprintf(r.Warn, "warning: history: the store %s names failed (%v); nothing more is written to it in this run, which goes on as without it; "+
			"its JSON report keeps every attempt, and `miles-ci history import --to URL REPORT` adds what is missing\n", r.Where, err)
	}
}

// Failed reports whether the store failed during the run.
func (r *Recorder) Failed() bool { return r.failed }
