package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// stubbornTest writes its pid to <file>.pids once it runs, and on each
// SIGTERM it gets (its sleep dies of it) touches <file>.term and goes on
// sleeping: only SIGKILL, at the end of the grace or sooner, ends it.
var stubbornTest = testutil.ShellTest(registration, `trap 'touch "$0.term"' TERM
echo $$ > "$0.tmp"
mv "$0.tmp" "$0.pids"
while :; do sleep 1; done`)

// twiceRun is one `miles-ci run` of stubbornTest that asks for every
// report: the JSON report, the JUnit file and the step summary.
type twiceRun struct {
	cmd                  *exec.Cmd
	out                  *bytes.Buffer
	file, pid            string
	json, junit, summary string
	testPid              int
}

// startTwiceRun starts miles-ci (this test binary) in a process group of
// its own, as a shell or `timeout` starts it, through wrap (a command
// before miles-ci's, as `timeout -s TERM 3`; none when empty), and waits
// until the test runs.
func startTwiceRun(t *testing.T, wrap ...string) *twiceRun {
	t.Helper()
	dir := t.TempDir()
	r := &twiceRun{out: &bytes.Buffer{}, json: filepath.Join(dir, "r.json"), junit: filepath.Join(dir, "r.xml"),
		summary: filepath.Join(dir, "summary.md")}
	root := testutil.TempTree(t, map[string]string{"tests/fast-gpu/test_stubborn.py": stubbornTest})
	r.file = filepath.Join(root, "tests", "fast-gpu", "test_stubborn.py")
	args := append(wrap, os.Args[0], "--root", root, "run", "--hw", "cuda", "--suite", "stage-b-2-gpu-h200",
		"--labels", "run-ci-fsdp", "--json-report", r.json, "--junit-xml", r.junit)
	r.cmd = exec.Command(args[0], args[1:]...)
	r.cmd.Env = append(os.Environ(), "MILES_CI_TEST_MAIN=1", "GITHUB_ACTIONS=", "PATH="+testutil.ShellAsPython(t),
		"GITHUB_STEP_SUMMARY="+r.summary)
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.out
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, r.cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL) })
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(r.file + ".pids")
		if err != nil {
			return false
		}
		_, err = fmt.Sscan(string(data), &r.testPid)
		return err == nil
	}, 60*time.Second, 10*time.Millisecond, "the test never started:\n%s", r.out)
	t.Cleanup(func() { _ = syscall.Kill(-r.testPid, syscall.SIGKILL) })
	return r
}

// waitTERM waits until the test got the SIGTERM that a stop sends it:
// miles-ci has then acted on the first signal.
func (r *twiceRun) waitTERM(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool { _, err := os.Stat(r.file + ".term"); return err == nil },
		60*time.Second, 10*time.Millisecond, "the test never got SIGTERM:\n%s", r.out)
}

// wait returns the exit status of the command; the test fails when it does
// not end well within the stop's bounds.
func (r *twiceRun) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("miles-ci did not exit:\n%s", r.out)
	}
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "exit: %v\n%s", err, r.out)
	return exit.ExitCode()
}

// assertReported checks what the run's normal signal path writes: the
// summary, a complete JSON report and JUnit file saying the file was
// interrupted, the step summary, and no process of the test left.
func (r *twiceRun) assertReported(t *testing.T) {
	t.Helper()
	assert.Contains(t, r.out.String(), "tests/fast-gpu/test_stubborn.py (interrupted)")
	doc, err := report.Read(r.json)
	if assert.NoError(t, err, "the JSON report:\n%s", r.out) {
		assert.True(t, doc.Interrupted, "the JSON report says the run was not interrupted")
		if assert.Len(t, doc.Files, 1) {
			assert.Equal(t, report.Interrupted, doc.Files[0].Status)
		}
	}
	data, err := os.ReadFile(r.junit)
	if assert.NoError(t, err, "the JUnit file:\n%s", r.out) {
		var suites struct {
			Suites []struct {
				Cases []struct {
					Name    string `xml:"name,attr"`
					Failure *struct {
						Type string `xml:"type,attr"`
					} `xml:"failure"`
				} `xml:"testcase"`
			} `xml:"testsuite"`
		}
		require.NoError(t, xml.Unmarshal(data, &suites), "the JUnit file is not XML:\n%s", data)
		if assert.Len(t, suites.Suites, 1) && assert.Len(t, suites.Suites[0].Cases, 1) {
			c := suites.Suites[0].Cases[0]
			assert.Equal(t, "tests/fast-gpu/test_stubborn.py", c.Name)
			if assert.NotNil(t, c.Failure) {
				assert.Equal(t, string(report.Interrupted), c.Failure.Type)
			}
		}
	}
	summary, err := os.ReadFile(r.summary)
	if assert.NoError(t, err, "the step summary:\n%s", r.out) {
		assert.Contains(t, string(summary), "stage-b-2-gpu-h200")
	}
	assert.False(t, testutil.Alive(r.testPid), "the test (pid %d) outlived miles-ci", r.testPid)
	assert.Empty(t, testutil.LeftRunning(r.file, r.testPid), "processes of the test outlived miles-ci")
}

// TestSignal_TheSameSignalTwiceStillWritesEveryReport is what coreutils
// timeout does: SIGTERM to miles-ci, then to its whole process group, so
// that miles-ci gets it twice, nearly at once. That is one stop, not two:
// the run ends as after one signal, with every report written, and exits
// 128 + SIGTERM. Some runs send the second signal once the first has
// reached the test (miles-ci is then in the test's grace, where a forced
// exit lost the reports every time), the others back to back (where two
// signals may arrive as one).
func TestSignal_TheSameSignalTwiceStillWritesEveryReport(t *testing.T) {
	t.Parallel()
	testutil.NeedLinux(t, "/proc, to see no process of the test is left")
	runs := 5 // the repeats are for a race; each run waits out a 3 s grace
	if testutil.Short(t, "three of the five runs") {
		runs = 2
	}
	for i := range runs {
		afterTERM := i%2 == 0
		t.Run(fmt.Sprintf("run %d, second after the test's SIGTERM %v", i, afterTERM), func(t *testing.T) {
			t.Parallel()
			r := startTwiceRun(t)
			pid := r.cmd.Process.Pid
			require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
			if afterTERM {
				r.waitTERM(t)
			}
			require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
			require.NoError(t, syscall.Kill(-pid, syscall.SIGTERM))
			assert.Equal(t, 128+int(syscall.SIGTERM), r.wait(t), "%s", r.out)
			r.assertReported(t)
		})
	}
}

// TestSignal_ADifferentSecondSignalCutsTheGraceAndStillWritesEveryReport
// checks a second stop of another kind (GitHub's cancel sends SIGINT,
// then SIGTERM): the test that ignores SIGTERM is killed at once instead
// of at the end of its grace, and the reports are still written; the exit
// status is still 128 + the first signal. The second signal comes once the
// test got the first's SIGTERM, or back to back with the first (then the
// test may be killed before the run saw the stop: it is still
// interrupted, not failed; and either signal may be the first seen).
func TestSignal_ADifferentSecondSignalCutsTheGraceAndStillWritesEveryReport(t *testing.T) {
	t.Parallel()
	testutil.NeedLinux(t, "/proc, to see no process of the test is left")
	for _, tt := range []struct {
		second    syscall.Signal
		afterTERM bool
	}{{syscall.SIGINT, true}, {syscall.SIGHUP, true}, {syscall.SIGINT, false}, {syscall.SIGQUIT, false}} {
		t.Run(fmt.Sprintf("%s after the test's SIGTERM %v", tt.second, tt.afterTERM), func(t *testing.T) {
			t.Parallel()
			r := startTwiceRun(t)
			pid := r.cmd.Process.Pid
			require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
			if tt.afterTERM {
				r.waitTERM(t)
			}
			require.NoError(t, syscall.Kill(pid, tt.second))
			code := r.wait(t)
			if tt.afterTERM {
				assert.Equal(t, 128+int(syscall.SIGTERM), code, "%s", r.out)
			} else {
				// Two signals sent back to back may reach miles-ci in
				// either order (the kernel hands the lower number out
				// first, and two threads may take one each).
				assert.Contains(t, []int{128 + int(syscall.SIGTERM), 128 + int(tt.second)}, code, "%s", r.out)
			}
			r.assertReported(t)
		})
	}
}

// TestSignal_CoreutilsTimeoutStillGetsEveryReport runs `timeout -s TERM 10
// miles-ci run …` itself, whose exit status is timeout's 124. (Ten
// seconds, not the three of the issue: the test must have started, on a
// loaded machine too, for the report to say it was interrupted.)
func TestSignal_CoreutilsTimeoutStillGetsEveryReport(t *testing.T) {
	t.Parallel()
	testutil.NeedLinux(t, "/proc, to see no process of the test is left")
	timeout := testutil.NeedCommand(t, "timeout")
	runs := 3 // the repeats are for a race; each run waits out timeout's 10 s
	if testutil.Short(t, "two of the three runs") {
		runs = 1
	}
	for i := range runs {
		t.Run(fmt.Sprintf("run %d", i), func(t *testing.T) {
			t.Parallel()
			r := startTwiceRun(t, timeout, "-s", "TERM", "10")
			assert.Equal(t, 124, r.wait(t), "%s", r.out)
			r.assertReported(t)
		})
	}
}
