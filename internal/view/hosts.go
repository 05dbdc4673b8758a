package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// shortSHA is how many characters of a commit the jobs table shows.
const shortSHA = 9

// Hosts writes the analysis of `report hosts`: the table of jobs (where
// each ran and how it went), the table of hosts, and the verdict. Every
// name in it comes from a report and is written inert (see term).
func Hosts(w io.Writer, res *hostcheck.Result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tATTEMPT\tSUITE\tSHARD\tSHA\tHOST\tRESULT")
	for _, j := range res.Jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", dash(term(j.Job.RunID)), dash(term(j.Job.RunAttempt)),
			term(j.Job.Suite), dash(j.Job.Partition), dash(term(short(j.SHA))),
			term(j.Host.Key()), jobResult(j))
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "HOST\tHOSTNAMES\tJOBS\tFILES RUN\tPASSED\tFAILED\tINFRA\tCONTRADICTED")
	for _, h := range res.Hosts {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", term(h.Key), hostnames(h), h.Jobs, h.FilesRun,
			h.Passed, h.Failed, h.Infra+h.NotReady, h.Contradicted)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n"+Verdict(res))
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
		fmt.Fprintf(&b, "  %s: %s, %d of %s passed; %s\n", term(h.Key), textfmt.CountNoun(h.Jobs, "job"),
			h.Passed, textfmt.CountNoun(h.FilesRun, "file"), term(strings.Join(h.Evidence, "; ")))
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
		s += "; infra: " + term(hostcheck.FingerprintList(j.Fingerprints))
	}
	if j.HostNotReady {
		s += "; host not ready"
	}
	return s
}

func hostnames(h hostcheck.HostResult) string {
	names := make([]string, len(h.Hostnames))
	for i, n := range h.Hostnames {
		names[i] = term(n)
	}
	s := strings.Join(names, ",")
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

// term writes text from a report so that a terminal shows it as text: on
// one line (textfmt.OneLine), in one column (a tab as `\t`), and with no
// control or format character left to move the cursor, change colours or
// reorder what follows (each written as \xNN or \uNNNN).
func term(s string) string {
	s = textfmt.OneLine(s)
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && (unicode.IsControl(r) || unicode.Is(unicode.Cf, r)):
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff && unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		case unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
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
