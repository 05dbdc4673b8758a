package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The test binary doubles as miles-ci: with MILES_CI_TEST_MAIN=1 it runs
// main with its arguments, so tests can signal a real miles-ci process.
// MILES_CI_TEST_FORCE_EXIT_AFTER, a duration, shortens forceExitAfter for
// a test that waits it out.
func TestMain(m *testing.M) {
	if os.Getenv("MILES_CI_TEST_MAIN") == "1" {
		if d, err := time.ParseDuration(os.Getenv("MILES_CI_TEST_FORCE_EXIT_AFTER")); err == nil {
			forceExitAfter = d
		}
		main()
		return
	}
	// Most of these tests wait on child processes (a grace, a timeout, a
	// signal's effect), not on the CPU: -parallel's default, GOMAXPROCS (2
	// on CI), would queue those waits one after another. Unless -parallel
	// was given, four run at once.
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(max(runtime.GOMAXPROCS(0), 4)))
	}
	os.Exit(m.Run())
}

// registration is what the registry reads of the test files below, which
// are shell scripts (testutil.ShellTest) that startRun's miles-ci runs with
// sh: process handling, not Python, is the subject.
const registration = `register_cuda_ci(est_time=1, suite="stage-b-2-gpu-h200", labels=["fsdp"])` + "\n"

// hangingTest starts a grandchild in the same process group that ignores
// SIGTERM and, once the grandchild's trap is set (it says so through a
// FIFO), writes both pids to <file>.pids and hangs.
var hangingTest = testutil.ShellTest(registration, `mkfifo "$0.ready"
sh -c 'trap "" TERM; echo $$ > "$1.ready"; exec sleep 600' sh "$0" &
read grandchild < "$0.ready"
echo "$$ $grandchild" > "$0.tmp"
mv "$0.tmp" "$0.pids"
echo started
exec sleep 600`)

// TestSignal_StopsTheChildGroupAndExits128PlusSignal checks every stop
// signal: the test's process group is killed, the summary and the report
// are written, the exit status is 128 + the signal, and SIGQUIT gives no
// goroutine dump.
func TestSignal_StopsTheChildGroupAndExits128PlusSignal(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			report := filepath.Join(t.TempDir(), "r.json")
			cmd, file := startRun(t, "test_hang.py", hangingTest, &out, &out, "--enable-retry", "--retry-wait-seconds", "0",
				"--json-report", report)

			var pids []int
			require.Eventually(t, func() bool {
				data, err := os.ReadFile(file + ".pids")
				if err != nil {
					return false
				}
				pids = nil
				for _, f := range strings.Fields(string(data)) {
					var p int
					_, _ = fmt.Sscan(f, &p)
					pids = append(pids, p)
				}
				return true
			}, 20*time.Second, 20*time.Millisecond, "the test never started: %s", &out)

			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("miles-ci did not exit after %s:\n%s", sig, &out)
			}
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "exit: %v", err)
			assert.Equal(t, 128+int(sig), exit.ExitCode())
			assert.Contains(t, out.String(), "Test Summary: 0/1 passed")
			assert.Contains(t, out.String(), "tests/fast-gpu/test_hang.py (interrupted)")
			assert.NotContains(t, out.String(), "goroutine", "a goroutine dump")
			for _, p := range pids {
				assert.False(t, testutil.Alive(p), "process %d outlived miles-ci", p)
			}
			data, err := os.ReadFile(report)
			require.NoError(t, err, "the report was not written")
			assert.Contains(t, string(data), `"interrupted": true`)
			assert.Contains(t, string(data), `"status": "INTERRUPTED"`)
		})
	}
}

// startRun starts miles-ci (this test binary) running the cuda suite
// stage-b-2-gpu-h200 of a fresh repository whose one test file is
// tests/fast-gpu/<name> holding src, with extra arguments; it returns the
// command and the test file's path. Its python3 is sh (see registration).
// The process is killed when the test ends.
func startRun(t *testing.T, name, src string, stdout, stderr io.Writer, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	return startRunEnv(t, nil, name, src, stdout, stderr, extra...)
}

// startRunEnv is startRun with env added to miles-ci's environment.
func startRunEnv(t *testing.T, env []string, name, src string, stdout, stderr io.Writer, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, root := startRunTree(t, env, map[string]string{"tests/fast-gpu/" + name: src}, stdout, stderr, extra...)
	return cmd, filepath.Join(root, "tests", "fast-gpu", name)
}

// startRunTree is startRunEnv over a fresh repository holding tree (paths
// below the root and their text); it returns the command and the root.
func startRunTree(t *testing.T, env []string, tree map[string]string, stdout, stderr io.Writer, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	root := testutil.TempTree(t, tree)
	args := append([]string{"--root", root, "run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-fsdp"}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=", "PATH="+testutil.ShellAsPython(t))
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, root
}

// TestSignal_EndsACommandBlockedInTheKernel checks that a signal stops
// miles-ci even where nothing can look at its context and the command is
// one a signal lets finish (report summary, which may be writing a JUnit
// file): a write(2) to a stdout pipe that no one reads. (Every file
// miles-ci opens is opened without waiting, so a full pipe is what is left
// to block on.)
func TestSignal_EndsACommandBlockedInTheKernel(t *testing.T) {
	testutil.SkipShort(t, "a command blocked in the kernel, then signalled")
	t.Parallel()
	// Enough files that the summary is far more than a pipe holds (64 KiB).
	big := filepath.Join(t.TempDir(), "big.json")
	rep := &report.Report{Suite: "stage-b-2-gpu-h200", Backend: "cuda"}
	for i := range 2000 {
		rep.Files = append(rep.Files, report.File{File: fmt.Sprintf("tests/e2e/test_%04d.py", i), Status: report.Fail,
			Attempts: 1, Elapsed: 1, Reason: "exit code 1"})
	}
	rep.Finish()
	data, err := report.Marshal(rep)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(big, data, 0o644))
	for _, second := range []bool{true, false} {
		t.Run(fmt.Sprintf("second signal %v", second), func(t *testing.T) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer r.Close() // open and never read: the writer blocks once it is full
			cmd := exec.Command(os.Args[0], "report", "summary", big)
			// Without the second signal, miles-ci hurries when
			// forceExitAfter has passed; a second is enough for the test.
			cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "MILES_CI_TEST_FORCE_EXIT_AFTER=1s")
			cmd.Stdout = w
			require.NoError(t, cmd.Start())
			w.Close()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			// Once the pipe is full, miles-ci is blocked in write(2).
			require.Eventually(t, func() bool { return pipeFull(t, r) }, 60*time.Second, 5*time.Millisecond,
				"miles-ci never filled the pipe")
			err = terminate(t, cmd, second, "while blocked writing to a full pipe")
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "exit: %v", err)
			if second {
				// 128 + the first signal miles-ci saw.
				assert.Contains(t, []int{128 + int(syscall.SIGTERM), 128 + int(syscall.SIGINT)}, exit.ExitCode())
			} else {
				assert.Equal(t, 128+int(syscall.SIGTERM), exit.ExitCode())
			}
		})
	}
}

// daemonTest starts a server the way a careless test does: out of the
// process group and the session (setsid) from a subshell that exits at
// once, ignoring SIGTERM; once its trap is set it writes its pid to
// <file>.pids. Then the test hangs until miles-ci is signalled.
var daemonTest = testutil.ShellTest(registration, `( setsid sh -c 'trap "" TERM; echo $$ > "$1.tmp"; mv "$1.tmp" "$1.pids"; exec sleep 600' sh "$0" & )
exec sleep 600`)

// TestSignal_NoDaemonOutlivesMilesCI checks that a daemon a test started out
// of its process group is gone when miles-ci has exited after a signal, on
// the orderly path (one signal) and on the hurried one (a second signal of
// another kind).
func TestSignal_NoDaemonOutlivesMilesCI(t *testing.T) {
	t.Parallel()
	testutil.NeedLinux(t, "a child subreaper")
	testutil.NeedCommand(t, "setsid")
	for _, second := range []bool{false, true} {
		t.Run(fmt.Sprintf("second signal %v", second), func(t *testing.T) {
			var out bytes.Buffer
			cmd, file := startRun(t, "test_daemon.py", daemonTest, &out, &out)

			var daemon int
			require.Eventually(t, func() bool {
				data, err := os.ReadFile(file + ".pids")
				if err != nil {
					return false
				}
				_, err = fmt.Sscan(string(data), &daemon)
				return err == nil
			}, 20*time.Second, 20*time.Millisecond, "the test never started its daemon: %s", &out)
			t.Cleanup(func() { _ = syscall.Kill(daemon, syscall.SIGKILL) })

			// The second signal comes before the daemon could answer
			// SIGTERM.
			_ = terminate(t, cmd, second, "with a daemon running")
			assert.False(t, testutil.Alive(daemon), "daemon %d outlived miles-ci:\n%s", daemon, &out)
		})
	}
}

// terminate sends cmd SIGTERM, and SIGINT right after when second is set
// (a second stop signal of another kind: the same signal again is the same
// stop), and returns how cmd ended; the test fails, saying context, when
// it does not end in time. Two signals sent back to back may reach
// miles-ci in either order.
func terminate(t *testing.T, cmd *exec.Cmd, second bool, context string) error {
	t.Helper()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	if second {
		require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(forceExitAfter + hurryBound + 10*time.Second):
		t.Fatalf("miles-ci did not exit after SIGTERM %s", context)
		return nil
	}
}

// pipeTest waits until the file left (the sign that the reader of
// miles-ci's stdout has left) exists, then prints, as a test printing its
// progress does.
func pipeTest(left string) string {
	return testutil.ShellTest(registration, `while [ ! -e '`+left+`' ]; do sleep 0.01; done
i=0
while [ $i -lt 1000 ]; do
    echo "progress line $i"
    i=$((i + 1))
done`)
}

// TestSIGPIPE_TheRunGoesOnAndWritesItsReports checks `miles-ci run … |
// head -1`: once the reader of stdout has left, miles-ci keeps running, the
// test that prints into the void still passes, and every report is written.
func TestSIGPIPE_TheRunGoesOnAndWritesItsReports(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	report, timings, left := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.json"), filepath.Join(dir, "left")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd, _ := startRun(t, "test_print.py", pipeTest(left), w, &stderr, "--json-report", report, "--timings-out", timings)
	w.Close()
	// Read the first line, as head -1 does, and leave.
	line, err := bufio.NewReader(r).ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(line, "Policy: "), line)
	require.NoError(t, r.Close())
	require.NoError(t, os.WriteFile(left, nil, 0o644))

	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("miles-ci did not finish:\n%s", &stderr)
	}
	require.NoError(t, err, "stderr:\n%s", &stderr)
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"passed": true`)
	assert.FileExists(t, timings)
	assert.Empty(t, stderr.String())
}

// TestSignal_ACommandThatOnlyReadsStopsAtOnce checks `lint` and `policy`
// stopped by SIGTERM while they print into a pipe nobody reads: each exits
// 128 + the signal at once, as a command with nothing to finish should. The
// forced exit is ten minutes away here, so a command that waited for it
// would come nowhere near the test's bound.
func TestSignal_ACommandThatOnlyReadsStopsAtOnce(t *testing.T) {
	t.Parallel()
	testutil.NeedLinux(t, "FIONREAD, to see miles-ci write")
	dir := t.TempDir()
	// Registrations lint reports one by one (a GPU test under tests/fast/),
	// and a pull request's diff that policy --explain lists path by path:
	// several pipefuls of output either way.
	fast := filepath.Join(dir, "tests", "fast")
	require.NoError(t, os.MkdirAll(fast, 0o755))
	var diff bytes.Buffer
	for i := range 300 {
		require.NoError(t, os.WriteFile(filepath.Join(fast, fmt.Sprintf("test_%04d.py", i)), []byte(registration), 0o644))
		fmt.Fprintf(&diff, "M\x00docs/ci/a-page-of-the-documentation-%04d.md\x00", i)
	}
	diffPath := filepath.Join(dir, "changed.diff")
	require.NoError(t, os.WriteFile(diffPath, diff.Bytes(), 0o644))

	tests := []struct {
		name string
		args []string
		env  []string
	}{
		{"lint", []string{"lint"}, nil},
		{"policy", []string{"policy", "--explain"},
			[]string{"EVENT_NAME=pull_request", "PR_LABELS_JSON=[]", "CHANGED_FILES_PATH=" + diffPath}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer r.Close() // never read
			// The pipe is full but for a page, so that the command's
			// first output shows, and the rest blocks it.
			_, capacity := pipeState(t, r)
			prefill := capacity - os.Getpagesize()
			_, err = w.Write(make([]byte, prefill))
			require.NoError(t, err)
			cmd := exec.Command(os.Args[0], append([]string{"--root", dir}, tt.args...)...)
			cmd.Env = append(append(os.Environ(), "MILES_CI_TEST_MAIN=1", "MILES_CI_TEST_FORCE_EXIT_AFTER=10m"), tt.env...)
			cmd.Stdout, cmd.Stderr = w, w
			require.NoError(t, cmd.Start())
			w.Close()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			// miles-ci writes only once it handles stop signals (main's
			// first step).
			require.Eventually(t, func() bool { queued, _ := pipeState(t, r); return queued > prefill },
				60*time.Second, 5*time.Millisecond, "miles-ci never wrote")
			require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(60 * time.Second):
				t.Fatalf("miles-ci %s did not stop after SIGTERM", tt.name)
			}
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "exit: %v", err)
			assert.Equal(t, 128+int(syscall.SIGTERM), exit.ExitCode())
		})
	}
}
