package history

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// scriptedStore is a Writer whose writes wait for release (when set) and
// fail from the failAt-th on (1-based; 0 never).
type scriptedStore struct {
	release chan struct{}
	failAt  int

	mu      sync.Mutex
	batches [][]string
}

func (s *scriptedStore) Write(_ context.Context, rows []Row) (int, error) {
	if s.release != nil {
		<-s.release
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failAt > 0 && len(s.batches)+1 >= s.failAt {
		return 0, errors.New("write: connection reset by peer")
	}
	var files []string
	for _, r := range rows {
		files = append(files, r.File)
	}
	s.batches = append(s.batches, files)
	return len(rows), nil
}

func (s *scriptedStore) Close() error { return nil }

func (s *scriptedStore) files() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []string
	for _, b := range s.batches {
		all = append(all, b...)
	}
	return all
}

func recorderFor(s *scriptedStore, warn *bytes.Buffer) *Recorder {
	return &Recorder{URL: "postgresql://u:pw@db/h", Where: "--history", Warn: warn,
		Open: func(context.Context, string) (Writer, error) { return s, nil }}
}

func rowsOf(files ...string) []Row {
	rows := make([]Row, len(files))
	for i, f := range files {
		rows[i] = Row{File: f}
	}
	return rows
}

// Record returns while the store has not taken a row, and the rows reach
// it in the order they were recorded; Written counts them after Close.
func TestRecorder_RecordDoesNotWaitAndTheRowsKeepTheirOrder(t *testing.T) {
	store := &scriptedStore{release: make(chan struct{})}
	var warn bytes.Buffer
	r := recorderFor(store, &warn)
	r.Start(context.Background())
	for _, f := range []string{"a.py", "b.py", "c.py"} {
		r.Record(context.Background(), rowsOf(f+"#1", f+"#2")) // returns with the store stuck
	}
	assert.Empty(t, store.files())
	close(store.release)
	r.Close()
	assert.Equal(t, []string{"a.py#1", "a.py#2", "b.py#1", "b.py#2", "c.py#1", "c.py#2"}, store.files())
	assert.Equal(t, 6, r.Written())
	assert.False(t, r.Failed())
	assert.Empty(t, warn.String())
}

// A store that fails is one warning for the run, said by the next Record
// or by Close, and nothing more is written to it.
func TestRecorder_AFailedStoreIsOneWarning(t *testing.T) {
	store := &scriptedStore{failAt: 1}
	var warn bytes.Buffer
	r := recorderFor(store, &warn)
	r.Start(context.Background())
	for _, f := range []string{"a.py", "b.py", "c.py"} {
		r.Record(context.Background(), rowsOf(f))
	}
	r.Close()
	assert.True(t, r.Failed())
	assert.Equal(t, 1, strings.Count(warn.String(), "warning: history:"), warn.String())
	assert.Contains(t, warn.String(), "warning: history: the store --history names failed (write: connection reset by peer)")
	assert.NotContains(t, warn.String(), "pw")
	assert.Empty(t, store.files())
	assert.Zero(t, r.Written())
}

// A store that cannot be opened is the same one warning, and a recorder
// never started (or failed at the start) closes at once.
func TestRecorder_AStoreThatDoesNotOpenIsOneWarning(t *testing.T) {
	var warn bytes.Buffer
	r := &Recorder{Where: "MILES_CI_HISTORY_URL", Warn: &warn,
		Open: func(context.Context, string) (Writer, error) { return nil, errors.New("connect: refused") }}
	r.Start(context.Background())
	r.Record(context.Background(), rowsOf("a.py"))
	r.Close()
	assert.Equal(t, "warning: history: the store MILES_CI_HISTORY_URL names failed (connect: refused); nothing more is written to it in this run, which goes on as without it; "+
		"its JSON report keeps every attempt, and `miles-ci history import --to URL REPORT` adds what is missing\n", warn.String())
	(&Recorder{}).Close()
}
