package runner

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// How the processes a file leaves behind are ended: SIGTERM, up to
// sweepGrace to exit, then SIGKILL, and up to sweepMax more until none is
// alive. A process stuck in the kernel (uninterruptible sleep) can outlast
// SIGKILL for a while; the run goes on then, with a warning, rather than
// hang.
var (
	sweepGrace = 1 * time.Second
	sweepMax   = 5 * time.Second
)

// sweepPoll is how often a sweep looks whether its targets are gone.
const sweepPoll = 5 * time.Millisecond

var (
	subreaperOnce sync.Once
	// started is set once a child was started, so that the sweep on exit
	// reads the process table only when there can be something to find.
	started atomic.Bool
)

// exemptGroups holds the process groups that the sweeps after each file
// spare: the gate adapter's, which lives as long as the run and ends it
// itself (closeGate). KillLeftovers spares nothing.
var (
	exemptMu     sync.Mutex
	exemptGroups = map[int]bool{}
)

// prepareChildren is called before a child starts: miles-ci becomes the
// child subreaper of its descendants (where the system has one), once.
func prepareChildren() {
	subreaperOnce.Do(func() { becomeSubreaper() })
	started.Store(true)
}

// procEntry is one process of the process table.
type procEntry struct {
	pid, ppid, pgid int
	zombie          bool // exited (or dying), holding nothing but its pid
}

// readProcTable lists every process from /proc; ok is false on systems
// without it.
func readProcTable() (procs []procEntry, ok bool) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	for _, e := range entries {
		name := e.Name()
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // exited since the directory was read
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and
		// parentheses, so read the fields after its last ')'.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 {
			continue
		}
		pid, err1 := strconv.Atoi(name)
		ppid, err2 := strconv.Atoi(f[1])
		pgid, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		procs = append(procs, procEntry{pid: pid, ppid: ppid, pgid: pgid, zombie: f[0] == "Z" || f[0] == "X"})
	}
	return procs, true
}

// leftovers returns the live processes that a sweep of process group pgid
// (0: none) must end: the group's members and every descendant of miles-ci.
// On the way it reaps the zombies that are miles-ci's children (orphans it
// adopted as subreaper), except the one with pid except, whose status
// os/exec still has to collect. known is false without a process table.
func leftovers(pgid, except int) (pids []int, known bool) {
	table, ok := readProcTable()
	if !ok {
		return nil, false
	}
	self := os.Getpid()
	children := map[int][]procEntry{}
	exemptMu.Lock()
	defer exemptMu.Unlock()
	for _, p := range table {
		if exemptGroups[p.pgid] || exemptGroups[p.pid] {
			// Neither ended nor reaped: os/exec collects the adapter.
			continue
		}
		children[p.ppid] = append(children[p.ppid], p)
		if p.zombie && p.ppid == self && p.pid != except {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		}
	}
	seen := map[int]bool{self: true}
	add := func(p procEntry) {
		if !seen[p.pid] {
			seen[p.pid] = true
			if !p.zombie {
				pids = append(pids, p.pid)
			}
		}
	}
	// Descendants, breadth first.
	for queue := []int{self}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			if !seen[c.pid] {
				queue = append(queue, c.pid)
			}
			add(c)
		}
	}
	if pgid > 0 {
		for _, p := range table {
			if p.pgid == pgid {
				add(p)
			}
		}
	}
	return pids, true
}

// reapOrphans collects the exit status of adopted orphans that have died,
// so they do not pile up as zombies while a long test runs; init would have
// done it without the subreaper.
func reapOrphans(except int) { _, _ = leftovers(0, except) }

// sweep ends what a finished child left behind: the rest of its process
// group pgid, and every descendant of miles-ci, which with the subreaper
// includes a daemon that double-forked and called setsid out of the group.
// They get SIGTERM, sweepGrace to exit, then SIGKILL; sweep returns once
// none is alive (zombies hold nothing and count as gone) or after sweepMax,
// with the number still alive then. Without /proc only the group is
// reached. A pid may in theory be reused between the listing and the
// signal; the window is a few microseconds per process. The zombie of
// process except (0: none) is left for os/exec to collect: its Wait may
// still be pending.
func sweep(pgid, except int) (survivors int) {
	alive := func() ([]int, bool) {
		pids, known := leftovers(pgid, except)
		if !known {
			// Only the group is known: a zombie member keeps it existing,
			// so this errs on the side of waiting (bounded below).
			return nil, pgid > 0 && syscall.Kill(-pgid, 0) == nil
		}
		return pids, len(pids) > 0
	}
	signal := func(pids []int, sig syscall.Signal) {
		killGroup(pgid, sig)
		for _, p := range pids {
			_ = syscall.Kill(p, sig)
		}
	}
	pids, any := alive()
	if !any {
		return 0
	}
	signal(pids, syscall.SIGTERM)
	deadline := time.Now().Add(sweepGrace)
	for any && time.Now().Before(deadline) && !hurried() {
		time.Sleep(sweepPoll)
		pids, any = alive()
	}
	// Whatever appeared or stayed is killed, again on every look: a
	// process may fork while its siblings die.
	deadline = time.Now().Add(sweepMax)
	for any {
		signal(pids, syscall.SIGKILL)
		if !time.Now().Before(deadline) {
			return max(len(pids), 1)
		}
		time.Sleep(sweepPoll)
		pids, any = alive()
	}
	return 0
}

// hurryC is closed by Hurry: a run that is stopping gives no more grace.
var (
	hurryOnce sync.Once
	hurryC    = make(chan struct{})
)

// hurried reports whether Hurry was called.
func hurried() bool {
	select {
	case <-hurryC:
		return true
	default:
		return false
	}
}

// Hurry cuts the grace of a run that is stopping (its context cancelled):
// every descendant of miles-ci gets SIGKILL now, and from now on a child
// or a sweep that would wait for SIGTERM to be answered kills at once. It
// returns at once and reaps nothing (the running child's status is
// os/exec's to collect): the run goes on to its summary and reports, as
// after one signal, only sooner.
func Hurry() {
	hurryOnce.Do(func() { close(hurryC) })
	if !started.Load() {
		return
	}
	table, ok := readProcTable()
	if !ok {
		return // runProc kills the running child's group itself
	}
	children := map[int][]int{}
	for _, p := range table {
		if !p.zombie {
			children[p.ppid] = append(children[p.ppid], p.pid)
		}
	}
	for queue := []int{os.Getpid()}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			_ = syscall.Kill(c, syscall.SIGKILL)
			queue = append(queue, c)
		}
	}
}

// KillLeftovers ends, with SIGKILL and at once, every descendant of
// miles-ci still alive, and waits (up to sweepMax) until none is. It is
// called when miles-ci exits, also when a hurried stop (see Hurry) ran out
// of time; it does nothing when no child was ever started.
func KillLeftovers() {
	if !started.Load() {
		return
	}
	exemptMu.Lock()
	clear(exemptGroups)
	exemptMu.Unlock()
	deadline := time.Now().Add(sweepMax)
	for {
		pids, known := leftovers(0, 0)
		if !known || len(pids) == 0 || !time.Now().Before(deadline) {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(sweepPoll)
	}
}
