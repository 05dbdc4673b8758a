// Package hostcheck finds the hosts to blame for failures seen across many
// runs: it takes the attempts of many jobs as rows, counts per host what
// ran, passed and failed there, finds the failures that another host
// contradicted at the same commit, and gives the verdict of which hosts
// are suspect and why. It decides only: the rows come from the edge (run
// reports in a directory, or a database of run history) and package view
// renders the result.
//
// Memory is that of the answer, not of the input: one job's files at a
// time, a line per job, a counter set per host, and per (commit, file)
// the hosts it passed and failed on.
package hostcheck

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/report"
)

// Host is where a job ran, as the job's environment named it.
type Host struct {
	// Runner is the GitHub runner's name (RUNNER_NAME), "" when the job
	// ran outside GitHub Actions.
	Runner string
	// Hostname is the machine's (or the container's) host name.
	Hostname string
}

// Key is the identity a host is counted under: the runner name, else
// the hostname. A job container gets a new random hostname each run, so
// the runner name is the only one that stays put; a hostname stands in
// only where no runner is named.
func (h Host) Key() string {
	if h.Runner != "" {
		return h.Runner
	}
	return h.Hostname
}

// Job identifies one job's run of one suite (or shard of one): the rows of
// a report, or of a run in the history. Two reports with the same Job are
// the same run, downloaded twice, and count once.
type Job struct {
	Repository string
	RunID      string
	RunAttempt string
	// Name is the workflow job (GITHUB_JOB).
	Name  string
	Suite string
	// Partition is the shard, "ID/SIZE" (0-based id), or "" for the whole
	// suite.
	Partition string
	// Started is when the run began (a report's "started", "" in one
	// written before reports said): one job that runs a suite twice ran
	// two jobs' worth, and two copies of one report still count once.
	Started string
	// Source tells apart jobs that have no RunID (runs outside GitHub
	// Actions): the report's path, or the history's row id. It is "" when
	// RunID is set, so the same job read from two copies is one.
	Source string
}

// Row is one attempt of one file in one job, with everything the analysis
// needs to place it: the rows of one job come one after another, in any
// order within the job.
type Row struct {
	Host Host
	Job  Job
	// SHA is the commit the job tested ("" when unknown: such a job's
	// failures are never compared with another host's).
	SHA string
	// HostNotReady is set on a row of a job whose GPU preflight found the
	// host not ready and stopped the run: on every row of it (a report's)
	// or on one (the history's stop row); one is enough.
	HostNotReady bool
	// File is the test file; "" for the one row of a job that listed no
	// file.
	File string
	// Attempt is 1-based; 0 for a file the job listed but never ran (its
	// Status is NOT RUN).
	Attempt int
	Status  report.Status
	// Cause is why a failed attempt failed (report.CauseTest, CauseTimeout,
	// CauseInfra), "" otherwise or when the run did not say.
	Cause report.Cause
	// Fingerprint names the infra fingerprint that matched, for
	// CauseInfra.
	Fingerprint string
}

// DefaultMinContradicted is how many contradicted failures make a host
// suspect: one is what any flaky test makes.
const DefaultMinContradicted = 2

// Analyzer takes rows and gives the Result. The zero value is not ready;
// use New.
type Analyzer struct {
	minContradicted int

	jobs  map[Job]bool // every job started, for duplicates
	cur   *jobState    // the job whose rows are coming in; nil before the first
	skip  bool         // the current job is a duplicate
	dups  int
	hosts map[string]*hostState
	// files holds, per commit and file, the hosts it passed and failed on.
	files map[shaFile]*fileHosts
	done  []JobResult
}

type shaFile struct{ sha, file string }

// fileHosts are the distinct hosts a file passed and failed on at one
// commit: most often one or two, so a short list costs a fraction of a
// set (a history of 10,000 jobs and 100,000 commit-file pairs took 270
// MB with two maps each).
type fileHosts struct {
	passed, failed []string
}

func addHost(list []string, h string) []string {
	if slices.Contains(list, h) {
		return list
	}
	return append(list, h)
}

type hostState struct {
	runner    string
	hostnames []string // distinct, the least maxHostnames, sorted
	more      bool     // more hostnames than kept
	counts    Counts
	prints    map[string]int
}

// maxHostnames bounds the hostnames kept per host: a runner whose jobs run
// in containers has a new one per job.
const maxHostnames = 3

type jobState struct {
	job          Job
	host         Host
	sha          string
	hostNotReady bool
	files        map[string]fileState
	order        []string
	prints       map[string]int
	infra        int
}

type fileState struct {
	attempt int
	status  report.Status
}

// New returns an Analyzer whose verdict calls a host suspect at
// minContradicted contradicted failures (at least 1).
func New(minContradicted int) *Analyzer {
	return &Analyzer{minContradicted: max(minContradicted, 1), jobs: map[Job]bool{},
		hosts: map[string]*hostState{}, files: map[shaFile]*fileHosts{}}
}

// Has reports whether the rows of job have been added already (a later
// report of it is a duplicate, and Add skips its rows).
func (a *Analyzer) Has(job Job) bool { return a.jobs[job] }

// Add takes one row. The rows of a job must come together: a row of a job
// seen before, after another job's, starts a duplicate, which is skipped
// and counted in Result.Duplicates.
func (a *Analyzer) Add(r Row) {
	if a.cur == nil || r.Job != a.cur.job {
		a.flush()
		a.cur = &jobState{job: r.Job, host: r.Host, sha: r.SHA, hostNotReady: r.HostNotReady,
			files: map[string]fileState{}, prints: map[string]int{}}
		a.skip = a.jobs[r.Job]
		if a.skip {
			a.dups++
			return
		}
		a.jobs[r.Job] = true
	}
	if a.skip {
		return
	}
	j := a.cur
	j.hostNotReady = j.hostNotReady || r.HostNotReady
	if r.File == "" {
		return
	}
	if f, ok := j.files[r.File]; !ok {
		j.order = append(j.order, r.File)
		j.files[r.File] = fileState{attempt: r.Attempt, status: r.Status}
	} else if r.Attempt > f.attempt {
		j.files[r.File] = fileState{attempt: r.Attempt, status: r.Status}
	}
	if r.Attempt > 0 && r.Status.Failed() && r.Cause == report.CauseInfra {
		j.infra++
		j.prints[fingerprintName(r.Fingerprint)]++
	}
	if r.SHA == "" || r.Attempt == 0 || !(r.Status == report.Pass || r.Status.Failed()) {
		return
	}
	k := shaFile{r.SHA, r.File}
	fh := a.files[k]
	if fh == nil {
		fh = &fileHosts{}
		a.files[k] = fh
	}
	if r.Status == report.Pass {
		fh.passed = addHost(fh.passed, r.Host.Key())
	} else {
		fh.failed = addHost(fh.failed, r.Host.Key())
	}
}

// fingerprintName is how an infra failure whose fingerprint the run did
// not name is counted.
func fingerprintName(s string) string {
	if s == "" {
		return "infra"
	}
	return s
}

// flush counts the job whose rows have all come.
func (a *Analyzer) flush() {
	j := a.cur
	if j == nil || a.skip {
		return
	}
	a.cur = nil
	res := JobResult{Job: j.job, Host: j.host, SHA: j.sha, HostNotReady: j.hostNotReady,
		Infra: j.infra, Fingerprints: j.prints}
	for _, name := range j.order {
		f := j.files[name]
		res.Files++
		switch {
		case f.attempt == 0:
			res.NotRun++
		case f.status == report.Pass:
			res.Run++
			res.Passed++
		case f.status.Failed():
			res.Run++
			res.Failed++
		default:
			res.Run++
		}
	}
	a.done = append(a.done, res)

	key := j.host.Key()
	h := a.hosts[key]
	if h == nil {
		h = &hostState{runner: j.host.Runner, prints: map[string]int{}}
		a.hosts[key] = h
	}
	if name := j.host.Hostname; name != "" && !contains(h.hostnames, name) {
		// The least names in byte order, not the first seen: the answer
		// stays the same whatever order the jobs come in (a directory's
		// paths, a database's index).
		h.hostnames = append(h.hostnames, name)
		sort.Strings(h.hostnames)
		if len(h.hostnames) > maxHostnames {
			h.hostnames = h.hostnames[:maxHostnames]
			h.more = true
		}
	}
	c := &h.counts
	c.Jobs++
	c.FilesRun += res.Run
	c.Passed += res.Passed
	c.Failed += res.Failed
	c.Infra += res.Infra
	if j.hostNotReady {
		c.NotReady++
	}
	for p, n := range j.prints {
		h.prints[p] += n
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Counts are what happened on one host.
type Counts struct {
	// Jobs is the distinct jobs that ran there.
	Jobs int
	// FilesRun counts, over its jobs, the files that had an attempt;
	// Passed and Failed those whose last attempt passed, or failed (FAIL
	// or TIMEOUT).
	FilesRun int
	Passed   int
	Failed   int
	// Infra is the attempts that failed with cause infra.
	Infra int
	// NotReady is the jobs that a GPU preflight stopped (host not ready).
	NotReady int
	// Contradicted is the contradicted failures: the (commit, file) pairs
	// that failed on this host (in any attempt), passed on another host
	// at that commit, and failed on no other host at that commit.
	Contradicted int
}

// JobResult is one job's line of the table.
type JobResult struct {
	Job          Job
	Host         Host
	SHA          string
	HostNotReady bool
	// Files is the files the job listed; Run those that had an attempt,
	// NotRun those that had none, Passed and Failed by the last attempt.
	Files, Run, NotRun, Passed, Failed int
	// Infra is the attempts that failed with cause infra, Fingerprints
	// their count per fingerprint.
	Infra        int
	Fingerprints map[string]int
}

// HostResult is one host's line of the table, and its part of the verdict.
type HostResult struct {
	// Key is the host's identity (Host.Key), Runner its runner name ("" for
	// a host known by hostname only), Hostnames the distinct hostnames
	// its jobs saw (the least maxHostnames in byte order, More when there
	// were others).
	Key       string
	Runner    string
	Hostnames []string
	More      bool
	Counts
	// Fingerprints counts its infra failures per fingerprint.
	Fingerprints map[string]int
	// PassedOn names the hosts where its contradicted failures passed.
	PassedOn []string
	// Suspect is the verdict, Evidence why (empty when not suspect).
	Suspect  bool
	Evidence []string
}

// Result is the analysis of every row added.
type Result struct {
	// MinContradicted is the verdict's threshold.
	MinContradicted int
	// Jobs in the order of their run: repository, run id (numerically),
	// attempt, suite, shard, job name, host.
	Jobs []JobResult
	// Hosts ordered by key.
	Hosts []HostResult
	// Suspects are the keys of the suspect hosts, in order.
	Suspects []string
	// Duplicates is the jobs whose rows came again after another job's,
	// and were counted once.
	Duplicates int
}

// Result counts the last job and gives the analysis of every row added.
func (a *Analyzer) Result() *Result {
	a.flush()
	contradicted := map[string]int{}
	passedOn := map[string]map[string]bool{}
	for _, fh := range a.files {
		if len(fh.failed) != 1 {
			continue
		}
		h := fh.failed[0]
		for _, p := range fh.passed {
			if p == h {
				continue
			}
			if passedOn[h] == nil {
				passedOn[h] = map[string]bool{}
			}
			passedOn[h][p] = true
		}
		others := len(fh.passed)
		if slices.Contains(fh.passed, h) {
			others--
		}
		if others > 0 {
			contradicted[h]++
		}
	}
	res := &Result{MinContradicted: a.minContradicted, Jobs: a.done, Duplicates: a.dups}
	sort.SliceStable(res.Jobs, func(i, j int) bool { return jobLess(res.Jobs[i], res.Jobs[j]) })
	for key, h := range a.hosts {
		hr := HostResult{Key: key, Runner: h.runner, Hostnames: h.hostnames, More: h.more,
			Counts: h.counts, Fingerprints: h.prints}
		sort.Strings(hr.Hostnames)
		hr.Contradicted = contradicted[key]
		for p := range passedOn[key] {
			hr.PassedOn = append(hr.PassedOn, p)
		}
		sort.Strings(hr.PassedOn)
		hr.Evidence = evidence(&hr, a.minContradicted)
		hr.Suspect = len(hr.Evidence) > 0
		res.Hosts = append(res.Hosts, hr)
	}
	sort.Slice(res.Hosts, func(i, j int) bool { return res.Hosts[i].Key < res.Hosts[j].Key })
	for _, h := range res.Hosts {
		if h.Suspect {
			res.Suspects = append(res.Suspects, h.Key)
		}
	}
	return res
}

// evidence is why h is suspect, one clause per rule it meets, or nothing:
// a host is suspect when an attempt there failed with cause infra, when a
// GPU preflight found it not ready, or when it has at least min
// contradicted failures.
func evidence(h *HostResult, min int) []string {
	var out []string
	if h.Infra > 0 {
		out = append(out, count(h.Infra, "infra failure")+" ("+FingerprintList(h.Fingerprints)+")")
	}
	if h.NotReady > 0 {
		out = append(out, count(h.NotReady, "job")+" stopped by the GPU preflight: host not ready")
	}
	if h.Contradicted >= min {
		out = append(out, count(h.Contradicted, "failed file")+" passed on "+strings.Join(h.PassedOn, ", ")+" at the same commit")
	}
	return out
}

// FingerprintList writes fingerprint counts as "cuda-802 ×12, nccl ×1",
// the most frequent first, ties by name.
func FingerprintList(prints map[string]int) string {
	names := make([]string, 0, len(prints))
	for n := range prints {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if prints[names[i]] != prints[names[j]] {
			return prints[names[i]] > prints[names[j]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " ×" + strconv.Itoa(prints[n])
	}
	return strings.Join(parts, ", ")
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// jobLess orders jobs as a reader of runs expects: by repository, run id
// (a number: shorter first), run attempt, suite, shard, job name, then
// where they ran and what they were read from.
func jobLess(a, b JobResult) bool {
	x, y := a.Job, b.Job
	switch {
	case x.Repository != y.Repository:
		return x.Repository < y.Repository
	case x.RunID != y.RunID:
		return numLess(x.RunID, y.RunID)
	case x.RunAttempt != y.RunAttempt:
		return numLess(x.RunAttempt, y.RunAttempt)
	case x.Suite != y.Suite:
		return x.Suite < y.Suite
	case x.Partition != y.Partition:
		return numLess(x.Partition, y.Partition)
	case x.Name != y.Name:
		return x.Name < y.Name
	case a.Host.Key() != b.Host.Key():
		return a.Host.Key() < b.Host.Key()
	}
	return x.Source < y.Source
}

// numLess orders decimal numbers written without leading zeros; other
// text falls back to its bytes.
func numLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}
