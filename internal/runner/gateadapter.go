package runner

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/radixark/miles-ci/internal/textfmt"
)

//go:embed gate_adapter.py
var gateAdapterScript string

// GateAdapter is the repository's own metric-history gate, driven through
// one Python process per run (gate_adapter.py): started at the first
// passed file with a record, it builds the store and the provenance once,
// then evaluates each passed file as run_suite.py does. Every failure is a
// warning and turns the gate off for the rest of the run; no verdict
// changes.
type GateAdapter struct {
	Python string // the interpreter; it needs the store's driver
	// The repository's functions, each "module:function".
	Hook, Store, Provenance, Registry string
	// Timeout bounds each call (the start, which builds the store, too).
	Timeout time.Duration
	// Backend and Suite select the file's registration, as run_suite.py
	// passes the one it ran.
	Backend, Suite string
}

// gateCloseWait is how long the adapter has to exit after its input
// closes at the end of a run before it is killed.
var gateCloseWait = 5 * time.Second

// gateExitWait is how long an adapter whose answers ended has to exit
// before it is killed: it can answer no more, but a dying one is let to
// say its status.
const gateExitWait = 5 * time.Second

// gateProc is the running adapter. Every descriptor it was given is a
// pipe or file of ours, so os/exec copies nothing and cmd.Wait returns as
// soon as the adapter exits: a process the gate left holding a pipe cannot
// block the run, which stops reading a pipe at its own deadline.
type gateProc struct {
	cmd     *exec.Cmd
	pgid    int
	stdin   *os.File    // our end of its requests
	answerR *os.File    // our end of its answers
	answers chan string // closed when reading answerR stops
	out     *childOutput
	waited  chan struct{} // closed once os/exec has its exit status
}

// gateState is the adapter of one run: not started, running, or off.
type gateState struct {
	proc *gateProc
	off  bool
}

// runGateAdapter evaluates the gate for a passed file through the adapter,
// starting it on first use.
func (r *runState) runGateAdapter(ctx context.Context, res *FileResult) {
	o := &r.opts
	g := &r.gate
	if g.off {
		return
	}
	name := textfmt.OneLine(res.File)
	if g.proc == nil {
		p, err := r.startGateAdapter()
		if err != nil {
			fmt.Fprintf(o.ErrOut, "[CI Gate] gate unavailable (%v); gate disabled.\n", err)
			g.off = true
			return
		}
		g.proc = p
		ans, ok := r.gateCall(ctx, p, nil)
		switch {
		case !ok:
			r.stopGate(fmt.Sprintf("gate unavailable (%s); gate disabled.", ans))
			return
		case ans == "off":
			// The store function said why (run_suite.py's warning).
			r.stopGate("")
			return
		case strings.HasPrefix(ans, "error "):
			r.stopGate(fmt.Sprintf("gate unavailable (%s); gate disabled.", strings.TrimPrefix(ans, "error ")))
			return
		case ans != "ready":
			r.stopGate(fmt.Sprintf("gate unavailable (unexpected answer %q); gate disabled.", ans))
			return
		}
	}
	req, _ := json.Marshal(map[string]any{
		"file": res.File, "record": res.RecordPath, "write_baseline": o.WriteBaseline,
		"backend": o.Gate.Backend, "suite": o.Gate.Suite,
	})
	ans, ok := r.gateCall(ctx, g.proc, append(req, '\n'))
	switch {
	case !ok:
		r.stopGate(fmt.Sprintf("hook failed for %s: %s; gate disabled.", name, ans))
	case strings.HasPrefix(ans, "error "):
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: %s\n", name, textfmt.OneLine(strings.TrimPrefix(ans, "error ")))
	case ans != "done":
		r.stopGate(fmt.Sprintf("hook failed for %s: unexpected answer %q; gate disabled.", name, ans))
	}
}

// gateCall sends the adapter req (none when nil: the start is a call
// whose request was the command line) and waits for its next answer, the
// two together within the gate's timeout; ok is false, with the reason in
// place of the answer, when none came. When the answers end, the adapter
// died or closed its answer pipe: it has gateExitWait (within the same
// timeout) to exit, for the reason to name its status.
func (r *runState) gateCall(ctx context.Context, p *gateProc, req []byte) (string, bool) {
	timeout := r.opts.Gate.Timeout
	deadline := time.Now().Add(timeout)
	t := time.NewTimer(timeout)
	defer t.Stop()
	if req != nil {
		_ = p.stdin.SetWriteDeadline(deadline)
		if _, err := p.stdin.Write(req); errors.Is(err, os.ErrDeadlineExceeded) {
			return fmt.Sprintf("the gate process took no request within %s", timeout), false
		} else if err != nil {
			return fmt.Sprintf("the gate process is gone (%v)", err), false
		}
	}
	select {
	case a, open := <-p.answers:
		if open {
			return a, true
		}
		exit := time.NewTimer(gateExitWait)
		defer exit.Stop()
		select {
		case <-p.waited:
			return fmt.Sprintf("the gate process exited with status %d", exitStatus(p.cmd.ProcessState)), false
		case <-t.C:
		case <-exit.C:
		case <-ctx.Done():
			return "interrupted", false
		}
		return "the gate process closed its answer pipe and kept running", false
	case <-t.C:
		return fmt.Sprintf("no answer after %s", timeout), false
	case <-ctx.Done():
		return "interrupted", false
	}
}

// startGateAdapter starts the adapter in a process group of its own that
// the sweeps after each file spare (see exemptGroups); its output is the
// run's.
func (r *runState) startGateAdapter() (*gateProc, error) {
	o := &r.opts
	names, _ := json.Marshal(map[string]string{
		"hook": o.Gate.Hook, "store": o.Gate.Store, "provenance": o.Gate.Provenance, "registry": o.Gate.Registry,
	})
	python := o.Gate.Python
	if python == "" {
		python = "python3"
	}
	cmd := exec.Command(python, "-c", gateAdapterScript, string(names))
	cmd.Dir = o.Root
	cmd.Env = o.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// Should a descriptor ever be left to os/exec to copy, its Wait still
	// returns this long after the adapter exits.
	cmd.WaitDelay = drainMax
	outs, err := attachOutput(cmd, procSpec{out: o.Out, errOut: o.ErrOut})
	if err != nil {
		return nil, err
	}
	var pipes [4]*os.File // requests: read, write; answers: read, write
	closeAll := func() {
		outs.abort()
		for _, f := range pipes {
			if f != nil {
				f.Close()
			}
		}
	}
	if pipes[0], pipes[1], err = os.Pipe(); err == nil {
		pipes[2], pipes[3], err = os.Pipe()
	}
	if err != nil {
		closeAll()
		return nil, err
	}
	cmd.Stdin = pipes[0]
	cmd.ExtraFiles = []*os.File{pipes[3]}
	prepareChildren()
	start := o.Start
	if start == nil {
		start = (*exec.Cmd).Start
	}
	exemptMu.Lock()
	err = start(cmd)
	if err == nil {
		exemptGroups[cmd.Process.Pid] = true
	}
	exemptMu.Unlock()
	if err != nil {
		closeAll()
		return nil, err
	}
	// The adapter has its own copies of its ends.
	pipes[0].Close()
	pipes[3].Close()
	outs.started()
	p := &gateProc{
		cmd: cmd, pgid: cmd.Process.Pid, stdin: pipes[1], answerR: pipes[2], answers: make(chan string, 1),
		out: outs, waited: make(chan struct{}),
	}
	go func() {
		defer close(p.answers)
		sc := bufio.NewScanner(p.answerR)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			p.answers <- sc.Text()
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.waited)
	}()
	return p, nil
}

// stopGate ends the adapter (see closeGate), prints why the gate is off
// unless why is empty, and keeps it off for the rest of the run.
func (r *runState) stopGate(why string) {
	r.closeGate(0)
	r.gate.off = true
	if why != "" {
		fmt.Fprintf(r.opts.ErrOut, "[CI Gate] %s\n", why)
	}
}

// closeGate ends the adapter, if one runs, within a bound whatever the
// gate did: its input closes and it has wait to exit; then it, its process
// group and every process it started are swept (SIGTERM, then SIGKILL),
// in its session or out of it, and our ends of its pipes stop being read.
// Nothing of the gate outlives the run.
func (r *runState) closeGate(wait time.Duration) {
	p := r.gate.proc
	if p == nil {
		return
	}
	r.gate.proc = nil
	p.stdin.Close()
	t := time.NewTimer(wait)
	select {
	case <-p.waited:
	case <-t.C:
	}
	t.Stop()
	// No longer exempt, the adapter (alive or a zombie os/exec collects)
	// is the sweep's like any other descendant: the sweep finds what it
	// started below it, and on Linux what it orphaned, which the subreaper
	// adopted, in a session of its own or not.
	exemptMu.Lock()
	delete(exemptGroups, p.pgid)
	exemptMu.Unlock()
	if n := sweep(p.pgid, p.cmd.Process.Pid); n > 0 {
		fmt.Fprintf(r.opts.ErrOut, "[CI Gate] warning: %d process(es) of the gate still alive %s after SIGKILL\n", n, sweepMax)
	}
	t = time.NewTimer(sweepMax)
	select {
	case <-p.waited:
	case <-t.C:
	}
	t.Stop()
	// Answers nobody asked for are dropped; a helper still holding the
	// answer pipe no longer keeps its reader waiting.
	_ = p.answerR.SetReadDeadline(time.Now())
	for range p.answers {
	}
	p.answerR.Close()
	p.out.finish()
}
