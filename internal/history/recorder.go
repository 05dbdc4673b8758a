package history

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"
)

// The recorder's bounds (see Recorder).
const (
	// FlushTimeout bounds the wait, at the end of a run, for the rows
	// still to be written: the one bound of the store's whole tail, as
	// long as one statement may take (StatementTimeout).
	FlushTimeout = 5 * time.Second
	// SlowWrite is the longest a write takes before the store is called
	// slow; a store whose last rows kept the run's end waiting longer is
	// slow too.
	SlowWrite = time.Second
)

// Recorder writes the rows of a run to the fleet's store as its files
// finish, behind the tests: Record queues a file's rows and returns at
// once, and one writer writes what is queued, in order, while the next
// test runs. The store never decides anything about the run, nor costs
// it time between two tests: a store that cannot be reached, refuses a
// write or does not answer within its bounds gets one warning for the
// whole run, and nothing more is tried; Close waits for the rows still
// queued at most FlushTimeout, then gives up with one warning; a slow
// store is one warning too. The run goes on, its verdict, exit status and
// reports as they would be without a store, and its JSON report keeps
// every attempt for `history import` to add later.
type Recorder struct {
	// URL is the store's; Where says how it was given ("--history",
	// "MILES_CI_HISTORY_URL"), for the warning, which never shows URL.
	URL   string
	Where string
	// Warn receives the one warning line. It is written to only from the
	// goroutines that call Record and Close, never by the writer.
	Warn io.Writer
	// Open opens the store; nil is OpenPostgres for writing.
	Open func(ctx context.Context, url string) (Writer, error)
	// FlushTimeout bounds Close's wait; 0 is FlushTimeout. SlowWrite is
	// the threshold of a slow store; 0 is SlowWrite.
	FlushTimeout time.Duration
	SlowWrite    time.Duration

	// cancel stops the writer's write when Close gives up; done is closed
	// when the writer has returned. Both are set by Start.
	cancel context.CancelFunc
	done   chan struct{}
	warned bool // the one warning is out (the caller's goroutines only)

	mu   sync.Mutex
	wake *sync.Cond // signals queued rows or closing
	// queue holds the rows handed over and not yet taken by the writer,
	// in the order they came; pending counts them and those being
	// written.
	queue   []Row
	pending int
	closing bool
	// err is the store's failure, set by whichever goroutine saw it.
	err error
	// What the writes cost: rows counts every row handed over, written
	// those the store added, slow those that went in writes over the
	// threshold, spent the time all writes took.
	rows, written, slow int
	spent               time.Duration
	// writing is when the write under way began; zero when none is.
	writing time.Time
	// refused are the store's words on rows it refused, once it closed.
	refused []string
}

// Start opens the store and brings its schema up to date, within the
// store's bounds, before the first test runs, and starts the writer.
func (r *Recorder) Start(ctx context.Context) {
	open := r.Open
	if open == nil {
		open = func(ctx context.Context, url string) (Writer, error) { return OpenPostgres(ctx, url, ForWriting) }
	}
	w, err := open(ctx, r.URL)
	if err != nil {
		r.err = err
		r.warnFailed()
		return
	}
	r.wake = sync.NewCond(&r.mu)
	// A run interrupted after a file still writes its rows: the writes
	// have their own bound, and the run's end its flush bound; a
	// cancelled job keeps what it ran.
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel, r.done = cancel, make(chan struct{})
	go r.write(wctx, w)
}

// Record hands the rows of one finished file to the writer and returns at
// once: the next test does not wait for the store.
func (r *Recorder) Record(_ context.Context, rows []Row) {
	if r.done == nil || len(rows) == 0 {
		return
	}
	r.mu.Lock()
	failed := r.err != nil
	if !failed && !r.closing {
		r.queue = append(r.queue, rows...)
		r.pending += len(rows)
		r.rows += len(rows)
		r.wake.Signal()
	}
	r.mu.Unlock()
	if failed {
		r.warnFailed()
	}
}

// write is the writer: it takes all the rows queued, writes them as one
// batch, and again, until Close has nothing more for it. A failed write
// ends it, and the rows still queued are dropped (the JSON report keeps
// them).
func (r *Recorder) write(ctx context.Context, w Writer) {
	defer close(r.done)
	defer func() {
		// A row the server could not store costs no other row, but is
		// said: the store keeps what it refused, for Close to say.
		if p, ok := w.(interface{ Warnings() []string }); ok {
			refused := p.Warnings()
			r.mu.Lock()
			r.refused = refused
			r.mu.Unlock()
		}
		w.Close()
	}()
	slowWrite := r.SlowWrite
	if slowWrite <= 0 {
		slowWrite = SlowWrite
	}
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !r.closing {
			r.wake.Wait()
		}
		batch := r.queue
		r.queue = nil
		if len(batch) == 0 {
			r.mu.Unlock()
			return
		}
		began := time.Now()
		r.writing = began
		r.mu.Unlock()
		n, err := w.Write(ctx, batch)
		took := time.Since(began)
		r.mu.Lock()
		r.writing = time.Time{}
		if r.err == errGaveUp {
			// Close has told the run what was written; a write that
			// ends after it changes nothing the run says.
			r.mu.Unlock()
			return
		}
		r.written += n
		r.pending -= len(batch)
		r.spent += took
		if took > slowWrite {
			r.slow += len(batch)
		}
		if err != nil && r.err == nil {
			r.err = err
			r.pending -= len(r.queue)
			r.queue = nil
		}
		failed := r.err != nil
		r.mu.Unlock()
		if failed {
			return
		}
	}
}

// Close waits for the rows still to be written, at most FlushTimeout, and
// closes the store; it says once what went wrong or was slow. When the
// bound passes, the write under way is cancelled and nothing after it is
// tried; what Close said (and Written) stays as it was.
func (r *Recorder) Close() {
	if r.done == nil {
		return
	}
	bound := r.FlushTimeout
	if bound <= 0 {
		bound = FlushTimeout
	}
	slowWrite := r.SlowWrite
	if slowWrite <= 0 {
		slowWrite = SlowWrite
	}
	r.mu.Lock()
	r.closing = true
	left := r.pending
	r.wake.Signal()
	r.mu.Unlock()

	began := time.Now()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	finished := true
	select {
	case <-r.done:
	case <-timer.C:
		finished = false
	}
	waited := time.Since(began)
	r.cancel()

	r.mu.Lock()
	err, rows, slow, spent, pending, refused := r.err, r.rows, r.slow, r.spent, r.pending, r.refused
	if !r.writing.IsZero() {
		spent += time.Since(r.writing)
	}
	if !finished {
		// The writer may still finish a write: it no longer counts.
		r.err = errGaveUp
	}
	r.mu.Unlock()
	if r.Warn != nil {
		for _, w := range refused {
			fmt.Fprintf(r.Warn, "warning: history: %s\n", w)
		}
	}
	switch {
	case err != nil:
		r.warnFailed()
	case !finished:
		r.warn("warning: history: the store %s names did not take the last %d of %d rows within the run's flush bound (%v), %s spent writing in all, behind the tests; "+
			"nothing more is written to it in this run, whose JSON report keeps every attempt, and `miles-ci history import --to URL REPORT` adds what is missing\n",
			r.Where, pending, rows, bound, round(spent))
	case slow > 0 || waited > slowWrite:
		r.warn("warning: history: the store %s names is slow: %d of %d rows went in writes of over %v, %s spent writing in all, behind the tests; "+
			"the run's end waited %s for its last %d rows\n", r.Where, slow, rows, slowWrite, round(spent), round(waited), left)
	}
}

// errGaveUp marks a store Close stopped waiting for.
var errGaveUp = fmt.Errorf("the run's flush bound passed")

// round rounds a duration for a warning.
func round(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }

// warnFailed says once that the store failed, and that nothing more is
// written to it.
func (r *Recorder) warnFailed() {
	r.mu.Lock()
	err := r.err
	r.mu.Unlock()
	r.warn("warning: history: the store %s names failed (%v); nothing more is written to it in this run, which goes on as without it; "+
		"its JSON report keeps every attempt, and `miles-ci history import --to URL REPORT` adds what is missing\n", r.Where, err)
}

// warn writes the run's one warning, and nothing after it.
func (r *Recorder) warn(format string, args ...any) {
	if r.warned || r.Warn == nil {
		return
	}
	r.warned = true
	fmt.Fprintf(r.Warn, format, args...)
}

// Failed reports whether the store failed during the run (so far: the
// writer may find out later).
func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

// Written counts the rows the store added (all of them, once Close has
// returned without a warning).
func (r *Recorder) Written() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.written
}
