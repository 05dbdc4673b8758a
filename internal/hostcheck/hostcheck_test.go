package hostcheck

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// att is one attempt of a file: its number, status and cause.
type att struct {
	n      int
	status report.Status
	cause  report.Cause
	print  string
}

var (
	pass  = att{1, report.Pass, "", ""}
	fail  = att{1, report.Fail, report.CauseTest, ""}
	infra = att{1, report.Fail, report.CauseInfra, "cuda-802"}
)

func (a att) nth(n int) att { a.n = n; return a }

// job adds the rows of one job of run on runner at sha: files maps a file
// to its attempts (none: listed, never ran).
func job(a *Analyzer, run, runner, sha string, files map[string][]att) {
	j := Job{Repository: "o/r", RunID: run, RunAttempt: "1", Name: "gpu", Suite: "s", Partition: "0/1"}
	h := Host{Runner: runner, Hostname: "ct-" + run}
	for name, atts := range files {
		if len(atts) == 0 {
			a.Add(Row{Host: h, Job: j, SHA: sha, File: name, Status: report.NotRun})
		}
		for _, x := range atts {
			a.Add(Row{Host: h, Job: j, SHA: sha, File: name, Attempt: x.n, Status: x.status, Cause: x.cause, Fingerprint: x.print})
		}
	}
}

func host(t *testing.T, res *Result, key string) HostResult {
	t.Helper()
	for _, h := range res.Hosts {
		if h.Key == key {
			return h
		}
	}
	require.Failf(t, "no such host", "%q not in %+v", key, res.Hosts)
	return HostResult{}
}

func TestVerdict_TwoContradictedFailuresMakeASuspectOneDoesNot(t *testing.T) {
	a := New(DefaultMinContradicted)
	job(a, "1", "h2", "c1", map[string][]att{"a.py": {fail}, "b.py": {pass}})
	job(a, "2", "h4", "c1", map[string][]att{"a.py": {pass}, "b.py": {pass}})
	job(a, "3", "h3", "c1", map[string][]att{"x.py": {fail}, "y.py": {fail}})
	job(a, "4", "h4", "c1", map[string][]att{"x.py": {pass}, "y.py": {pass}})
	res := a.Result()
	assert.Equal(t, []string{"h3"}, res.Suspects)
	h2 := host(t, res, "h2")
	assert.Equal(t, 1, h2.Contradicted)
	assert.False(t, h2.Suspect, "one contradicted failure is what a flaky test makes")
	assert.Empty(t, h2.Evidence)
	h3 := host(t, res, "h3")
	assert.Equal(t, 2, h3.Contradicted)
	assert.Equal(t, []string{"2 failed files passed on h4 at the same commit"}, h3.Evidence)
	assert.Equal(t, []string{"h4"}, h3.PassedOn)

	// The threshold tunes it.
	a = New(1)
	job(a, "1", "h2", "c1", map[string][]att{"a.py": {fail}})
	job(a, "2", "h4", "c1", map[string][]att{"a.py": {pass}})
	assert.Equal(t, []string{"h2"}, a.Result().Suspects)
	a = New(3)
	job(a, "3", "h3", "c1", map[string][]att{"x.py": {fail}, "y.py": {fail}})
	job(a, "4", "h4", "c1", map[string][]att{"x.py": {pass}, "y.py": {pass}})
	assert.Empty(t, a.Result().Suspects)
}

func TestContradicted_OnlyAtTheSameCommitAndOnlyWhenNoOtherHostFailed(t *testing.T) {
	a := New(1)
	// a.py failed on h2 and h3 at c1, passed on h4: failing, not a host's.
	job(a, "1", "h2", "c1", map[string][]att{"a.py": {fail}, "b.py": {fail}, "c.py": {fail}})
	job(a, "2", "h3", "c1", map[string][]att{"a.py": {fail}})
	job(a, "3", "h4", "c1", map[string][]att{"a.py": {pass}})
	// b.py passed on h4, but at another commit.
	job(a, "4", "h4", "c2", map[string][]att{"b.py": {pass}})
	// c.py passed only on h2 itself, in a later job.
	job(a, "5", "h2", "c1", map[string][]att{"c.py": {pass}})
	// Without a commit nothing can be compared.
	job(a, "6", "h5", "", map[string][]att{"d.py": {fail}})
	job(a, "7", "h4", "", map[string][]att{"d.py": {pass}})
	res := a.Result()
	for _, h := range res.Hosts {
		assert.Zero(t, h.Contradicted, h.Key)
	}
	assert.Empty(t, res.Suspects)
}

func TestContradicted_CountsAFileOncePerCommitHoweverOftenItFailed(t *testing.T) {
	a := New(DefaultMinContradicted)
	// Three failed attempts of one file on h2, then it passed on h4: one
	// piece of evidence, not three.
	job(a, "1", "h2", "c1", map[string][]att{"a.py": {fail, fail.nth(2), fail.nth(3)}})
	job(a, "2", "h4", "c1", map[string][]att{"a.py": {pass}})
	// Flaky on h3 (failed, then passed there) and passed on h4: one.
	job(a, "3", "h3", "c1", map[string][]att{"b.py": {fail, pass.nth(2)}})
	job(a, "4", "h4", "c1", map[string][]att{"b.py": {pass}})
	res := a.Result()
	assert.Equal(t, 1, host(t, res, "h2").Contradicted)
	assert.Equal(t, 1, host(t, res, "h3").Contradicted)
	assert.Empty(t, res.Suspects)
	h3 := host(t, res, "h3")
	assert.Equal(t, Counts{Jobs: 1, FilesRun: 1, Passed: 1, Contradicted: 1}, h3.Counts, "the last attempt decides passed or failed")
}

func TestVerdict_OneInfraFailureOrAHostNotReadyIsEnough(t *testing.T) {
	a := New(DefaultMinContradicted)
	job(a, "1", "h2", "c1", map[string][]att{"a.py": {infra}, "b.py": {}})
	job(a, "2", "h4", "c1", map[string][]att{"a.py": {pass}, "b.py": {pass}})
	j := Job{RunID: "3", Suite: "s"}
	a.Add(Row{Host: Host{Runner: "h5"}, Job: j, SHA: "c1", HostNotReady: true, File: "a.py", Status: report.NotRun})
	res := a.Result()
	assert.Equal(t, []string{"h2", "h5"}, res.Suspects)
	h2 := host(t, res, "h2")
	assert.Equal(t, []string{"1 infra failure (cuda-802 ×1)"}, h2.Evidence, "one contradicted failure adds nothing")
	assert.Equal(t, Counts{Jobs: 1, FilesRun: 1, Failed: 1, Infra: 1, Contradicted: 1}, h2.Counts)
	assert.Equal(t, []string{"1 job stopped by the GPU preflight: host not ready"}, host(t, res, "h5").Evidence)
	assert.Equal(t, JobResult{Job: Job{Repository: "o/r", RunID: "1", RunAttempt: "1", Name: "gpu", Suite: "s", Partition: "0/1"},
		Host: Host{Runner: "h2", Hostname: "ct-1"}, SHA: "c1", Files: 2, Run: 1, NotRun: 1, Failed: 1, Infra: 1,
		Fingerprints: map[string]int{"cuda-802": 1}}, res.Jobs[1], "the job without a repository comes first")
}

func TestAnalyzer_AJobReadTwiceCountsOnce(t *testing.T) {
	a := New(DefaultMinContradicted)
	files := map[string][]att{"a.py": {fail}, "b.py": {fail}}
	job(a, "1", "h2", "c1", files)
	job(a, "2", "h4", "c1", map[string][]att{"a.py": {pass}, "b.py": {pass}})
	require.True(t, a.Has(Job{Repository: "o/r", RunID: "1", RunAttempt: "1", Name: "gpu", Suite: "s", Partition: "0/1"}))
	job(a, "1", "h2", "c1", files)
	res := a.Result()
	assert.Equal(t, 1, res.Duplicates)
	assert.Len(t, res.Jobs, 2)
	assert.Equal(t, 1, host(t, res, "h2").Jobs)
	assert.Equal(t, 2, host(t, res, "h2").FilesRun)
}

func TestHost_KeyIsTheRunnerElseTheHostname(t *testing.T) {
	assert.Equal(t, "novita-host2", Host{Runner: "novita-host2", Hostname: "3f2a9c"}.Key())
	assert.Equal(t, "gpu-box", Host{Hostname: "gpu-box"}.Key())

	a := New(DefaultMinContradicted)
	for i, name := range []string{"c5", "c1", "c4", "c3", "c1"} {
		a.Add(Row{Host: Host{Runner: "r", Hostname: name}, Job: Job{RunID: string(rune('1' + i))}, File: "a.py", Attempt: 1, Status: report.Pass})
	}
	h := a.Result().Hosts[0]
	assert.Equal(t, []string{"c1", "c3", "c4"}, h.Hostnames, "the least three distinct, whatever order the jobs came in")
	assert.True(t, h.More)
}

func TestResult_JobsInRunOrder(t *testing.T) {
	a := New(DefaultMinContradicted)
	for _, run := range []string{"100", "99", "1000"} {
		job(a, run, "h", "c", map[string][]att{"a.py": {pass}})
	}
	var runs []string
	for _, j := range a.Result().Jobs {
		runs = append(runs, j.Job.RunID)
	}
	assert.Equal(t, []string{"99", "100", "1000"}, runs)
}
