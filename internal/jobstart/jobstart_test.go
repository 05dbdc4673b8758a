package jobstart

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// boot is the btime of the fake /proc.
const boot = 1796189640

// fakeProc writes a /proc holding /proc/stat and one stat line per
// process: pid → name, parent and start in ticks.
func fakeProc(t *testing.T, procs map[int]struct {
	comm  string
	ppid  int
	ticks uint64
}) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "stat"),
		[]byte(fmt.Sprintf("cpu  1 2 3 4\nintr 5\nbtime %d\nprocesses 9\n", boot)), 0o644))
	for pid, p := range procs {
		dir := filepath.Join(root, fmt.Sprint(pid))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		line := fmt.Sprintf("%d (%s) S %d %d 0 0 -1 4194560 10 0 0 0 1 2 0 0 20 0 1 0 %d 1000 100 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0\n",
			pid, p.comm, p.ppid, p.ppid, p.ticks)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644))
	}
	return root
}

type proc = struct {
	comm  string
	ppid  int
	ticks uint64
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// fakeNow is a run's start some hours after the fake machine booted
// (05:34 UTC) and minutes after the jobs of these tests started: a clock
// of the tests' own, whatever the date.
func fakeNow() time.Time { return time.Date(2026, 12, 2, 8, 30, 0, 0, time.UTC) }

func TestFind_TheRunnerWorkerAncestorsStart(t *testing.T) {
	root := fakeProc(t, map[int]proc{
		1:   {"systemd", 0, 1},
		90:  {"Runner.Listener", 1, 500},
		100: {"Runner.Worker", 90, 12345},
		200: {"bash", 100, 20000},
		250: {"odd ) (name", 200, 20001}, // a name with a space and parentheses
		300: {"miles-ci", 250, 20002},
	})
	st, ok, err := Source{Getenv: env(nil), Proc: root, PID: 300, Now: fakeNow}.Find()
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, time.Unix(boot, 0).Add(123450*time.Millisecond), st.Time, "12345 ticks of 10 ms after boot")
	assert.Equal(t, "Runner.Worker process 100", st.From)
}

func TestFind_NoWorkerAmongTheAncestors(t *testing.T) {
	// A container job: the step's shell was exec'd into the container,
	// its parent outside (0); the runner's processes are not visible.
	root := fakeProc(t, map[int]proc{
		1:  {"tail", 0, 900},
		40: {"bash", 0, 1000},
		41: {"miles-ci", 40, 1001},
		// A loop cannot hold the walk.
		7: {"a", 8, 1},
		8: {"b", 7, 1},
	})
	for _, pid := range []int{41, 7, 999} {
		_, ok, err := Source{Getenv: env(nil), Proc: root, PID: pid, Now: fakeNow}.Find()
		assert.NoError(t, err)
		assert.False(t, ok, "pid %d", pid)
	}
	_, ok, err := Source{Getenv: env(nil), Proc: filepath.Join(root, "absent"), PID: 41, Now: fakeNow}.Find()
	assert.NoError(t, err)
	assert.False(t, ok, "no /proc (macOS)")
}

func TestFind_TheVariableWinsOverTheProcessTree(t *testing.T) {
	root := fakeProc(t, map[int]proc{100: {"Runner.Worker", 1, 12345}, 300: {"miles-ci", 100, 20002}})
	st, ok, err := Source{Getenv: env(map[string]string{Env: "2026-12-02T08:20:00Z"}), Proc: root, PID: 300, Now: fakeNow}.Find()
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, Start{Time: time.Date(2026, 12, 2, 8, 20, 0, 0, time.UTC), From: Env}, st)

	// With a fraction and an offset, or a trailing newline from a shell.
	for _, v := range []string{"2026-12-02T09:20:00.250+01:00", "2026-12-02T08:20:00.25Z\n"} {
		st, ok, err = Source{Getenv: env(map[string]string{Env: v}), Now: fakeNow}.Find()
		require.NoError(t, err)
		require.True(t, ok)
		assert.True(t, st.Time.Equal(time.Date(2026, 12, 2, 8, 20, 0, 250e6, time.UTC)), "%q gave %v", v, st.Time)
	}

	// Not a time: a warning, and the process tree answers.
	st, ok, err = Source{Getenv: env(map[string]string{Env: "1796189640\n::error::x"}), Proc: root, PID: 300, Now: fakeNow}.Find()
	require.Error(t, err)
	assert.Equal(t, `MILES_CI_JOB_STARTED is "1796189640\n::error::x", not an RFC 3339 time such as 2026-12-02T08:23:59Z; the job's start is not taken from it`, err.Error())
	assert.True(t, ok)
	assert.Equal(t, "Runner.Worker process 100", st.From)

	// No /proc to look at: only the variable.
	_, ok, err = Source{Getenv: env(nil), PID: 300, Now: fakeNow}.Find()
	assert.NoError(t, err)
	assert.False(t, ok)
}

// TestReadStat_ThisProcess reads the real /proc: this test binary's name
// and a start after the machine booted and before now.
func TestReadStat_ThisProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	comm, ppid, ticks, err := readStat(fmt.Sprintf("/proc/%d/stat", os.Getpid()))
	require.NoError(t, err)
	assert.Equal(t, "jobstart.test", comm)
	assert.Equal(t, os.Getppid(), ppid)
	b, err := bootTime("/proc")
	require.NoError(t, err)
	started := b.Add(time.Duration(ticks) * (time.Second / userHZ))
	assert.True(t, started.After(b) && started.Before(time.Now().Add(2*time.Second)), "started %v, booted %v", started, b)
}

// A start after the run's (beyond a clock's skew) or more than a day
// before it is no job's start: one warning line, and the next source
// answers, as for a value that is no time.
func TestFind_AnImplausibleStartIsRefused(t *testing.T) {
	run := time.Date(2026, 12, 2, 8, 30, 0, 0, time.UTC)
	now := func() time.Time { return run }
	find := func(v string, proc string) (Start, bool, error) {
		return Source{Getenv: env(map[string]string{Env: v}), Proc: proc, PID: 300, Now: now}.Find()
	}
	for v, want := range map[string]string{
		"0001-01-01T00:00:00Z": `MILES_CI_JOB_STARTED is "0001-01-01T00:00:00Z", more than 24 hours before this run started (2026-12-02T08:30:00.000Z); the job's start is not taken from it`,
		"2026-12-01T08:29:59Z": `MILES_CI_JOB_STARTED is "2026-12-01T08:29:59Z", more than 24 hours before this run started (2026-12-02T08:30:00.000Z); the job's start is not taken from it`,
		"2026-12-02T08:35:01Z": `MILES_CI_JOB_STARTED is "2026-12-02T08:35:01Z", more than 5 minutes after this run started (2026-12-02T08:30:00.000Z); the job's start is not taken from it`,
		"9999-12-31T23:59:59Z": `MILES_CI_JOB_STARTED is "9999-12-31T23:59:59Z", more than 5 minutes after this run started (2026-12-02T08:30:00.000Z); the job's start is not taken from it`,
	} {
		_, ok, err := find(v, "")
		require.Error(t, err, v)
		assert.Equal(t, want, err.Error())
		assert.False(t, ok, "%s is not taken", v)
	}
	// Within the bounds: a day's setup, and a clock a little ahead.
	for _, v := range []string{"2026-12-01T08:30:00Z", "2026-12-02T08:34:59Z"} {
		st, ok, err := find(v, "")
		require.NoError(t, err, v)
		require.True(t, ok, v)
		assert.Equal(t, Env, st.From)
	}
	// Refused, the process tree answers.
	root := fakeProc(t, map[int]proc{100: {"Runner.Worker", 1, 12345}, 300: {"miles-ci", 100, 20002}})
	workerStarted := time.Unix(boot, 0).Add(123450 * time.Millisecond)
	now = func() time.Time { return workerStarted.Add(10 * time.Minute) }
	st, ok, err := find("0001-01-01T00:00:00Z", root)
	require.Error(t, err)
	require.True(t, ok)
	assert.Equal(t, "Runner.Worker process 100", st.From)
	// A runner's process is held to the same bounds.
	now = func() time.Time { return workerStarted.Add(25 * time.Hour) }
	_, ok, err = Source{Getenv: env(nil), Proc: root, PID: 300, Now: now}.Find()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Runner.Worker process 100 started at ")
	assert.Contains(t, err.Error(), ", more than 24 hours before this run started")
	assert.False(t, ok)
}

// The warning shows at most 64 characters of the value, Go-quoted (a
// control byte is written as an escape), and says how long it was.
func TestFind_TheWarningShowsABoundedValue(t *testing.T) {
	long := "\x1b[2J" + strings.Repeat("A", 100<<10)
	_, ok, err := Source{Getenv: env(map[string]string{Env: long})}.Find()
	require.Error(t, err)
	assert.False(t, ok)
	assert.Equal(t, `MILES_CI_JOB_STARTED is "\x1b[2J`+strings.Repeat("A", 60)+`"… (102404 bytes), not an RFC 3339 time such as 2026-12-02T08:23:59Z; the job's start is not taken from it`, err.Error())
	assert.NotContains(t, err.Error(), "\x1b")
}
