package runner

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/timings"
)

// Report files. All are written with fsutil.WriteFile: whole, to a
// temporary file beside the target renamed into place, so a reader never
// sees half a report (links are followed; devices are written in place).
//
// --json-report PATH:
//
//	{"version": 1, "suite": S, "backend": B, "passed": bool, "interrupted": bool,
//	 "elapsed": seconds,
//	 "files": [{"file", "status": "PASS|FAIL|TIMEOUT|NOT RUN|INTERRUPTED",
//	            "attempts": n, "elapsed": seconds (all attempts), "exit_code": int|null,
//	            "timed_out": bool, "timeout_after": seconds|null, "est_time",
//	            "reason": "" | "exit code 3" | "timeout after 60s" | ...}...]}
//
// --junit-xml PATH (GPU suites; CPU suites pass it to pytest): one
// <testsuite> named after the suite, one <testcase classname=SUITE name=FILE
// time=SECONDS> per planned file; a <failure> (FAIL, TIMEOUT, INTERRUPTED,
// message = the reason) or <skipped> (NOT RUN); <system-out> holds the last
// 64 KiB of the file's output when it was captured (with --enable-retry).
//
// --timings-out PATH: {"version": 1, "timings": {FILE: seconds, ...}}, the
// measured duration of the passing attempt of every passed file. An existing
// file is merged into (its other entries kept, ours replacing the same
// files), so the shards of a suite can share one file.

// ReportMeta names the run a report belongs to.
type ReportMeta struct {
	Suite   string
	Backend string
}

type jsonFile struct {
	File         string          `json:"file"`
	Status       Status          `json:"status"`
	Attempts     int             `json:"attempts"`
	Elapsed      float64         `json:"elapsed"`
	ExitCode     *int            `json:"exit_code"`
	TimedOut     bool            `json:"timed_out"`
	TimeoutAfter *int            `json:"timeout_after"`
	EstTime      pyfmt.JSONFloat `json:"est_time"`
	Reason       string          `json:"reason"`
}

type jsonReport struct {
	Version     int        `json:"version"`
	Suite       string     `json:"suite"`
	Backend     string     `json:"backend"`
	Passed      bool       `json:"passed"`
	Interrupted bool       `json:"interrupted"`
	Elapsed     float64    `json:"elapsed"`
	Files       []jsonFile `json:"files"`
}

func seconds(d interface{ Seconds() float64 }) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}

// WriteJSONReport writes the JSON report of rep to path.
func WriteJSONReport(path string, meta ReportMeta, rep *Report) error {
	out := jsonReport{Version: 1, Suite: meta.Suite, Backend: meta.Backend, Passed: rep.Passed(),
		Interrupted: rep.Interrupted, Elapsed: seconds(rep.Elapsed), Files: []jsonFile{}}
	for i := range rep.Files {
		f := &rep.Files[i]
		last := f.Last()
		jf := jsonFile{File: f.File, Status: f.Status, Attempts: len(f.Attempts), Elapsed: seconds(f.Elapsed()),
			ExitCode: last.ExitCode, TimedOut: f.Status == Timeout, EstTime: pyfmt.JSONFloat(f.EstTime)}
		if f.Status != Pass {
			jf.Reason = f.Reason()
		}
		if f.Status == Timeout {
			t := last.TimeoutAfter
			jf.TimeoutAfter = &t
		}
		out.Files = append(out.Files, jf)
	}
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFile(path, append(data, '\n'))
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut *junitText    `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
}

type junitText struct {
	Text string `xml:",chardata"`
}

// WriteJUnit writes the JUnit XML report of a GPU run to path.
func WriteJUnit(path string, meta ReportMeta, rep *Report) error {
	s := junitSuite{Name: meta.Suite, Time: fmt.Sprintf("%.3f", rep.Elapsed.Seconds())}
	for i := range rep.Files {
		f := &rep.Files[i]
		c := junitCase{ClassName: meta.Suite, Name: f.File, Time: fmt.Sprintf("%.3f", f.Elapsed().Seconds())}
		switch f.Status {
		case Pass:
		case NotRun:
			c.Skipped = &junitMessage{Message: f.Reason()}
			s.Skipped++
		default:
			c.Failure = &junitMessage{Message: f.Reason(), Type: string(f.Status)}
			s.Failures++
		}
		if f.Output != nil {
			// encoding/xml replaces what XML cannot hold (invalid UTF-8,
			// control characters) with U+FFFD.
			c.SystemOut = &junitText{Text: string(f.Output)}
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
	}
	doc := junitSuites{Name: "miles-ci", Tests: s.Tests, Failures: s.Failures, Skipped: s.Skipped, Time: s.Time, Suites: []junitSuite{s}}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	buf.WriteByte('\n')
	return fsutil.WriteFile(path, buf.Bytes())
}

// MergeTimings records the passing attempt's duration of every passed file
// of rep into the timings file at path (package timings owns its format
// and the lock that lets shards share one file), creating it or merging
// into it.
func MergeTimings(path string, rep *Report) error {
	t := timings.Timings{}
	for i := range rep.Files {
		f := &rep.Files[i]
		if f.Status == Pass {
			t[f.File] = seconds(f.Last().Elapsed)
		}
	}
	return timings.Update(path, t)
}
