package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
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

// reapEvery is how often a running child's adopted orphans are reaped.
const reapEvery = time.Second

// procSpec is one child process to run to completion.
type procSpec struct {
	argv    []string
	dir     string
	env     []string
	timeout time.Duration // 0: none
	grace   time.Duration // SIGTERM to SIGKILL on interrupt

	// With merged set, stdout and stderr share one pipe whose bytes go to
	// out and, when set, to observe; otherwise the child writes to out and
	// errOut (directly when they are files, unless watch is set).
	merged  bool
	out     io.Writer
	errOut  io.Writer
	observe io.Writer
	// watch, when set and merged is not, gives the observer of each pipe
	// the child's output goes through: one when out and errOut are the
	// same file (2>&1), whose order one pipe keeps, else one per stream.
	// The bytes reach out and errOut as they would without it.
	watch func() io.Writer

	start func(*exec.Cmd) error
}

// procResult is how a child ended.
type procResult struct {
	exitCode    int // the child's status; -N when killed by signal N (Python's returncode)
	timedOut    bool
	interrupted bool
	// unkillable: the child was still there killWait after SIGKILL (stuck
	// in the kernel); it was left behind, and exitCode is -1.
	unkillable bool
	// endedWithoutNewline: the merged output was not empty and its last
	// byte was not '\n'.
	endedWithoutNewline bool
}

// runProc starts spec in a process group of its own, waits for it, kills
// the group at the timeout or when ctx is cancelled, and after the child
// has exited ends whatever is left of the group and every other descendant
// of miles-ci (see sweep). It returns only when the child has been reaped
// and its output copied.
func runProc(ctx context.Context, spec procSpec) (procResult, error) {
	if len(spec.argv) == 0 {
		return procResult{}, errNoCommand
	}
	cmd := exec.Command(spec.argv[0], spec.argv[1:]...)
	cmd.Dir = spec.dir
	cmd.Env = spec.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	outs, err := attachOutput(cmd, spec)
	if err != nil {
		return procResult{}, err
	}
	start := spec.start
	if start == nil {
		start = (*exec.Cmd).Start
	}
	prepareChildren()
	if err := start(cmd); err != nil {
		outs.abort()
		return procResult{}, err
	}
	outs.started()

	pgid := cmd.Process.Pid
	waitDone := make(chan error, 1)
	go func() { waitDone <- cmd.Wait() }()

	var timeoutC <-chan time.Time
	if spec.timeout > 0 {
		timer := time.NewTimer(spec.timeout)
		defer timer.Stop()
		timeoutC = timer.C
	}
	// Orphans the test leaves while it runs are adopted by miles-ci (the
	// subreaper); their exit statuses are collected now and then, as init
	// would, but never the child's own, which cmd.Wait collects.
	reapTick := time.NewTicker(reapEvery)
	defer reapTick.Stop()
	var res procResult
	for waiting := true; waiting; {
		select {
		case <-waitDone:
			waiting = false
			// Hurry may kill the child before this loop saw ctx
			// cancelled: a child that did not end well after the stop
			// began was stopped by it.
			if ps := cmd.ProcessState; ctx.Err() != nil && (ps == nil || !ps.Success()) {
				res.interrupted = true
			}
		case <-reapTick.C:
			reapOrphans(pgid)
		case <-timeoutC:
			res.timedOut = true
			killGroup(pgid, syscall.SIGKILL)
			res.unkillable = !waitAtMost(waitDone, killWait)
			waiting = false
		case <-ctx.Done():
			res.interrupted = true
			killGroup(pgid, syscall.SIGTERM)
			grace := time.NewTimer(spec.grace)
			select {
			case <-waitDone:
				grace.Stop()
			case <-grace.C:
				killGroup(pgid, syscall.SIGKILL)
				res.unkillable = !waitAtMost(waitDone, killWait)
			case <-hurryC:
				grace.Stop()
				killGroup(pgid, syscall.SIGKILL)
				res.unkillable = !waitAtMost(waitDone, killWait)
			}
			waiting = false
		}
	}
	// Leftovers: servers the test started and did not stop still hold GPU
	// memory and would outlive the run, in the child's process group or
	// out of it (setsid). The sweep waits until they are really gone: the
	// next test must not start, nor miles-ci exit, while they hold a GPU.
	if n := sweep(pgid, 0); n > 0 && spec.errOut != nil {
		fmt.Fprintf(spec.errOut, "warning: %d process(es) left by %s still alive %s after SIGKILL\n", n, spec.argv[0], sweepMax)
	}

	outs.finish()
	if spec.merged && len(outs.copies) > 0 {
		c := outs.copies[0]
		res.endedWithoutNewline = c.n > 0 && c.last != '\n'
	}

	if res.unkillable {
		// cmd.Wait still runs in its goroutine: ProcessState is not ours
		// to read.
		res.exitCode = -1
		return res, nil
	}
	res.exitCode = exitStatus(cmd.ProcessState)
	return res, nil
}

// killWait bounds the wait for a child to exit after SIGKILL. A process
// exits within milliseconds of it unless it is stuck in the kernel (a GPU
// tool blocked in a driver that lost its GPU, in state D), where no signal
// reaches it: then the run goes on without it rather than wait forever.
const killWait = 5 * time.Second

// waitAtMost waits for done for at most d and reports whether it came.
func waitAtMost(done <-chan error, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
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

// childOutput is where a child's stdout and stderr go: straight to a file
// of ours when the child may write to it itself, else into pipes of ours
// whose copiers move the bytes on. os/exec then never copies anything
// itself, so its Wait returns when the child exits, whatever holds the
// pipes; the copiers are stopped, bounded, by finish.
type childOutput struct {
	copies    []*copier
	childEnds []*os.File // the write ends the child gets, ours until it started
}

// attachOutput sets cmd's stdout and stderr as spec says (see procSpec for
// merged, observe and watch).
func attachOutput(cmd *exec.Cmd, spec procSpec) (*childOutput, error) {
	o := &childOutput{}
	attach := func(w io.Writer, observe io.Writer, track bool) (*os.File, error) {
		if f, ok := inheritable(w); ok && observe == nil && !track {
			return f, nil
		}
		r, wf, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		o.childEnds = append(o.childEnds, wf)
		o.copies = append(o.copies, &copier{r: r, dst: w, observe: observe, done: make(chan struct{})})
		return wf, nil
	}
	out, errOut := spec.out, spec.errOut
	_, direct := inheritable(out)
	same := sameFile(out, errOut)
	// One pipe for both streams keeps their order: always when the output
	// is captured, when stdout and stderr are one pipe of ours (2>&1)
	// that the child cannot be given itself, and when they are one file
	// whose output is watched.
	if shared := (!direct || spec.watch != nil) && same; spec.merged || shared {
		observe := spec.observe
		if !spec.merged && spec.watch != nil {
			observe = spec.watch()
		}
		w, err := attach(out, observe, spec.merged)
		if err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = w, w
		return o, nil
	}
	var watchOut, watchErr io.Writer
	if spec.watch != nil {
		watchOut, watchErr = spec.watch(), spec.watch()
	}
	w, err := attach(out, watchOut, false)
	if err != nil {
		return nil, err
	}
	ew, err := attach(errOut, watchErr, false)
	if err != nil {
		o.abort()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, ew
	return o, nil
}

// closeChildEnds closes our copies of the child's write ends.
func (o *childOutput) closeChildEnds() {
	for _, f := range o.childEnds {
		f.Close()
	}
	o.childEnds = nil
}

// abort closes every pipe of a child that did not start.
func (o *childOutput) abort() {
	o.closeChildEnds()
	for _, c := range o.copies {
		c.r.Close()
	}
}

// started starts copying once the child runs. The child has its own
// copies of the write ends; ours must go so the pipe reports EOF when the
// last writer in the child's family exits.
func (o *childOutput) started() {
	o.closeChildEnds()
	for _, c := range o.copies {
		go c.run()
	}
}

// finish stops the copiers once the child is gone (see copier.finish).
func (o *childOutput) finish() {
	for _, c := range o.copies {
		c.finish()
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
