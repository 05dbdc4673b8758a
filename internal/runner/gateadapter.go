package runner

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
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

// gateProc is the running adapter.
type gateProc struct {
	cmd     *exec.Cmd
	pgid    int
	stdin   io.WriteCloser
	answers chan string // closed when the adapter closes its answer pipe
	waited  chan struct{}
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
		ans, ok := r.gateAnswer(ctx, p)
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
	if _, err := g.proc.stdin.Write(append(req, '\n')); err != nil {
		r.stopGate(fmt.Sprintf("hook failed for %s: the gate process is gone (%v); gate disabled.", name, err))
		return
	}
	ans, ok := r.gateAnswer(ctx, g.proc)
	switch {
	case !ok:
		r.stopGate(fmt.Sprintf("hook failed for %s: %s; gate disabled.", name, ans))
	case strings.HasPrefix(ans, "error "):
		fmt.Fprintf(o.ErrOut, "[CI Gate] hook failed for %s: %s\n", name, textfmt.OneLine(strings.TrimPrefix(ans, "error ")))
	case ans != "done":
		r.stopGate(fmt.Sprintf("hook failed for %s: unexpected answer %q; gate disabled.", name, ans))
	}
}

// gateAnswer waits for the adapter's next answer, at most the gate's
// timeout; ok is false, with the reason in place of the answer, when none
// came.
func (r *runState) gateAnswer(ctx context.Context, p *gateProc) (string, bool) {
	t := time.NewTimer(r.opts.Gate.Timeout)
	defer t.Stop()
	select {
	case a, open := <-p.answers:
		if !open {
			<-p.waited
			return fmt.Sprintf("the gate process exited with status %d", exitStatus(p.cmd.ProcessState)), false
		}
		return a, true
	case <-t.C:
		return fmt.Sprintf("no answer after %s", r.opts.Gate.Timeout), false
	case <-ctx.Done():
		return "interrupted", false
	}
}

// startGateAdapter starts the adapter in a process group of its own that
// the sweeps after each file spare (see exemptGroup); its output is the
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
	cmd.Stdout, cmd.Stderr = o.Out, o.ErrOut
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	ar, aw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.ExtraFiles = []*os.File{aw}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		ar.Close()
		aw.Close()
		return nil, err
	}
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
	aw.Close()
	if err != nil {
		ar.Close()
		stdin.Close()
		return nil, err
	}
	p := &gateProc{cmd: cmd, pgid: cmd.Process.Pid, stdin: stdin, answers: make(chan string, 1), waited: make(chan struct{})}
	go func() {
		defer close(p.answers)
		defer ar.Close()
		sc := bufio.NewScanner(ar)
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

// closeGate ends the adapter, if one runs: its input closes, it has wait
// to exit, then its process group is killed; it never outlives the run.
func (r *runState) closeGate(wait time.Duration) {
	p := r.gate.proc
	if p == nil {
		return
	}
	r.gate.proc = nil
	p.stdin.Close()
	select {
	case <-p.waited:
	case <-time.After(wait):
	}
	killGroup(p.pgid, syscall.SIGKILL)
	<-p.waited
	exemptMu.Lock()
	delete(exemptGroups, p.pgid)
	exemptMu.Unlock()
	// Whatever the adapter started and left in its group goes too.
	sweep(p.pgid, 0)
	for range p.answers {
	}
}
