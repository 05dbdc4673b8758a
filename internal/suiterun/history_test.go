package suiterun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/testutil"
)

// eventLog is a file the tests of a run and its fake store both append
// lines to: its order is the order things happened in.
type eventLog string

func (l eventLog) add(t *testing.T, line string) {
	f, err := os.OpenFile(string(l), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Error(err)
		return
	}
	defer f.Close()
	if _, err := fmt.Fprintln(f, line); err != nil {
		t.Error(err)
	}
}

func (l eventLog) lines(t *testing.T) []string {
	data, err := os.ReadFile(string(l))
	if err != nil && !os.IsNotExist(err) {
		t.Error(err)
	}
	return strings.Fields(strings.ReplaceAll(string(data), " ", "_"))
}

// index is the position of line in the log, -1 when it is not there.
func (l eventLog) index(t *testing.T, line string) int {
	for i, got := range l.lines(t) {
		if got == strings.ReplaceAll(line, " ", "_") {
			return i
		}
	}
	return -1
}

// fakeStore is a history.Writer that logs each write's start and end
// and keeps the files of the rows it took, in order.
type fakeStore struct {
	t   *testing.T
	log eventLog
	// write is what a write does between its start and its end.
	write func(ctx context.Context, files []string)

	mu      sync.Mutex
	written []string
}

func (s *fakeStore) Write(ctx context.Context, rows []history.Row) (int, error) {
	files := make([]string, len(rows))
	for i, r := range rows {
		files[i] = r.File
	}
	s.log.add(s.t, "write "+strings.Join(files, ","))
	s.write(ctx, files)
	s.mu.Lock()
	s.written = append(s.written, files...)
	s.mu.Unlock()
	s.log.add(s.t, "written "+strings.Join(files, ","))
	return len(rows), nil
}

func (s *fakeStore) Close() error { return nil }

func (s *fakeStore) files() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.written...)
}

// runWithStore runs the GPU files names (each a test that logs its start,
// runs its line of more and passes) with rec as the run's history, and
// returns what the run wrote to its stderr.
func runWithStore(ctx context.Context, t *testing.T, log eventLog, rec *history.Recorder, more map[string]string, names ...string) (Outcome, string) {
	t.Helper()
	tree := map[string]string{}
	for _, n := range names {
		tree[n] = fmt.Sprintf("echo 'start %s' >> '%s'\n%s\n", n, log, more[n])
	}
	root := testutil.TempTree(t, tree)
	var out, errOut bytes.Buffer
	type result struct {
		out Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := Run(ctx, Spec{
			Root: root, Plan: gpuPlan(names...), Limits: runner.Limits{TimeoutPerFile: 600, MaxAttempts: 1},
			Outputs: report.Outputs{JSONReport: filepath.Join(t.TempDir(), "r.json")}, Out: &out, ErrOut: &errOut,
			Start: (&testutil.Launcher{Shell: true}).Start, History: rec,
		})
		done <- result{o, err}
	}()
	select {
	case r := <-done:
		require.NoError(t, r.err, out.String())
		return r.out, errOut.String()
	case <-time.After(2 * time.Minute):
		require.FailNow(t, "the run did not end", "its log:\n%s", strings.Join(log.lines(t), "\n"))
		return Outcome{}, ""
	}
}

// A slow store (every write over history.SlowWrite) costs the tests
// nothing: the next file starts while the last one's rows are still being
// written, every row is in the store at the end, and the run says once
// that the store was slow.
func TestRun_ASlowStoreWritesBehindTheTestsAndIsReported(t *testing.T) {
	log := eventLog(filepath.Join(t.TempDir(), "events"))
	names := []string{"a.py", "b.py", "c.py"}
	store := &fakeStore{t: t, log: log}
	store.write = func(_ context.Context, files []string) {
		time.Sleep(history.SlowWrite + 500*time.Millisecond)
		// The write lasts until the file after its last row has started
		// (none after the last file), bounded generously: a write on the
		// path between two tests never sees the next one start.
		last := files[len(files)-1]
		for i, n := range names[:len(names)-1] {
			if n != last {
				continue
			}
			for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if log.index(t, "start "+names[i+1]) >= 0 {
					break
				}
			}
		}
	}
	var errOut bytes.Buffer
	rec := &history.Recorder{URL: "postgresql://u:secret@db/h", Where: "MILES_CI_HISTORY_URL", Warn: &errOut,
		Open: func(context.Context, string) (history.Writer, error) { return store, nil }}
	got, runErr := runWithStore(context.Background(), t, log, rec, nil, names...)
	assert.Equal(t, Outcome{}, got)

	startB, writtenA := log.index(t, "start b.py"), log.index(t, "written a.py")
	require.GreaterOrEqual(t, writtenA, 0, "a.py's row was written: %v", log.lines(t))
	assert.Less(t, startB, writtenA, "b.py started while a.py's row was being written: %v", log.lines(t))
	assert.Equal(t, names, store.files(), "every row written, in order")

	warn := errOut.String()
	assert.Equal(t, 1, strings.Count(warn, "warning: history:"), warn)
	assert.Contains(t, warn, "warning: history: the store MILES_CI_HISTORY_URL names is slow: ")
	assert.Contains(t, warn, " of 3 rows ")
	assert.NotContains(t, warn, "secret")
	assert.NotContains(t, runErr, "secret")
}

// A store whose write never returns costs the run its flush bound at the
// end, never a test's time: the run ends, and one warning says how many
// rows were not written and where they still are.
func TestRun_AStuckStoreCostsTheFlushBoundAndOneWarning(t *testing.T) {
	log := eventLog(filepath.Join(t.TempDir(), "events"))
	// The write never returns, whatever its context says; the test's
	// process ends it.
	store := &fakeStore{t: t, log: log, write: func(context.Context, []string) { select {} }}
	var errOut bytes.Buffer
	rec := &history.Recorder{Where: "--history", Warn: &errOut, FlushTimeout: 50 * time.Millisecond,
		Open: func(context.Context, string) (history.Writer, error) { return store, nil }}
	got, _ := runWithStore(context.Background(), t, log, rec, nil, "a.py", "b.py")
	assert.Equal(t, Outcome{}, got)
	assert.GreaterOrEqual(t, log.index(t, "start b.py"), 0, "b.py ran: %v", log.lines(t))
	assert.Empty(t, store.files())
	warn := errOut.String()
	assert.Equal(t, 1, strings.Count(warn, "warning: history:"), warn)
	assert.Contains(t, warn, "warning: history: the store --history names did not take the last 2 of 2 rows within the run's flush bound (50ms)")
	assert.Contains(t, warn, "history import")
	assert.Equal(t, 0, rec.Written())
}

// A run a signal stops still writes what it ran: the write under way goes
// on, and the end of the run waits for it (within the flush bound).
func TestRun_AnInterruptedRunStillFlushesItsRows(t *testing.T) {
	log := eventLog(filepath.Join(t.TempDir(), "events"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := &fakeStore{t: t, log: log}
	store.write = func(wctx context.Context, _ []string) {
		cancel() // the signal arrives while the first rows are being written
		time.Sleep(200 * time.Millisecond)
		assert.NoError(t, wctx.Err(), "the write is not cancelled by the run's signal")
	}
	var errOut bytes.Buffer
	rec := &history.Recorder{Where: "--history", Warn: &errOut, FlushTimeout: time.Minute,
		Open: func(context.Context, string) (history.Writer, error) { return store, nil }}
	got, _ := runWithStore(ctx, t, log, rec, map[string]string{"b.py": "sleep 60"}, "a.py", "b.py")
	assert.True(t, got.Interrupted)
	assert.Contains(t, store.files(), "a.py")
	assert.Equal(t, len(store.files()), rec.Written())
	assert.NotContains(t, errOut.String(), "did not take")
	assert.NotContains(t, errOut.String(), "failed")
}

// rowStore is a history.Writer that keeps every row it took.
type rowStore struct {
	mu   sync.Mutex
	rows []history.Row
}

func (s *rowStore) Write(_ context.Context, rows []history.Row) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rows = append(s.rows, rows...)
	return len(rows), nil
}

func (s *rowStore) Close() error { return nil }

// A run a GPU preflight stopped writes, as its files finish and at its
// end, exactly the rows its report gives a reader (history.RowsOf): its
// stop row too, whether the preflight stopped it before its first file
// (the row alone, with the time the job held its host) or after an infra
// failure (the attempts, then the row).
func TestRun_TheRowsOfARunAPreflightStoppedAreTheReportsRows(t *testing.T) {
	flag := filepath.Join(t.TempDir(), "broken")
	// Ready until a test breaks the host; then it never answers.
	tool := fakeTool(t, "nvidia-smi", `[ -e '`+flag+`' ] && { echo "Failed to initialize NVML: Unknown Error"; exit 255; }
case "$*" in *--query-gpu=*) echo "0, GPU-fake-0, NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15" ;; esac
`)
	const line = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 802: system not yet initialized"
	root := testutil.TempTree(t, map[string]string{
		"a.py": "touch '" + flag + "'\necho '" + line + "' >&2\nexit 1\n",
		"b.py": "echo ok\n",
	})
	for _, tc := range []struct {
		name string
		path string // the PATH: no GPU tool in a job is a host not ready
		rows int
	}{
		{"before the first file", t.TempDir(), 1},
		{"after an infra failure", tool, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.RemoveAll(flag))
			store := &rowStore{}
			reportPath := filepath.Join(t.TempDir(), "r.json")
			env := map[string]string{"PATH": tc.path, "GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "4242", "GITHUB_RUN_ATTEMPT": "1",
				"GITHUB_REPOSITORY": "radixark/miles", "GITHUB_JOB": "gpu", "RUNNER_NAME": "runner-x",
				"MILES_CI_JOB_STARTED": time.Now().Add(-90 * time.Second).UTC().Format(time.RFC3339Nano)}
			var out bytes.Buffer
			got, err := Run(context.Background(), Spec{
				Root: root, Plan: gpuPlan("a.py", "b.py"), Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1},
				Outputs: report.Outputs{JSONReport: reportPath}, Out: &out, ErrOut: &out, Getenv: envOf(env),
				InfraFingerprints: config.Default().InfraFingerprints,
				// A tool that fails is not asked again (the interval is
				// past the timeout); one that answers has all the time
				// a loaded machine needs.
				Preflight: PreflightSpec{Config: config.Preflight{Timeout: time.Minute, Interval: 2 * time.Minute, QueryTimeout: time.Minute}},
				Start:     (&testutil.Launcher{Shell: true}).Start,
				History: &history.Recorder{URL: "postgres://fake", Where: "--history",
					Open: func(context.Context, string) (history.Writer, error) { return store, nil }},
			})
			require.NoError(t, err, out.String())
			require.True(t, got.HostNotReady, out.String())
			rep, err := report.Read(reportPath)
			require.NoError(t, err)
			want, err := history.RowsOf(rep)
			require.NoError(t, err)
			require.Len(t, want, tc.rows)
			stop := want[len(want)-1]
			assert.True(t, stop.Stopped)
			require.NotNil(t, stop.Setup, "the job's start is known")
			assert.Equal(t, want, store.rows, "the rows written are the report's, in order")
		})
	}
}
