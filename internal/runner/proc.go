package runner

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// How long the output of a finished process may keep arriving. Once the
// child has exited and its process group has been killed, every writer of
// the pipe is normally gone and the pipe reports EOF at once; a descendant
// that left the group (setsid) could hold it open forever, so reading stops
// after drainIdle without data or drainMax in all.
const (
	drainIdle = 500 * time.Millisecond
	drainMax  = 1500 * time.Millisecond
)

// procSpec is one child process to run to completion.
type procSpec struct {
	argv    []string
	dir     string
	env     []string
	timeout time.Duration // 0: none
	grace   time.Duration // SIGTERM to SIGKILL on interrupt

	// With merged set, stdout and stderr share one pipe whose bytes go to
	// out and, when set, to observe; otherwise the child writes to out and
	// errOut (directly when they are files).
	merged  bool
	out     io.Writer
	errOut  io.Writer
	observe io.Writer

	start func(*exec.Cmd) error
}

// procResult is how a child ended.
type procResult struct {
	exitCode    int // the child's status; -N when killed by signal N (Python's returncode)
	timedOut    bool
	interrupted bool
	// endedWithoutNewline: the merged output was not empty and its last
	// byte was not '\n'.
	endedWithoutNewline bool
}

// runProc starts spec in a process group of its own, waits for it, kills
// the group at the timeout or when ctx is cancelled, and after the child
// has exited kills whatever is left of the group. It returns only when the
// child has been reaped and its output copied.
func runProc(ctx context.Context, spec procSpec) (procResult, error) {
	if len(spec.argv) == 0 {
		return procResult{}, errNoCommand
	}
	cmd := exec.Command(spec.argv[0], spec.argv[1:]...)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	var copies []*copier
	var childEnds []*os.File
	cleanup := func() {
		for _, f := range childEnds {
			f.Close()
		}
		childEnds = nil
	}
	attach := func(w io.Writer, observe io.Writer, track bool) (*os.File, error) {
		if f, ok := w.(*os.File); ok && observe == nil && !track {
			return f, nil
		}
		r, wf, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		childEnds = append(childEnds, wf)
		c := &copier{r: r, dst: w, observe: observe, done: make(chan struct{})}
		copies = append(copies, c)
		return wf, nil
	}
	if spec.merged {
		w, err := attach(spec.out, spec.observe, true)
		if err != nil {
			return procResult{}, err
		}
		cmd.Stdout, cmd.Stderr = w, w
	} else {
		w, err := attach(spec.out, nil, false)
		if err != nil {
			return procResult{}, err
		}
		ew, err := attach(spec.errOut, nil, false)
		if err != nil {
			cleanup()
			closeCopies(copies)
			return procResult{}, err
		}
		cmd.Stdout, cmd.Stderr = w, ew
	}

	start := spec.start
	if start == nil {
		start = (*exec.Cmd).Start
	}
	if err := start(cmd); err != nil {
		cleanup()
		closeCopies(copies)
		return procResult{}, err
	}
	// The child has its own copies of the write ends; ours must go so the
	// pipe reports EOF when the last writer in the child's family exits.
	cleanup()
	for _, c := range copies {
		go c.run()
	}

	pgid := cmd.Process.Pid
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var timeoutC <-chan time.Time
	if spec.timeout > 0 {
		timer := time.NewTimer(spec.timeout)
		defer timer.Stop()
		timeoutC = timer.C
	}
	var res procResult
	select {
	case <-waitDone:
	case <-timeoutC:
		res.timedOut = true
		killGroup(pgid, syscall.SIGKILL)
		<-waitDone
	case <-ctx.Done():
		res.interrupted = true
		killGroup(pgid, syscall.SIGTERM)
		grace := time.NewTimer(spec.grace)
		select {
		case <-waitDone:
			grace.Stop()
		case <-grace.C:
			killGroup(pgid, syscall.SIGKILL)
			<-waitDone
		}
	}
	// Leftovers: servers the test started and did not stop still hold GPU
	// memory and would outlive the run. SIGKILL is delivered asynchronously,
	// so wait (briefly) until the group is really gone: the next test must
	// not start, nor miles-ci exit, while they still hold a GPU.
	killGroup(pgid, syscall.SIGKILL)
	waitGroupGone(pgid, groupGoneWait)

	for _, c := range copies {
		c.finish()
	}
	if spec.merged && len(copies) > 0 {
		c := copies[0]
		res.endedWithoutNewline = c.n > 0 && c.last != '\n'
	}

	res.exitCode = exitStatus(cmd.ProcessState)
	return res, nil
}

// exitStatus is the child's exit code, or -N when signal N killed it.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -int(ws.Signal())
	}
	return ps.ExitCode()
}

func killGroup(pgid int, sig syscall.Signal) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
}

// groupGoneWait bounds how long a run waits for a killed process group to
// disappear; a zombie its new parent is slow to reap must not stall a run.
const groupGoneWait = 2 * time.Second

// waitGroupGone polls until no live process of the group is left, or max.
// A killed process that its new parent has not reaped yet (a zombie) holds
// nothing and counts as gone.
func waitGroupGone(pgid int, max time.Duration) {
	if pgid <= 0 {
		return
	}
	deadline := time.Now().Add(max)
	for groupAlive(pgid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// groupAlive reports whether a process of the group is alive and not a
// zombie. Without /proc it can only tell whether the group exists at all.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and
		// parentheses, so read the fields after its last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(data[i+1:]))
		if len(fields) < 3 || fields[0] == "Z" || fields[0] == "X" {
			continue
		}
		if pg, err := strconv.Atoi(fields[2]); err == nil && pg == pgid {
			return true
		}
	}
	return false
}

func closeCopies(cs []*copier) {
	for _, c := range cs {
		c.r.Close()
	}
}

// copier moves a child's output from a pipe to dst as it arrives, chunk by
// chunk: bytes pass through unchanged and nothing is kept but the last one.
type copier struct {
	r       *os.File
	dst     io.Writer
	observe io.Writer

	exited atomic.Bool
	done   chan struct{}
	n      int64
	last   byte
}

func (c *copier) run() {
	defer close(c.done)
	buf := make([]byte, 64<<10)
	for {
		if c.exited.Load() {
			_ = c.r.SetReadDeadline(time.Now().Add(drainIdle))
		}
		n, err := c.r.Read(buf)
		if n > 0 {
			chunk := buf[:n]
			c.n += int64(n)
			c.last = chunk[n-1]
			// A reader that stops would block the child; keep reading
			// even when our own output fails.
			_, _ = c.dst.Write(chunk)
			if c.observe != nil {
				_, _ = c.observe.Write(chunk)
			}
		}
		if err != nil {
			return
		}
	}
}

// finish stops the copier once the child is gone: what is already in the
// pipe is still copied, but no reader waits for a writer that escaped the
// process group.
func (c *copier) finish() {
	c.exited.Store(true)
	_ = c.r.SetReadDeadline(time.Now().Add(drainIdle))
	select {
	case <-c.done:
	case <-time.After(drainMax):
		_ = c.r.SetReadDeadline(time.Now())
		<-c.done
	}
	c.r.Close()
}

var errNoCommand = errors.New("empty command")
