package testutil

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Alive reports whether pid is a live process. A zombie, dead and waiting
// for its parent to collect its status, is not. Without /proc the kernel
// is asked, which counts a zombie as alive: a test errs on the side of
// "survived".
func Alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if errors.Is(err, os.ErrNotExist) {
		if _, serr := os.Stat("/proc/self/stat"); serr == nil {
			return false // there is a /proc, and pid is not in it
		}
		return syscall.Kill(pid, 0) == nil
	}
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	fields := strings.Fields(s[i+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// ShellTest is the text of a test file that miles-ci's registry reads as
// Python and sh runs as a script: python (the register_*_ci calls) is what
// the reader sees, hidden from sh after script ends with exit; script is
// what runs, hidden from Python in a string. The first line is `:` to sh
// and opens the string in Python. script must hold no backslash and no
// three single quotes in a row.
// A Launcher with Shell set runs such files with sh.
func ShellTest(python, script string) string {
	return "''':'\n" + script + "\nexit\n'''\n" + python
}

// ReadyFD is the descriptor on which a child started by a Launcher with
// Ready set says that it is ready, with one line: `echo $$ >&3`.
const ReadyFD = 3

// readyWait bounds how long a Launcher waits for a child's readiness; only
// a broken fixture comes near it, however loaded the machine.
const readyWait = 2 * time.Minute

// Launcher starts the children of a runner under test in place of
// exec.Cmd.Start (runner.Options.Start, cli.Factory.Start).
type Launcher struct {
	// Shell runs a python3 command with sh: the test's files are shell
	// scripts (see ShellTest), for a test whose subject is process
	// handling, not Python.
	Shell bool
	// Ready makes Start return only once the child has written a line to
	// descriptor 3 (ReadyFD), or exited. The runner starts a child's
	// timeout when Start returns, so the timeout then counts from the
	// moment the child has set up what the test looks at, never racing a
	// start-up a loaded machine stretches. The child must not write more
	// than a pipe holds (64 KiB) to its output before it is ready: nobody
	// reads that output yet.
	Ready bool

	mu    sync.Mutex
	lines []string
	errs  []error
	ready chan string
}

// Start starts c as the Launcher says.
func (l *Launcher) Start(c *exec.Cmd) error {
	if l.Shell && filepath.Base(c.Args[0]) == "python3" {
		sh, err := exec.LookPath("sh")
		if err != nil {
			return err
		}
		// exec.Command recorded that python3 was not found, when it was
		// not: that no longer matters.
		c.Path, c.Args[0], c.Err = sh, "sh", nil
	}
	if !l.Ready {
		return c.Start()
	}
	if len(c.ExtraFiles) != 0 {
		return errors.New("testutil.Launcher: the command has descriptors beyond stderr already")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer r.Close()
	c.ExtraFiles = []*os.File{w}
	err = c.Start()
	w.Close()
	if err != nil {
		return err
	}
	_ = r.SetReadDeadline(time.Now().Add(readyWait))
	line, err := bufio.NewReader(r).ReadString('\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ready == nil {
		l.ready = make(chan string, 64)
	}
	switch {
	case err == nil:
		line = strings.TrimSuffix(line, "\n")
		l.lines = append(l.lines, line)
		select {
		case l.ready <- line:
		default:
		}
	case errors.Is(err, os.ErrDeadlineExceeded):
		l.errs = append(l.errs, fmt.Errorf("%s was not ready within %s", c.Args, readyWait))
	}
	// EOF: the child exited without saying it was ready; the test sees
	// what it did.
	return nil
}

// Readied receives each ready line as its child says it.
func (l *Launcher) Readied() <-chan string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ready == nil {
		l.ready = make(chan string, 64)
	}
	return l.ready
}

// Pids returns the ready lines so far, each a pid (`echo $$ >&3`), failing
// t when one is not, or when a child was not ready in time.
func (l *Launcher) Pids(t testing.TB) []int {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, err := range l.errs {
		t.Fatal(err)
	}
	pids := make([]int, len(l.lines))
	for i, line := range l.lines {
		if _, err := fmt.Sscan(line, &pids[i]); err != nil {
			t.Fatalf("ready line %q is not a pid", line)
		}
	}
	return pids
}

// Pid returns the one ready line's pid; see Pids.
func (l *Launcher) Pid(t testing.TB) int {
	t.Helper()
	pids := l.Pids(t)
	if len(pids) != 1 {
		t.Fatalf("%d children said they were ready, want 1", len(pids))
	}
	return pids[0]
}

// ShellAsPython returns a PATH on which python3 is sh, for a miles-ci
// process a test starts to run ShellTest files (see Launcher.Shell for the
// same in process).
func ShellAsPython(t testing.TB) string {
	t.Helper()
	sh := NeedCommand(t, "sh")
	dir := t.TempDir()
	if err := os.Symlink(sh, filepath.Join(dir, "python3")); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// LeftRunning lists the live processes (zombies aside) that a test expects
// gone: those whose command line holds marker ("" matches none), and those
// in process group pgid (0: none), each as "pid: command line". It reads
// /proc; a test calling it needs Linux (NeedLinux).
func LeftRunning(marker string, pgid int) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var left []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !Alive(pid) {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			continue // gone since the directory was read
		}
		argv := strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")
		group, gerr := syscall.Getpgid(pid)
		if (marker != "" && strings.Contains(argv, marker)) || (pgid > 0 && gerr == nil && group == pgid) {
			left = append(left, fmt.Sprintf("%d: %s", pid, argv))
		}
	}
	return left
}
