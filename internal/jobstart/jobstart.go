// Package jobstart tells when the CI job running miles-ci started, so that
// a run's report can measure the job's setup: the time from the job's start
// to its first test, which every shard of a sized suite spends before its
// tests (config.Suite.SetupMinutes).
//
// GitHub Actions gives a job's steps no variable holding that time, and
// the REST API's started_at of the job (GET
// /repos/{owner}/{repo}/actions/jobs/{job_id}, the id being the job
// context's check_run_id) costs a token and a network call. So there are
// two sources, tried in order:
//
//   - Env, MILES_CI_JOB_STARTED, an RFC 3339 time a workflow step exports
//     (`date -u +%Y-%m-%dT%H:%M:%SZ` in the first step, or the API's
//     started_at when the workflow asks for it); it works in any job.
//   - On Linux, the start of the runner's Runner.Worker process, the one
//     the runner starts for each job, found among this process's ancestors
//     in /proc. A container job's steps run inside the container, where the
//     runner's processes are not visible: there this source finds nothing.
//
// Either answer must be a time the job can have started at: not after the
// run (beyond ClockSkew), nor more than report.MaxSetup before it. A year-1
// value would otherwise be logged, and suggested, as a setup of 150
// million minutes.
package jobstart

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// Env is the variable a workflow sets to the job's start.
const Env = "MILES_CI_JOB_STARTED"

// WorkerName is the name (comm) of the process the GitHub Actions runner
// starts for each job it runs.
const WorkerName = "Runner.Worker"

// userHZ is the unit of a process's start time in /proc/PID/stat: the
// kernel reports it in USER_HZ ticks, 100 a second on Linux (the value
// sysconf(_SC_CLK_TCK) returns), whatever the kernel's own tick rate.
const userHZ = 100

// maxAncestors bounds the walk up the process tree; a real one is a few
// levels deep.
const maxAncestors = 64

// maxProcFile bounds a read of a /proc file (/proc/stat grows with the
// CPUs, a few KiB each).
const maxProcFile = 4 << 20

// Start is when the job started and what said so.
type Start struct {
	Time time.Time
	// From names the source: Env, or the Runner.Worker process and its id.
	From string
}

// Source is where Find looks for the job's start.
type Source struct {
	Getenv func(string) string
	// Proc is the root of the proc file system ("/proc"); "" looks at no
	// process (tests, and a run that must not read the machine).
	Proc string
	// PID is the process whose ancestors are searched; 0 is this one.
	PID int
	// Now is the run's start, which a job's start must be plausible
	// against (see plausible); nil is time.Now.
	Now func() time.Time
}

// ClockSkew is how far after the run's start a job's start may be: the
// clock of the step that stamped MILES_CI_JOB_STARTED (or of the runner)
// may run a little ahead of this one's.
const ClockSkew = 5 * time.Minute

// shownMax is how many characters of a value a warning shows.
const shownMax = 64

// Find returns when the job started and whether it could tell. Env wins
// when it is set; a value that is not an RFC 3339 time, or a time no job
// of this run can have started at (see plausible), is returned as the
// error, a warning for the caller to print, and the process tree is
// looked at instead, its answer held to the same bounds.
func (s Source) Find() (Start, bool, error) {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	var warning error
	if s.Getenv != nil {
		if v := s.Getenv(Env); v != "" {
			t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
			why := "not an RFC 3339 time such as 2026-12-02T08:23:59Z"
			if err == nil {
				if why = plausible(t, now()); why == "" {
					return Start{Time: t, From: Env}, true, nil
				}
			}
			warning = fmt.Errorf("%s is %s, %s; the job's start is not taken from it", Env, shown(v), why)
		}
	}
	if s.Proc == "" {
		return Start{}, false, warning
	}
	st, ok := s.worker()
	if !ok {
		return Start{}, false, warning
	}
	if why := plausible(st.Time, now()); why != "" {
		// The worker's start, read from /proc, is no value of anyone's;
		// a warning already given for the variable stays the one shown.
		if warning == nil {
			warning = fmt.Errorf("the %s started at %s, %s; the job's start is not taken from it", st.From, report.Stamp(st.Time), why)
		}
		return Start{}, false, warning
	}
	return st, true, warning
}

// plausible says why start cannot be the start of the job running a run
// that started at run, or "" when it can be: the job started before the
// run (up to ClockSkew after it: clocks differ), by at most
// report.MaxSetup, the longest setup a job is taken to have had.
func plausible(start, run time.Time) string {
	switch {
	case start.After(run.Add(ClockSkew)):
		return fmt.Sprintf("more than %g minutes after this run started (%s)", ClockSkew.Minutes(), report.Stamp(run))
	case start.Before(run.Add(-report.MaxSetup)):
		return fmt.Sprintf("more than %g hours before this run started (%s)", report.MaxSetup.Hours(), report.Stamp(run))
	}
	return ""
}

// shown is a value as a warning shows it: Go-quoted, so that a control
// byte is an escape and the warning one line, and at most shownMax
// characters of it (textfmt.Cut), the length in bytes said after a cut,
// so that a 100 kB value costs no 100 kB warning.
func shown(v string) string {
	cut := textfmt.Cut(v, shownMax)
	if cut == v {
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(strings.TrimSuffix(cut, "…")), len(v))
}

// worker finds the Runner.Worker among the ancestors of s.PID and returns
// its start.
func (s Source) worker() (Start, bool) {
	pid := s.PID
	if pid == 0 {
		pid = os.Getpid()
	}
	for range maxAncestors {
		comm, ppid, ticks, err := readStat(filepath.Join(s.Proc, strconv.Itoa(pid), "stat"))
		if err != nil {
			return Start{}, false
		}
		if comm == WorkerName {
			boot, err := bootTime(s.Proc)
			if err != nil {
				return Start{}, false
			}
			t := boot.Add(time.Duration(ticks) * (time.Second / userHZ))
			return Start{Time: t, From: fmt.Sprintf("%s process %d", WorkerName, pid)}, true
		}
		if ppid <= 0 || ppid == pid {
			return Start{}, false
		}
		pid = ppid
	}
	return Start{}, false
}

// readStat reads a process's name, parent and start time (in USER_HZ ticks
// after boot) from its /proc/PID/stat line: "pid (comm) state ppid ..."
// with the start time the 22nd field. The name may hold spaces and
// parentheses, so it ends at the last ')'.
func readStat(path string) (comm string, ppid int, ticks uint64, err error) {
	data, err := readSmall(path)
	if err != nil {
		return "", 0, 0, err
	}
	open, end := bytes.IndexByte(data, '('), bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return "", 0, 0, fmt.Errorf("%s: no process name", path)
	}
	comm = string(data[open+1 : end])
	// Fields from the 3rd (state) on: the 4th is the parent, the 22nd the
	// start time.
	rest := strings.Fields(string(data[end+1:]))
	if len(rest) < 20 {
		return "", 0, 0, fmt.Errorf("%s: %d fields after the name, expected at least 20", path, len(rest))
	}
	if ppid, err = strconv.Atoi(rest[1]); err != nil {
		return "", 0, 0, fmt.Errorf("%s: parent %q: %w", path, rest[1], err)
	}
	if ticks, err = strconv.ParseUint(rest[19], 10, 64); err != nil {
		return "", 0, 0, fmt.Errorf("%s: start time %q: %w", path, rest[19], err)
	}
	return comm, ppid, ticks, nil
}

// bootTime reads when the machine booted, the btime line of /proc/stat (in
// whole seconds: a start found from it is good to the second).
func bootTime(proc string) (time.Time, error) {
	path := filepath.Join(proc, "stat")
	data, err := readSmall(path)
	if err != nil {
		return time.Time{}, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("%s: btime %q: %w", path, v, err)
			}
			return time.Unix(secs, 0), nil
		}
	}
	return time.Time{}, fmt.Errorf("%s: no btime line", path)
}

// readSmall reads at most maxProcFile bytes of a file; /proc files have
// no size to check beforehand.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxProcFile))
}
