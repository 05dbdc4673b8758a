package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test binary doubles as miles-ci: with MILES_CI_TEST_MAIN=1 it runs
// main with its arguments, so tests can signal a real miles-ci process.
func TestMain(m *testing.M) {
	if os.Getenv("MILES_CI_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

const hangingTest = `import subprocess, sys, time


def register_cuda_ci(*args, **kwargs):
    return None


register_cuda_ci(est_time=1, suite="stage-b-2-gpu-h200", labels=["fsdp"])

# A grandchild in the same process group that ignores SIGTERM.
child = subprocess.Popen([sys.executable, "-c", "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(600)"])
with open(__file__ + ".pids", "w") as f:
    f.write("%d %d\n" % (__import__("os").getpid(), child.pid))
print("started", flush=True)
time.sleep(600)
`

func TestSignal_StopsTheChildGroupAndExits128PlusSignal(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			var out bytes.Buffer
			cmd, file := startRun(t, "test_hang.py", hangingTest, &out, &out, "--enable-retry", "--retry-wait-seconds", "0")

			var pids []int
			require.Eventually(t, func() bool {
				data, err := os.ReadFile(file + ".pids")
				if err != nil || !strings.HasSuffix(string(data), "\n") {
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
			for _, p := range pids {
				assert.False(t, alive(p), "process %d outlived miles-ci", p)
			}
		})
	}
}

// startRun starts miles-ci (this test binary) running the cuda suite
// stage-b-2-gpu-h200 of a fresh repository whose one test file is
// tests/fast-gpu/<name> holding src, with extra arguments; it returns the
// command and the test file's path. The process is killed when the test ends.
func startRun(t *testing.T, name, src string, stdout, stderr io.Writer, extra ...string) (*exec.Cmd, string) {
	t.Helper()
	root := t.TempDir()
	file := filepath.Join(root, "tests", "fast-gpu", name)
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, []byte(src), 0o644))
	args := append([]string{"--root", root, "run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200", "--labels", "run-ci-fsdp"}, extra...)
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, file
}

// alive reports whether pid is a live process (a zombie counts as dead).
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestSignal_EndsACommandBlockedInTheKernel checks that a signal stops
// miles-ci even where nothing can look at its context: a write(2) to a
// stdout pipe that no one reads. (Every file miles-ci opens is opened
// without waiting, so a full pipe is what is left to block on.)
func TestSignal_EndsACommandBlockedInTheKernel(t *testing.T) {
	dir := t.TempDir()
	// Enough test files that `suites --json` writes far more than a pipe
	// holds (64 KiB).
	fast := filepath.Join(dir, "tests", "fast")
	require.NoError(t, os.MkdirAll(fast, 0o755))
	for i := range 2000 {
		require.NoError(t, os.WriteFile(filepath.Join(fast, fmt.Sprintf("test_%04d.py", i)), []byte("x = 1\n"), 0o644))
	}
	for _, second := range []bool{true, false} {
		t.Run(fmt.Sprintf("second signal %v", second), func(t *testing.T) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			defer r.Close() // open and never read: the writer blocks once it is full
			cmd := exec.Command(os.Args[0], "--root", dir, "suites", "--json")
			cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1")
			cmd.Stdout = w
			require.NoError(t, cmd.Start())
			w.Close()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			time.Sleep(500 * time.Millisecond) // let it fill the pipe and block in write(2)
			err = terminate(t, cmd, second, "while blocked writing to a full pipe")
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "exit: %v", err)
			assert.Equal(t, 128+int(syscall.SIGTERM), exit.ExitCode())
		})
	}
}

// daemonTest starts a server the way a careless test does: double-forked,
// out of the process group and the session (setsid), ignoring SIGTERM; then
// it hangs until miles-ci is signalled.
const daemonTest = `import os, signal, sys, time


def register_cuda_ci(*args, **kwargs):
    return None


register_cuda_ci(est_time=1, suite="stage-b-2-gpu-h200", labels=["fsdp"])

if os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        with open(__file__ + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(__file__ + ".tmp", __file__ + ".pids")
        time.sleep(600)
    os._exit(0)
time.sleep(600)
`

// TestSignal_NoDaemonOutlivesMilesCI checks that a daemon a test started out
// of its process group is gone when miles-ci has exited after a signal, on
// the orderly path (one signal) and on the forced one (a second signal).
func TestSignal_NoDaemonOutlivesMilesCI(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	if runtime.GOOS != "linux" {
		t.Skip("a child subreaper is Linux's")
	}
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

			// The second signal comes while miles-ci waits for the daemon
			// to answer SIGTERM.
			_ = terminate(t, cmd, second, "with a daemon running")
			assert.False(t, alive(daemon), "daemon %d outlived miles-ci:\n%s", daemon, &out)
		})
	}
}

// terminate sends cmd SIGTERM, and a second one shortly after when second
// is set (two signals sent at once may arrive as one), and returns how cmd
// ended; the test fails, saying context, when it does not end in time.
func terminate(t *testing.T, cmd *exec.Cmd, second bool, context string) error {
	t.Helper()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	if second {
		time.Sleep(100 * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(forceExitAfter + 10*time.Second):
		t.Fatalf("miles-ci did not exit after SIGTERM %s", context)
		return nil
	}
}

// pipeTest waits until the reader of miles-ci's stdout has left, then
// prints, as a test printing its progress does.
const pipeTest = `import os, time


def register_cuda_ci(*args, **kwargs):
    return None


register_cuda_ci(est_time=1, suite="stage-b-2-gpu-h200", labels=["fsdp"])

while not os.path.exists(os.environ["READER_LEFT"]):
    time.sleep(0.01)
for i in range(1000):
    print("progress line", i, flush=True)
`

// TestSIGPIPE_TheRunGoesOnAndWritesItsReports checks `miles-ci run … |
// head -1`: once the reader of stdout has left, miles-ci keeps running, the
// test that prints into the void still passes, and every report is written.
func TestSIGPIPE_TheRunGoesOnAndWritesItsReports(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	dir := t.TempDir()
	report, timings, left := filepath.Join(dir, "r.json"), filepath.Join(dir, "t.json"), filepath.Join(dir, "left")
	t.Setenv("READER_LEFT", left)
	r, w, err := os.Pipe()
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd, _ := startRun(t, "test_print.py", pipeTest, w, &stderr, "--json-report", report, "--timings-out", timings)
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
