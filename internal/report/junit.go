package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"reflect"
	"strings"
)

// JUnit XML, as the test-report readers of Jenkins, GitLab and GitHub
// actions read it: one <testsuite> named after the suite, one
// <testcase classname=SUITE name=FILE time=SECONDS> per planned file.
// A file that did not pass has a <failure> (FAIL, TIMEOUT, INTERRUPTED;
// message = the reason, type = the status) or a <skipped> (NOT RUN). A
// flaky file passes and carries one <flakyFailure> per failed attempt,
// as Maven Surefire writes a test that passed on a rerun: message, type
// and time of that attempt, and its captured output tail in <system-out>.
// The testcase's own <system-out> is the last attempt's captured output.
// The testsuite's <properties> name the run's host (hostProperties). The
// message of an attempt that failed with cause infra also names the
// fingerprint and the line it matched (infraNote). A quarantined file
// that failed is <skipped>, its message the quarantine's (QuarantineNote)
// then its status and reason: its failure did not fail the run.

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
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// hostProperties are the <properties> of a run's host: one
// "miles-ci.host.KEY" per value the report's host has (the keys of the
// JSON report), and one "miles-ci.host.gpu.INDEX" per GPU, "NAME, UUID,
// MEMORY MiB, driver DRIVER"; nil for a report without a host.
func hostProperties(h *Host) *junitProperties {
	if h == nil {
		return nil
	}
	var ps junitProperties
	add := func(key, value string) {
		if value != "" {
			ps.Property = append(ps.Property, junitProperty{Name: "miles-ci.host." + key, Value: value})
		}
	}
	// Every key of the host, in the JSON report's order, as the JSON
	// report names it: a key added to Host is a property with no edit here.
	v := reflect.ValueOf(h).Elem()
	for i := range v.NumField() {
		key, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		switch f := v.Field(i); {
		case key == "" || key == "-":
		case f.Kind() == reflect.String:
			add(key, f.String())
		case f.Kind() == reflect.Pointer && !f.IsNil():
			add(key, fmt.Sprint(f.Elem().Interface()))
		}
	}
	for _, g := range h.Gpus {
		add(fmt.Sprintf("gpu.%d", g.Index), fmt.Sprintf("%s, %s, %d MiB, driver %s", g.Name, g.UUID, g.MemoryMiB, g.Driver))
	}
	if len(ps.Property) == 0 {
		return nil
	}
	return &ps
}

type junitCase struct {
	ClassName string         `xml:"classname,attr"`
	Name      string         `xml:"name,attr"`
	Time      string         `xml:"time,attr"`
	Failure   *junitMessage  `xml:"failure,omitempty"`
	Skipped   *junitMessage  `xml:"skipped,omitempty"`
	Flaky     []junitAttempt `xml:"flakyFailure"`
	SystemOut *junitText     `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
}

// junitAttempt is one failed attempt of a test that passed later.
type junitAttempt struct {
	Message   string     `xml:"message,attr"`
	Type      string     `xml:"type,attr"`
	Time      string     `xml:"time,attr"`
	SystemOut *junitText `xml:"system-out,omitempty"`
}

type junitText struct {
	Text string `xml:",chardata"`
}

func junitTime(s float64) string { return fmt.Sprintf("%.3f", s) }

// output returns the <system-out> of a captured tail, nil for none.
// encoding/xml replaces what XML cannot hold (invalid UTF-8, control
// characters) with U+FFFD.
func output(tail *string) *junitText {
	if tail == nil {
		return nil
	}
	return &junitText{Text: *tail}
}

// MarshalJUnit returns the JUnit XML document of r.
func MarshalJUnit(r *Report) ([]byte, error) {
	s := junitSuite{Name: r.Suite, Time: junitTime(r.Elapsed), Properties: hostProperties(r.Host)}
	for i := range r.Files {
		f := &r.Files[i]
		c := junitCase{ClassName: r.Suite, Name: f.File, Time: junitTime(f.Elapsed)}
		switch f.Status {
		case Pass:
			for _, a := range f.AttemptsDetail {
				if a.Status.Failed() {
					c.Flaky = append(c.Flaky, junitAttempt{Message: a.Reason + infraNote(a), Type: string(a.Status),
						Time: junitTime(a.Elapsed), SystemOut: output(a.OutputTail)})
				}
			}
		case NotRun:
			c.Skipped = &junitMessage{Message: f.Reason}
			s.Skipped++
		case Fail, Timeout:
			if f.Quarantined {
				last, _ := f.LastAttempt()
				c.Skipped = &junitMessage{Message: QuarantineNote(f) + "; " + string(f.Status) + ": " + f.Reason + infraNote(last)}
				s.Skipped++
				break
			}
			fallthrough
		default:
			last, _ := f.LastAttempt()
			c.Failure = &junitMessage{Message: f.Reason + infraNote(last), Type: string(f.Status)}
			s.Failures++
		}
		if last, ok := f.LastAttempt(); ok {
			c.SystemOut = output(last.OutputTail)
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
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// infraNote is what a message adds for an attempt with cause infra:
// " (infra: FINGERPRINT: LINE)"; "" for any other.
func infraNote(a Attempt) string {
	if a.Cause != CauseInfra {
		return ""
	}
	return " (infra: " + a.Fingerprint + ": " + a.CauseLine + ")"
}

// WriteJUnit writes the JUnit XML document of r to path, whole or not at
// all.
func WriteJUnit(path string, r *Report) error { return writeWith(path, r, MarshalJUnit) }

// QuarantineNote says why a quarantined file's failure did not fail its
// run: "quarantined until DATE (owner OWNER): REASON". The reason is the
// configuration's text as written; each output escapes it its own way.
func QuarantineNote(f *File) string {
	owner := ""
	if f.QuarantineOwner != "" {
		owner = " (owner " + f.QuarantineOwner + ")"
	}
	return "quarantined until " + f.QuarantineUntil + owner + ": " + f.QuarantineReason
}
