package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// shortSHA is how many characters of a commit the jobs table shows.
const shortSHA = 9

// Hosts writes the analysis of `report hosts`: the table of jobs (where
// each ran and how it went), the table of hosts, and the verdict. Every
// name in it comes from a report and is written inert (textfmt.Table, textfmt.Cell).
func Hosts(w io.Writer, res *hostcheck.Result) error {
	jobs := [][]string{{"RUN", "ATTEMPT", "SUITE", "SHARD", "SHA", "HOST", "RESULT"}}
	for _, j := range res.Jobs {
		jobs = append(jobs, []string{dash(j.Job.RunID), dash(j.Job.RunAttempt), j.Job.Suite, dash(j.Job.Partition),
			dash(short(j.SHA)), j.Host.Key(), jobResult(j)})
	}
	hosts := [][]string{{"HOST", "HOSTNAMES", "JOBS", "FILES RUN", "PASSED", "FAILED", "INFRA", "CONTRADICTED"}}
	for _, h := range res.Hosts {
		hosts = append(hosts, []string{h.Key, hostnames(h), strconv.Itoa(h.Jobs), strconv.Itoa(h.FilesRun),
			strconv.Itoa(h.Passed), strconv.Itoa(h.Failed), strconv.Itoa(h.Infra + h.NotReady), strconv.Itoa(h.Contradicted)})
	}
	_, err := io.WriteString(w, textfmt.Table(jobs, len(jobs[0]))+"\n"+textfmt.Table(hosts, len(hosts[0]))+"\n"+Verdict(res))
	return err
}

// Verdict is the verdict's lines: "no suspect host", or each suspect host
// with its jobs, its files and its evidence.
func Verdict(res *hostcheck.Result) string {
	if len(res.Suspects) == 0 {
		return fmt.Sprintf("Verdict: no suspect host among %s\n", textfmt.CountNoun(len(res.Hosts), "host"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Verdict: %s of %d\n", textfmt.CountNoun(len(res.Suspects), "suspect host"), len(res.Hosts))
	for _, h := range res.Hosts {
		if !h.Suspect {
			continue
		}
		evidence := make([]string, len(h.Evidence))
		for i, e := range h.Evidence {
			evidence[i] = textfmt.Cell(e)
		}
		fmt.Fprintf(&b, "  %s: %s, %d of %s passed; %s\n", textfmt.Cell(h.Key), textfmt.CountNoun(h.Jobs, "job"),
			h.Passed, textfmt.CountNoun(h.FilesRun, "file"), strings.Join(evidence, "; "))
	}
	return b.String()
}

// jobResult is a job's RESULT cell: "3/4 passed, 1 failed, 2 not run;
// infra: cuda-802 ×1; host not ready".
func jobResult(j hostcheck.JobResult) string {
	if j.Files == 0 {
		s := "no file"
		if j.HostNotReady {
			s += "; host not ready"
		}
		return s
	}
	s := fmt.Sprintf("%d/%d passed", j.Passed, j.Files)
	if j.Failed > 0 {
		s += fmt.Sprintf(", %d failed", j.Failed)
	}
	if j.NotRun > 0 {
		s += fmt.Sprintf(", %d not run", j.NotRun)
	}
	if j.Infra > 0 {
		s += "; infra: " + hostcheck.FingerprintList(j.Fingerprints)
	}
	if j.HostNotReady {
		s += "; host not ready"
	}
	return s
}

func hostnames(h hostcheck.HostResult) string {
	s := strings.Join(h.Hostnames, ",")
	if h.More {
		s += ",…"
	}
	return dash(s)
}

// short is a commit as the jobs table shows it.
func short(sha string) string {
	if len(sha) > shortSHA {
		return sha[:shortSHA]
	}
	return sha
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// HostsJSON writes the analysis as the JSON document of `report hosts
// --json`: the threshold, every job, every host with its counts and
// verdict, and the suspects' keys. Lists are [] when empty, never null.
func HostsJSON(w io.Writer, res *hostcheck.Result) error {
	doc := hostsDoc{MinContradicted: res.MinContradicted, Jobs: []jsonJob{}, Hosts: []jsonHost{},
		Suspects: nonNil(res.Suspects)}
	for _, j := range res.Jobs {
		doc.Jobs = append(doc.Jobs, jsonJob{Repository: j.Job.Repository, RunID: j.Job.RunID, RunAttempt: j.Job.RunAttempt,
			Job: j.Job.Name, Suite: j.Job.Suite, Partition: j.Job.Partition, Report: j.Job.Source, SHA: j.SHA,
			Host: j.Host.Key(), Runner: j.Host.Runner, Hostname: j.Host.Hostname, Files: j.Files, Run: j.Run,
			NotRun: j.NotRun, Passed: j.Passed, Failed: j.Failed, Infra: j.Infra, Fingerprints: nonNilMap(j.Fingerprints),
			HostNotReady: j.HostNotReady})
	}
	for _, h := range res.Hosts {
		doc.Hosts = append(doc.Hosts, jsonHost{Host: h.Key, Runner: h.Runner, Hostnames: nonNil(h.Hostnames),
			MoreHostnames: h.More, Jobs: h.Jobs, FilesRun: h.FilesRun, Passed: h.Passed, Failed: h.Failed,
			Infra: h.Infra, NotReady: h.NotReady, Fingerprints: nonNilMap(h.Fingerprints), Contradicted: h.Contradicted,
			PassedOn: nonNil(h.PassedOn), Suspect: h.Suspect, Evidence: nonNil(h.Evidence)})
	}
	return writeJSON(w, doc)
}

func nonNilMap(m map[string]int) map[string]int {
	if m == nil {
		return map[string]int{}
	}
	return m
}

type hostsDoc struct {
	MinContradicted int        `json:"min_contradicted"`
	Jobs            []jsonJob  `json:"jobs"`
	Hosts           []jsonHost `json:"hosts"`
	Suspects        []string   `json:"suspects"`
}

type jsonJob struct {
	Repository   string         `json:"repository"`
	RunID        string         `json:"run_id"`
	RunAttempt   string         `json:"run_attempt"`
	Job          string         `json:"job"`
	Suite        string         `json:"suite"`
	Partition    string         `json:"partition"`
	Report       string         `json:"report"`
	SHA          string         `json:"sha"`
	Host         string         `json:"host"`
	Runner       string         `json:"runner"`
	Hostname     string         `json:"hostname"`
	Files        int            `json:"files"`
	Run          int            `json:"run"`
	NotRun       int            `json:"not_run"`
	Passed       int            `json:"passed"`
	Failed       int            `json:"failed"`
	Infra        int            `json:"infra"`
	Fingerprints map[string]int `json:"fingerprints"`
	HostNotReady bool           `json:"host_not_ready"`
}

type jsonHost struct {
	Host          string         `json:"host"`
	Runner        string         `json:"runner"`
	Hostnames     []string       `json:"hostnames"`
	MoreHostnames bool           `json:"more_hostnames"`
	Jobs          int            `json:"jobs"`
	FilesRun      int            `json:"files_run"`
	Passed        int            `json:"passed"`
	Failed        int            `json:"failed"`
	Infra         int            `json:"infra"`
	NotReady      int            `json:"not_ready"`
	Fingerprints  map[string]int `json:"fingerprints"`
	Contradicted  int            `json:"contradicted"`
	PassedOn      []string       `json:"passed_on"`
	Suspect       bool           `json:"suspect"`
	Evidence      []string       `json:"evidence"`
}
