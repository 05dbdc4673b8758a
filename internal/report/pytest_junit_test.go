package report

import (
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pytestMain and pytestQuarantined are JUnit XML as pytest 7 writes it:
// the suite's pytest, and a quarantined file's, one test passing, one
// failing and one erroring in its fixture, one skipped.
const (
	pytestMain = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="0" skipped="0" tests="1" time="0.050" timestamp="2026-12-03T07:38:17.003362" hostname="vm"><testcase classname="tests.test_a" name="test_a" time="0.000" /></testsuite></testsuites>`

	pytestQuarantined = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="4" time="0.078" timestamp="2026-12-03T07:38:17.003362" hostname="vm">` +
		`<testcase classname="tests.test_q" name="test_ok" time="0.000" />` +
		`<testcase classname="tests.test_q" name="test_bad" time="0.011"><failure message="AssertionError: one is not two&#10;assert 1 == 2">&gt;       assert 1 == 2, "one is not two"</failure></testcase>` +
		`<testcase classname="tests.test_q" name="test_e" time="0.001"><error message="failed on setup with &quot;RuntimeError: fixture &lt;b&gt;&quot;">E       RuntimeError: fixture &lt;b&gt;</error></testcase>` +
		`<testcase classname="tests.test_q" name="test_s" time="0.000"><skipped type="pytest.skip" message="later">tests/test_q.py:9: later</skipped></testcase>` +
		`</testsuite></testsuites>`
)

func quarantinedFile(file string, status Status, reason string) *File {
	return &File{File: file, Status: status, Reason: reason, Quarantined: true,
		QuarantineReason: "::error::forged <b>", QuarantineUntil: "2027-01-31", QuarantineOwner: "some-login"}
}

// A quarantined file's pytest becomes one more <testsuite> of the
// suite's JUnit XML, whose failed and errored cases are skipped with the
// quarantine's note and the failure's message, the text escaped; passed
// and skipped cases are kept as they were, and the suite's own document
// is unchanged before it.
func TestAddQuarantinedPytest_FailuresBecomeSkippedInASuiteOfTheirOwn(t *testing.T) {
	got, err := AddQuarantinedPytest([]byte(pytestMain+"\n"), []PytestPart{
		{File: quarantinedFile("tests/test_q.py", Fail, "exit code 1"), XML: []byte(pytestQuarantined)},
	})
	require.NoError(t, err)
	note := `quarantined until 2027-01-31 (owner some-login): ::error::forged &lt;b&gt;`
	assert.Equal(t, pytestMain[:len(pytestMain)-len("</testsuites>")]+
		`<testsuite name="quarantined: tests/test_q.py" errors="0" failures="0" skipped="3" tests="4">`+
		`<testcase classname="tests.test_q" name="test_ok" time="0.000"></testcase>`+
		`<testcase classname="tests.test_q" name="test_bad" time="0.011"><skipped message="`+note+`; FAIL: AssertionError: one is not two&#xA;assert 1 == 2" type="quarantined">&gt;       assert 1 == 2, &#34;one is not two&#34;</skipped></testcase>`+
		`<testcase classname="tests.test_q" name="test_e" time="0.001"><skipped message="`+note+`; ERROR: failed on setup with &#34;RuntimeError: fixture &lt;b&gt;&#34;" type="quarantined">E       RuntimeError: fixture &lt;b&gt;</skipped></testcase>`+
		`<testcase classname="tests.test_q" name="test_s" time="0.000"><skipped message="later" type="pytest.skip">tests/test_q.py:9: later</skipped></testcase>`+
		`</testsuite></testsuites>`+"\n", string(got))
	var doc pytestDoc
	require.NoError(t, xml.Unmarshal(got, &doc), "the result is XML")
	assert.Len(t, doc.Suites, 2)
}

// With no document of the suite (every file was quarantined), the parts
// make a document of their own; a failed pytest that wrote no case is one
// case of its file, and a passed one that wrote none adds an empty suite.
func TestAddQuarantinedPytest_WithoutTheSuitesDocumentOrTheFilesCases(t *testing.T) {
	got, err := AddQuarantinedPytest(nil, []PytestPart{
		{File: quarantinedFile("tests/sub/test_x.py", Fail, "exit code 4")},
		{File: quarantinedFile("tests/test_y.py", Pass, "")},
	})
	require.NoError(t, err)
	assert.Equal(t, xml.Header+`<testsuites>`+
		`<testsuite name="quarantined: tests/sub/test_x.py" errors="0" failures="0" skipped="1" tests="1">`+
		`<testcase classname="tests.sub.test_x" name="tests/sub/test_x.py"><skipped message="quarantined until 2027-01-31 (owner some-login): ::error::forged &lt;b&gt;; FAIL: exit code 4 (pytest wrote no test case)" type="quarantined"></skipped></testcase></testsuite>`+
		`<testsuite name="quarantined: tests/test_y.py" errors="0" failures="0" skipped="0" tests="0"></testsuite>`+
		"</testsuites>\n", string(got))

	_, err = AddQuarantinedPytest(nil, []PytestPart{{File: quarantinedFile("t.py", Fail, "exit code 1"), XML: []byte("<testsuites><testcase")}})
	assert.ErrorContains(t, err, `read the JUnit XML of quarantined "t.py"`)
}
