package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
)

// A CPU suite's quarantined files run after the suite's pytest, each in a
// pytest of its own whose failure does not fail the run. What each wrote
// is added to the suite's JUnit XML (pytest's) as one more <testsuite>,
// named "quarantined: FILE", in which every test case that failed or
// errored is <skipped>, its message the quarantine's (QuarantineNote) then
// the failure's, as a quarantined GPU file's failure is (MarshalJUnit).

// PytestPart is the JUnit XML that the pytest of one quarantined file
// wrote, and what became of that pytest.
type PytestPart struct {
	// File is the quarantined file; it carries the quarantine's reason,
	// until and owner, and the pytest's Status (PASS or FAIL) and Reason
	// ("exit code N").
	File *File
	// XML is what the pytest wrote to its --junitxml; nil when it wrote
	// nothing.
	XML []byte
}

// pytestCase is a <testcase> as pytest writes it, read and written again
// with its attributes as they were.
type pytestCase struct {
	XMLName   xml.Name       `xml:"testcase"`
	Attrs     []xml.Attr     `xml:",any,attr"`
	Failure   *pytestMessage `xml:"failure"`
	Error     *pytestMessage `xml:"error"`
	Skipped   *pytestMessage `xml:"skipped"`
	SystemOut *junitText     `xml:"system-out"`
	SystemErr *junitText     `xml:"system-err"`
}

type pytestMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// pytestDoc is pytest's document: <testsuites> of <testsuite>s, or one
// <testsuite> (pytest's legacy form).
type pytestDoc struct {
	Suites []struct {
		Cases []pytestCase `xml:"testcase"`
	} `xml:"testsuite"`
	Cases []pytestCase `xml:"testcase"`
}

// pytestSuite is the <testsuite> a quarantined file's part becomes.
type pytestSuite struct {
	XMLName  xml.Name     `xml:"testsuite"`
	Name     string       `xml:"name,attr"`
	Errors   int          `xml:"errors,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Tests    int          `xml:"tests,attr"`
	Cases    []pytestCase `xml:"testcase"`
}

// AddQuarantinedPytest returns main, the suite's JUnit XML as pytest wrote
// it (nil when no pytest of the suite's other files ran), with a
// <testsuite> per part added at the end of its <testsuites>. A part's
// failed or errored test cases are <skipped>: a quarantined file's
// failure did not fail the run. A part that failed and wrote no test case
// is one <testcase> of the file, skipped with the pytest's status.
func AddQuarantinedPytest(main []byte, parts []PytestPart) ([]byte, error) {
	var suites bytes.Buffer
	for _, p := range parts {
		s, err := quarantinedSuite(p)
		if err != nil {
			return nil, err
		}
		data, err := xml.Marshal(s)
		if err != nil {
			return nil, fmt.Errorf("encode JUnit XML of %q: %w", p.File.File, err)
		}
		suites.Write(data)
	}
	body := bytes.TrimSpace(main)
	if at := bytes.LastIndex(body, []byte("</testsuites>")); at >= 0 {
		return append(append(append([]byte{}, body[:at]...), suites.Bytes()...), append(body[at:], '\n')...), nil
	}
	// No document, or pytest's legacy single <testsuite>: the result is
	// a <testsuites> of what there is.
	if bytes.HasPrefix(body, []byte("<?xml")) {
		if end := bytes.Index(body, []byte("?>")); end >= 0 {
			body = bytes.TrimSpace(body[end+2:])
		}
	}
	var out bytes.Buffer
	out.WriteString(xml.Header)
	out.WriteString("<testsuites>")
	out.Write(body)
	out.Write(suites.Bytes())
	out.WriteString("</testsuites>\n")
	return out.Bytes(), nil
}

// quarantinedSuite is the <testsuite> of one part.
func quarantinedSuite(p PytestPart) (pytestSuite, error) {
	f := p.File
	s := pytestSuite{Name: "quarantined: " + f.File}
	var doc pytestDoc
	if len(bytes.TrimSpace(p.XML)) > 0 {
		if err := xml.Unmarshal(p.XML, &doc); err != nil {
			return s, fmt.Errorf("read the JUnit XML of quarantined %q: %w", f.File, err)
		}
	}
	cases := doc.Cases
	for _, suite := range doc.Suites {
		cases = append(cases, suite.Cases...)
	}
	if len(cases) == 0 && f.Status.Failed() {
		cases = []pytestCase{{Attrs: []xml.Attr{
			{Name: xml.Name{Local: "classname"}, Value: strings.ReplaceAll(strings.TrimSuffix(f.File, ".py"), "/", ".")},
			{Name: xml.Name{Local: "name"}, Value: f.File}},
			Failure: &pytestMessage{Message: f.Reason + " (pytest wrote no test case)"}}}
	}
	note := QuarantineNote(f)
	for _, c := range cases {
		for _, m := range []struct {
			msg  *pytestMessage
			kind string
		}{{c.Failure, "FAIL"}, {c.Error, "ERROR"}} {
			if m.msg != nil && c.Skipped == nil {
				c.Skipped = &pytestMessage{Message: note + "; " + m.kind + ": " + m.msg.Message, Type: "quarantined", Text: m.msg.Text}
			}
		}
		c.Failure, c.Error = nil, nil
		if c.Skipped != nil {
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	return s, nil
}
