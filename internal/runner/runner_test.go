package runner

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// fakeClock advances one second per reading, so every attempt lasts 1s.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

// recLog records LogGroups calls as the lines ghactions would print.
type recLog struct{ lines []string }

func (l *recLog) Group(title string) { l.lines = append(l.lines, "group "+title) }
func (l *recLog) EndGroup()          { l.lines = append(l.lines, "endgroup") }
func (l *recLog) Annotate(level, file, title, message string) {
	l.lines = append(l.lines, fmt.Sprintf("%s %s: %s: %s", level, file, title, message))
}
func (l *recLog) AttemptSummary(i, n int, file, status string, elapsed time.Duration, exitCode, timeoutAfter *int, retryOf int) {
	s := fmt.Sprintf("[%d/%d] %s %s %ds", i, n, file, status, int(elapsed.Seconds()))
	if exitCode != nil {
		s += fmt.Sprintf(" exit=%d", *exitCode)
	}
	if timeoutAfter != nil {
		s += fmt.Sprintf(" timeout_after=%d", *timeoutAfter)
	}
	if retryOf > 0 {
		s += fmt.Sprintf(" retry_of=%d", retryOf)
	}
	l.lines = append(l.lines, s)
}

// repo writes test files into a fresh repository root. The files keep the
// .py names a suite has, but hold shell scripts: the runner runs them with
// Options.Python, which baseOptions sets to sh. Process handling, not
// Python, is what these tests are about.
func repo(t *testing.T, files map[string]string) string {
	t.Helper()
	return testutil.TempTree(t, files)
}

const (
	shPass  = "echo ok\n"
	shFail3 = "echo 'synthetic failure'\nexit 3\n"
	shHang  = "echo hanging\nexec sleep 60\n"
	// shFlaky fails its first attempt with a retriable assertion, leaving a
	// marker beside itself, and passes once the marker is there.
	shFlaky = `state="$(dirname "$0")/.state"
if [ ! -e "$state" ]; then
    : > "$state"
    echo 'AssertionError: accuracy 0.41 not greater than 0.50'
    exit 1
fi
echo 'second attempt passes'
`
	shImport = `state="$(dirname "$0")/.state"
if [ ! -e "$state" ]; then
    : > "$state"
    echo 'ImportError: accuracy module missing'
    exit 1
fi
`
	shEnvDump = `printf '%s\n' '{"metric": "loss", "series": [[2, 0.5], [1, 0.75]]}' > "$MILES_CI_GATE_RECORD_DIR/p0.jsonl"
`
)

func baseOptions(root string, out *bytes.Buffer) (Options, *recLog) {
	log := &recLog{}
	clock := &fakeClock{}
	return Options{
		Root: root, Python: "sh", Limits: Limits{TimeoutPerFile: 30, MaxAttempts: 2}, Out: out, ErrOut: out, Log: log, Now: clock.Now,
		Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
	}, log
}

func TestRun_Outcomes(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		plan     []File
		tweak    func(*Options)
		statuses []Status
		log      []string
		summary  []string
	}{
		{
			name:     "two passing files",
			files:    map[string]string{"a.py": shPass, "b.py": shPass},
			plan:     []File{{"a.py", 1}, {"b.py", 1.9}},
			statuses: []Status{Pass, Pass},
			log: []string{"group a.py  (1/2 est=1s attempt=1)", "endgroup", "[1/2] a.py PASS 1s",
				"group b.py  (2/2 est=1s attempt=1)", "endgroup", "[2/2] b.py PASS 1s"},
			summary: []string{"Success. Time elapsed: ", "Test Summary: 2/2 passed\n", "PASSED:\n  a.py\n  b.py\n"},
		},
		{
			name:     "a failure stops the run",
			files:    map[string]string{"a.py": shFail3, "b.py": shPass},
			plan:     []File{{"a.py", 1}, {"b.py", 1}},
			statuses: []Status{Fail, NotRun},
			log:      []string{"group a.py  (1/2 est=1s attempt=1)", "endgroup", "[1/2] a.py FAIL 1s exit=3"},
			summary:  []string{"Fail. Time elapsed: ", "Test Summary: 0/2 passed\n", "\nFAILED:\n  a.py (exit code 3)\n", "FAILED: a.py returned exit code 3\n"},
		},
		{
			name:     "continue on error runs the rest",
			files:    map[string]string{"a.py": shFail3, "b.py": shPass},
			plan:     []File{{"a.py", 1}, {"b.py", 1}},
			tweak:    func(o *Options) { o.ContinueOnError = true },
			statuses: []Status{Fail, Pass},
			log: []string{"group a.py  (1/2 est=1s attempt=1)", "endgroup", "[1/2] a.py FAIL 1s exit=3",
				"group b.py  (2/2 est=1s attempt=1)", "endgroup", "[2/2] b.py PASS 1s"},
			summary: []string{"Test Summary: 1/2 passed\n", "PASSED:\n  b.py\n\nFAILED:\n  a.py (exit code 3)\n"},
		},
		{
			name:     "timeout kills the child and is not retried",
			files:    map[string]string{"hang.py": shHang},
			plan:     []File{{"hang.py", 0.5}},
			tweak:    func(o *Options) { o.TimeoutPerFile = 1; o.EnableRetry = true; o.MaxAttempts = 3 },
			statuses: []Status{Timeout},
			log:      []string{"group hang.py  (1/1 est=0s attempt=1)", "endgroup", "[1/1] hang.py TIMEOUT 1s timeout_after=1"},
			summary:  []string{"TIMEOUT: hang.py after 1 seconds\n", "  hang.py (timeout after 1s)\n"},
		},
		{
			name:     "retriable failure is retried and passes",
			files:    map[string]string{"flaky.py": shFlaky},
			plan:     []File{{"flaky.py", 1}},
			tweak:    func(o *Options) { o.EnableRetry = true; o.MaxAttempts = 2 },
			statuses: []Status{Pass},
			log: []string{"group flaky.py  (1/1 est=1s attempt=1)", "endgroup", "[1/1] flaky.py FAIL 1s exit=1",
				"group flaky.py  (1/1 est=1s attempt=2)", "endgroup", "[1/1] flaky.py PASS 1s retry_of=1"},
			summary: []string{
				"[CI Retry] flaky.py failed with retriable pattern: AssertionError:.*not greater than\n[CI Retry] Waiting 0s before retry...\n",
				"\n[CI Retry] Attempt 2/2 for flaky.py\n", "PASSED on retry (attempt 2): flaky.py\n",
				"Test Summary: 1/1 passed\nRetries: 1 test(s) were retried\n", "\nRETRIED:\n  flaky.py (2 attempts, passed)\n"},
		},
		{
			name:     "non-retriable failure is not retried",
			files:    map[string]string{"imp.py": shImport},
			plan:     []File{{"imp.py", 1}},
			tweak:    func(o *Options) { o.EnableRetry = true; o.MaxAttempts = 2 },
			statuses: []Status{Fail},
			log:      []string{"group imp.py  (1/1 est=1s attempt=1)", "endgroup", "[1/1] imp.py FAIL 1s exit=1"},
			summary:  []string{"[CI Retry] imp.py failed with non-retriable error: ImportError - not retrying\n", "  imp.py (exit code 1)\n"},
		},
		{
			name:     "retry with max attempts 0 runs nothing and fails",
			files:    map[string]string{"a.py": shPass, "b.py": shPass},
			plan:     []File{{"a.py", 1}, {"b.py", 1}},
			tweak:    func(o *Options) { o.EnableRetry = true; o.MaxAttempts = 0 },
			statuses: []Status{Fail, NotRun},
			log:      nil,
			summary:  []string{"Fail. Time elapsed: ", "Test Summary: 0/2 passed\n", "  a.py (no attempt allowed by --max-attempts)\n"},
		},
		{
			name:     "retry with negative max attempts and continue on error fails every file",
			files:    map[string]string{"a.py": shPass, "b.py": shPass},
			plan:     []File{{"a.py", 1}, {"b.py", 1}},
			tweak:    func(o *Options) { o.EnableRetry = true; o.MaxAttempts = -1; o.ContinueOnError = true },
			statuses: []Status{Fail, Fail},
			log:      nil,
			summary:  []string{"Test Summary: 0/2 passed\n"},
		},
		{
			name:     "max attempts 0 without retry still runs each file once",
			files:    map[string]string{"a.py": shPass},
			plan:     []File{{"a.py", 1}},
			tweak:    func(o *Options) { o.MaxAttempts = 0 },
			statuses: []Status{Pass},
			log:      []string{"group a.py  (1/1 est=1s attempt=1)", "endgroup", "[1/1] a.py PASS 1s"},
			summary:  []string{"Success. Time elapsed: "},
		},
		{
			name:     "a child that cannot start fails its file",
			files:    map[string]string{"a.py": shPass},
			plan:     []File{{"a.py", 1}},
			tweak:    func(o *Options) { o.Python = "/nonexistent/python3" },
			statuses: []Status{Fail},
			log:      []string{"group a.py  (1/1 est=1s attempt=1)", "endgroup", "[1/1] a.py FAIL 1s"},
			summary:  []string{"  a.py (could not start: "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := repo(t, tt.files)
			var out bytes.Buffer
			opts, log := baseOptions(root, &out)
			if tt.tweak != nil {
				tt.tweak(&opts)
			}
			began := time.Now()
			rep := Run(context.Background(), tt.plan, opts)
			assert.Less(t, time.Since(began), 10*time.Second, "must not hang")
			var got []Status
			for _, f := range rep.Files {
				got = append(got, f.Status)
			}
			assert.Equal(t, tt.statuses, got)
			assert.Equal(t, tt.log, log.lines)
			for _, s := range tt.summary {
				assert.Contains(t, out.String(), s)
			}
		})
	}
}

func TestRun_ChildRunsInRootWithAbsolutePath(t *testing.T) {
	root := repo(t, map[string]string{"sub/where.py": "echo \"cwd=$(pwd -P)\"\necho \"argv=$0\"\n"})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	rep := Run(context.Background(), []File{{"sub/where.py", 1}}, opts)
	require.True(t, rep.Passed())
	real, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	assert.Contains(t, out.String(), "cwd="+real+"\n")
	assert.Contains(t, out.String(), "argv="+filepath.Join(root, "sub/where.py")+"\n")
}

func TestRun_GrandchildHoldingOutputIsKilledAtTimeout(t *testing.T) {
	// The grandchild ignores SIGTERM and keeps the inherited stdout open;
	// it says it is ready once its trap is set.
	src := `sh -c 'trap "" TERM; echo grandchild up; echo $$ >&3; exec sleep 600' &
exec sleep 600
`
	for _, retry := range []bool{false, true} {
		t.Run(fmt.Sprintf("retry=%v", retry), func(t *testing.T) {
			root := repo(t, map[string]string{"g.py": src})
			var out bytes.Buffer
			opts, _ := baseOptions(root, &out)
			// The timeout counts from the grandchild's readiness (the
			// launcher's Start returns only then); the deadline only
			// catches a run that waits for the grandchild (600 s) instead
			// of killing it.
			launch := &testutil.Launcher{Ready: true}
			opts.Start = launch.Start
			opts.TimeoutPerFile, opts.EnableRetry = 1, retry
			began := time.Now()
			rep := Run(context.Background(), []File{{"g.py", 0}}, opts)
			assert.Less(t, time.Since(began), 60*time.Second, "the run waited for the grandchild")
			assert.Equal(t, Timeout, rep.Files[0].Status)
			assert.Contains(t, out.String(), "grandchild up\n")
			pid := launch.Pid(t)
			assert.Eventually(t, func() bool { return !testutil.Alive(pid) }, 10*time.Second, 20*time.Millisecond, "grandchild %d survived", pid)
		})
	}
}

func TestRun_LeftoversOfAPassingFileAreKilled(t *testing.T) {
	src := `sleep 600 >/dev/null &
echo $! > "$0.pid"
`
	root := repo(t, map[string]string{"server.py": src})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	rep := Run(context.Background(), []File{{"server.py", 1}}, opts)
	require.True(t, rep.Passed())
	pid := readPid(t, filepath.Join(root, "server.py.pid"))
	assert.Eventually(t, func() bool { return !testutil.Alive(pid) }, 10*time.Second, 20*time.Millisecond)
}

// shDaemon starts a grandchild that leaves the process group and the
// session (setsid) from a subshell that exits at once, as a server started
// in the background does; the grandchild says it is ready (its pid, on
// descriptor 3) once it has done what %s says. The test file then does what
// the test says.
const shDaemon = `( setsid sh -c '%s echo $$ >&3; exec sleep 600' & )
`

// A daemon out of the test's process group, and even one that ignores
// SIGTERM, is gone when the file's run returns: miles-ci is the subreaper
// of its tests and ends every descendant after each file.
func TestRun_ADaemonThatLeftTheGroupIsKilledAfterItsFile(t *testing.T) {
	testutil.NeedLinux(t, "a child subreaper")
	testutil.NeedCommand(t, "setsid")
	shortSweepGrace(t)
	tests := []struct {
		name, setup, tail string
		timeout           int
	}{
		{"passing file", "", "echo ok\n", 60},
		{"timed-out file", "", "exec sleep 600\n", 1},
		{"daemon ignoring SIGTERM", `trap "" TERM;`, "", 60},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := repo(t, map[string]string{"d.py": fmt.Sprintf(shDaemon, tt.setup) + tt.tail})
			var out bytes.Buffer
			opts, _ := baseOptions(root, &out)
			launch := &testutil.Launcher{Ready: true}
			opts.Start = launch.Start
			opts.TimeoutPerFile = tt.timeout
			Run(context.Background(), []File{{"d.py", 0}}, opts)
			pid := launch.Pid(t)
			t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
			assert.False(t, testutil.Alive(pid), "daemon %d survived its file", pid)
		})
	}
}

// shortSweepGrace shortens the time a leftover has between SIGTERM and
// SIGKILL for the test: a daemon that ignores SIGTERM waits it out.
func shortSweepGrace(t *testing.T) {
	old := sweepGrace
	sweepGrace = 100 * time.Millisecond
	t.Cleanup(func() { sweepGrace = old })
}

func TestRun_CapturedOutputPassesThroughByteExact(t *testing.T) {
	// A 10 MB line, invalid UTF-8, CR, and a last line without newline.
	src := `head -c 10485760 /dev/zero | tr '\0' x
printf '\nbad \377\376\303 bytes\r\nno newline at the end'
exit 1
`
	root := repo(t, map[string]string{"big.py": src})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	opts.EnableRetry, opts.MaxAttempts = true, 2
	rep := Run(context.Background(), []File{{"big.py", 1}}, opts)
	want := append(bytes.Repeat([]byte("x"), 10*1024*1024), "\nbad \xff\xfe\xc3 bytes\r\nno newline at the end\n"...)
	got := out.Bytes()
	i := bytes.Index(got, []byte("xxxx"))
	require.GreaterOrEqual(t, i, 0)
	require.GreaterOrEqual(t, len(got)-i, len(want))
	assert.True(t, bytes.Equal(want, got[i:i+len(want)]), "output differs")
	assert.Equal(t, Fail, rep.Files[0].Status)
	assert.Equal(t, "unknown failure type", rep.Files[0].Attempts[0].RetryReason)
	assert.Len(t, rep.Files[0].Last().Output, TailSize)
	assert.True(t, bytes.HasSuffix(rep.Files[0].Last().Output, []byte("no newline at the end")))
}

func TestRun_GateRecordDirPerAttemptAndMergedAfterPass(t *testing.T) {
	root := repo(t, map[string]string{"tests/g.py": shEnvDump})
	base := t.TempDir()
	hookOut := filepath.Join(t.TempDir(), "hook")
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	opts.GateBaseDir = base
	opts.GateHook = `printf '%s|%s|%s' "$1" "$2" "$MILES_CI_GATE_WRITE_BASELINE" > ` + hookOut + `; exit 7`
	rep := Run(context.Background(), []File{{"tests/g.py", 1}}, opts)
	require.True(t, rep.Passed(), out.String())
	dir := RecordDir(base, "tests/g.py", 1)
	merged, err := os.ReadFile(dir + ".merged.jsonl")
	require.NoError(t, err)
	assert.Equal(t, `{"metric": "loss", "series": [[1, 0.75], [2, 0.5]]}`+"\n", string(merged))
	assert.Equal(t, dir+".merged.jsonl", rep.Files[0].RecordPath)
	hook, err := os.ReadFile(hookOut)
	require.NoError(t, err)
	assert.Equal(t, "tests/g.py|"+dir+".merged.jsonl|false", string(hook))
	assert.Contains(t, out.String(), "[CI Gate] hook failed for tests/g.py: exit code 7\n")
}

// A passing test that leaves a FIFO nobody writes to and a link to an
// endless device in its record directory still passes, at once, with a
// warning for each; its regular record is merged and handed to the hook.
func TestRun_GateRecordsThatAreNotRegularFilesAreSkipped(t *testing.T) {
	src := `d="$MILES_CI_GATE_RECORD_DIR"
printf '%s\n' '{"metric": "loss", "series": [[1, 0.5]]}' > "$d/a.jsonl"
mkfifo "$d/r.jsonl"
ln -s /dev/zero "$d/z.jsonl"
`
	root := repo(t, map[string]string{"tests/g.py": src})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	opts.GateBaseDir = t.TempDir()
	opts.GateHook = "true"
	done := make(chan *Results, 1)
	go func() { done <- Run(context.Background(), []File{{"tests/g.py", 1}}, opts) }()
	var rep *Results
	select {
	case rep = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the run hung after the test passed")
	}
	require.True(t, rep.Passed(), out.String())
	assert.Contains(t, out.String(), "[CI Gate] record r.jsonl of tests/g.py skipped: is a FIFO, not a regular file\n")
	assert.Contains(t, out.String(), "[CI Gate] record z.jsonl of tests/g.py skipped: is a character device, not a regular file\n")
	merged, err := os.ReadFile(rep.Files[0].RecordPath)
	require.NoError(t, err, out.String())
	assert.Equal(t, `{"metric": "loss", "series": [[1, 0.5]]}`+"\n", string(merged))
}

func TestRun_InterruptKillsTheGroupAndSummarizes(t *testing.T) {
	root := repo(t, map[string]string{"hang.py": "echo $$ >&3\n" + shHang, "b.py": shPass})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	opts.KillGrace = 200 * time.Millisecond
	opts.Out = &lockedBuffer{buf: &out}
	launch := &testutil.Launcher{Ready: true}
	opts.Start = launch.Start
	ctx, cancel := context.WithCancel(context.Background())
	// The interrupt comes once hang.py runs, however long it took to start.
	go func() {
		<-launch.Readied()
		cancel()
	}()
	began := time.Now()
	rep := Run(ctx, []File{{"hang.py", 1}, {"b.py", 1}}, opts)
	// hang.py sleeps far longer: only a run that ignored the interrupt
	// gets near this deadline.
	assert.Less(t, time.Since(began), 30*time.Second, "the interrupt did not stop the run")
	assert.True(t, rep.Interrupted)
	assert.Equal(t, []Status{Interrupted, NotRun}, []Status{rep.Files[0].Status, rep.Files[1].Status})
	assert.Contains(t, out.String(), "  hang.py (interrupted)\n")
}

func TestRunPytest_CommandLineAndStatus(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"pytest args: $*\"\necho \"pytest cwd: $(pwd)\"\nexit 5\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pytest"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	tests := []struct {
		name      string
		continue_ bool
		junit     string
		args      string
	}{
		{"fast fail", false, "", "a.py b.py -v -x"},
		{"continue on error", true, "", "a.py b.py -v"},
		{"junit report", false, "/tmp/r.xml", "a.py b.py -v -x --junitxml=/tmp/r.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			code, err := RunPytest(context.Background(), PytestOptions{Root: root, Files: []string{"a.py", "b.py"},
				ContinueOnError: tt.continue_, JUnitXML: tt.junit, Out: &out, ErrOut: &out})
			require.NoError(t, err)
			assert.Equal(t, 5, code)
			real, _ := filepath.EvalSymlinks(root)
			assert.Equal(t, "Running: pytest "+tt.args+"\npytest args: "+tt.args+"\npytest cwd: "+real+"\n", out.String())
		})
	}
}

func TestRunPytest_MissingPytestIsAnError(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var out bytes.Buffer
	code, err := RunPytest(context.Background(), PytestOptions{Root: t.TempDir(), Files: []string{"a.py"}, Out: &out})
	require.Error(t, err)
	assert.Equal(t, 1, code)
	assert.Contains(t, err.Error(), "start pytest")
	assert.Equal(t, "Running: pytest a.py -v -x\n", out.String())
}

func TestEffectiveTimeout(t *testing.T) {
	tests := []struct {
		name string
		opts Limits
		est  float64
		want int
	}{
		{"per-file timeout wins", Limits{TimeoutPerFile: 1800}, 100, 1800},
		{"estimate times 1.25, floored", Limits{TimeoutPerFile: 10}, 100.9, 126},
		{"retry adds the increase", Limits{TimeoutPerFile: 1800, EnableRetry: true, RetryTimeoutIncrease: 600}, 100, 2400},
		{"increase ignored without retry", Limits{TimeoutPerFile: 2, RetryTimeoutIncrease: 600}, 1, 2},
		// Beyond int's range the limit saturates; it never wraps to a small
		// or negative one that max() would then replace by the estimate.
		{"retry increase saturates", Limits{TimeoutPerFile: math.MaxInt, EnableRetry: true, RetryTimeoutIncrease: 600}, 1, math.MaxInt},
		{"huge estimate saturates", Limits{TimeoutPerFile: 1800}, 1e300, math.MaxInt},
		{"infinite estimate saturates", Limits{TimeoutPerFile: 1800}, math.Inf(1), math.MaxInt},
		{"estimate beyond a duration is kept exact", Limits{TimeoutPerFile: 1800}, 1.4e10, 17500000000},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.opts.EffectiveTimeout(tt.est), tt.name)
	}
}

// A limit beyond what a time.Duration holds is no practical limit: the
// child runs to its end. Multiplying 18446744074 s by a second wrapped to
// 0.29 s and killed this 1.2 s test; MaxInt plus the retry increase
// wrapped negative and left the one-second estimate as the limit, as an
// infinite estimate (converted to MinInt) left --timeout-per-file's 1 s.
func TestRun_TimeoutsBeyondADurationNeverKill(t *testing.T) {
	testutil.SkipShort(t, "three runs of a 1.2 s file")
	tests := []struct {
		name  string
		tweak func(*Options)
		est   float64
	}{
		{"--timeout-per-file 18446744074", func(o *Options) { o.TimeoutPerFile = 18446744074 }, 0},
		{"saturated --timeout-per-file plus the retry increase", func(o *Options) {
			o.TimeoutPerFile, o.EnableRetry, o.RetryTimeoutIncrease = math.MaxInt, true, 600
		}, 0.8},
		{"est_time inf", func(o *Options) { o.TimeoutPerFile = 1 }, math.Inf(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := repo(t, map[string]string{"slow.py": "sleep 1.2\necho done\n"})
			var out bytes.Buffer
			opts, _ := baseOptions(root, &out)
			tt.tweak(&opts)
			rep := Run(context.Background(), []File{{"slow.py", tt.est}}, opts)
			assert.Equal(t, Pass, rep.Files[0].Status, out.String())
			assert.Contains(t, out.String(), "done\n")
		})
	}
}

func TestRun_RetryWaitBeyondADurationSaturates(t *testing.T) {
	root := repo(t, map[string]string{"flaky.py": shFlaky})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	var waited []time.Duration
	opts.EnableRetry, opts.RetryWaitSeconds = true, 9223372037
	opts.Sleep = func(ctx context.Context, d time.Duration) error { waited = append(waited, d); return nil }
	rep := Run(context.Background(), []File{{"flaky.py", 1}}, opts)
	assert.Equal(t, Pass, rep.Files[0].Status)
	assert.Equal(t, []time.Duration{math.MaxInt64}, waited)
	assert.Contains(t, out.String(), "[CI Retry] Waiting 9223372037s before retry...\n")
}

func TestTailBuffer_KeepsTheLastBytes(t *testing.T) {
	tb := newTailBuffer(4)
	for _, s := range []string{"ab", "cde", "f"} {
		_, _ = tb.Write([]byte(s))
	}
	assert.Equal(t, "cdef", string(tb.Bytes()))
	_, _ = tb.Write([]byte("0123456789"))
	assert.Equal(t, "6789", string(tb.Bytes()))
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf *bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far, also while a writer may still write.
func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var pid int
	_, err = fmt.Sscan(strings.TrimSpace(string(data)), &pid)
	require.NoError(t, err)
	return pid
}

// The End line is the Python runner's, byte for byte (its f-string's
// self-documenting fields): people grep CI logs for it.
func TestRun_EndLineIsThePythonRunners(t *testing.T) {
	root := repo(t, map[string]string{"tests/x.py": shPass, "tests/it's.py": shPass})
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	rep := Run(context.Background(), []File{{"tests/x.py", 120}, {"tests/it's.py", 1.5}}, opts)
	require.True(t, rep.Passed(), out.String())
	assert.Contains(t, out.String(), ".\n.\nEnd (0/1):\nfilename='tests/x.py', elapsed=1, _estimated_time=120.0\n.\n.\n\n")
	assert.Contains(t, out.String(), ".\n.\nEnd (1/1):\nfilename=\"tests/it's.py\", elapsed=1, _estimated_time=1.5\n.\n.\n\n")
}

// A passing test whose record holds an integer of ten million digits: Python's
// json.loads refuses any past 4300 digits, so its merge fails and the gate
// is skipped for the file, which has passed. The merge refuses it as soon as
// the digits are counted, rather than converting them (minutes of work).
func TestRun_GateRecordWithAHugeIntegerSkipsTheGate(t *testing.T) {
	src := `d="$MILES_CI_GATE_RECORD_DIR"
{ printf '{"metric": "loss", "series": [[1, '; head -c 10000000 /dev/zero | tr '\0' '7'; printf ']]}\n'; } > "$d/a.jsonl"
`
	root := repo(t, map[string]string{"tests/g.py": src})
	marker := filepath.Join(t.TempDir(), "hook-ran")
	var out bytes.Buffer
	opts, _ := baseOptions(root, &out)
	opts.GateBaseDir = t.TempDir()
	opts.GateHook = "touch " + marker
	rep := Run(context.Background(), []File{{"tests/g.py", 1}}, opts)
	require.True(t, rep.Passed(), out.String())
	assert.Contains(t, out.String(), "[CI Gate] record merge failed for tests/g.py: a.jsonl:1: invalid JSON at column 35: "+
		"integer exceeds the limit (4300 digits) for integer string conversion: value has 10000000 digits\n")
	assert.Empty(t, rep.Files[0].RecordPath)
	assert.NoFileExists(t, marker)
}
