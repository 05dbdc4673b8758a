package suiterun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/testutil"
)

// cpuQuarantine is a CPU suite of three pytest files run by the real
// pytest, fast-failing: test_a passes, test_b fails, test_c passes;
// entries quarantines test_b and test_c until 2027-01-31 (or as given).
// It returns the outcome, the log (stdout then stderr) and the JUnit XML.
func cpuQuarantine(t *testing.T, now time.Time, entries ...config.QuarantineEntry) (Outcome, string, string, string) {
	t.Helper()
	testutil.NeedCommand(t, "pytest")
	root := testutil.TempTree(t, map[string]string{
		"tests/test_a.py": "def test_a():\n    assert True\n",
		"tests/test_b.py": "def test_b_ok():\n    assert True\n\ndef test_b_bad():\n    assert 1 == 2, \"<b>one is not two</b>\"\n",
		"tests/test_c.py": "def test_c():\n    assert True\n",
	})
	p := gpuPlan("tests/test_a.py", "tests/test_b.py", "tests/test_c.py")
	p.Backend, p.ContinueOnError = config.CPU, false
	p.Quarantine = entries
	junit := filepath.Join(t.TempDir(), "junit.xml")
	var out, errOut bytes.Buffer
	o, err := Run(context.Background(), Spec{
		Root: root, Plan: p, Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1}, Out: &out, ErrOut: &errOut,
		Outputs: report.Outputs{JUnitXML: junit}, Now: func() time.Time { return now },
	})
	require.NoError(t, err)
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	return o, out.String(), errOut.String(), string(data)
}

var cpuUntil = time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)

func cpuEntries(until time.Time) []config.QuarantineEntry {
	return []config.QuarantineEntry{
		{File: "tests/test_b.py", Reason: "::error::forged <b>", Owner: "some-login", Until: until},
		{File: "tests/test_c.py", Reason: "slow", Until: until},
	}
}

// A CPU suite's quarantined files run after the suite's pytest, each in a
// pytest of its own: the suite's pytest runs the others as always, the
// quarantined file that fails does not fail the run and is skipped in the
// JUnit XML with the quarantine's note, the one that passes is a
// candidate for release, and the log says each as a GPU suite's does.
func TestRun_ACPUSuitesQuarantinedFilesRunInAPytestOfTheirOwn(t *testing.T) {
	o, out, errOut, junit := cpuQuarantine(t, cpuUntil, cpuEntries(cpuUntil)...)
	assert.Equal(t, 0, o.Code, out)
	assert.Empty(t, errOut)
	commands := regexp.MustCompile(`(?m)^Running: pytest (.*) --junitxml=\S+$`).FindAllStringSubmatch(out, -1)
	require.Len(t, commands, 3, out)
	assert.Equal(t, []string{"tests/test_a.py -v -x", "tests/test_b.py -v", "tests/test_c.py -v"},
		[]string{commands[0][1], commands[1][1], commands[2][1]})
	assert.Contains(t, out, "[CI Quarantine] tests/test_b.py runs in a pytest of its own, whose failure does not fail the run: quarantined until 2027-01-31 (owner some-login): ::error::forged <b>\n")
	assert.Contains(t, out, "[CI Quarantine] tests/test_b.py FAIL (exit code 1) does not fail the run: quarantined until 2027-01-31 (owner some-login): ::error::forged <b>\n")
	assert.Contains(t, out, "[CI Quarantine] tests/test_c.py passed while quarantined until 2027-01-31: slow: a candidate for release (delete its entry)\n")

	assert.Contains(t, junit, `name="test_a"`, "the suite's own cases are kept")
	assert.Contains(t, junit, `<testsuite name="quarantined: tests/test_b.py" errors="0" failures="0" skipped="1" tests="2">`)
	assert.Contains(t, junit, `<skipped message="quarantined until 2027-01-31 (owner some-login): ::error::forged &lt;b&gt;; FAIL: AssertionError: &lt;b&gt;one is not two&lt;/b&gt;`)
	assert.Contains(t, junit, `<testsuite name="quarantined: tests/test_c.py" errors="0" failures="0" skipped="0" tests="1">`)
	assert.NotContains(t, junit, "<failure", "no failure is left")
}

// Without an active entry the suite is the one pytest process it always
// was, its argv byte for byte; an expired entry protects nothing and run
// warns of it.
func TestRun_ACPUSuiteWithoutAnActiveQuarantineIsOnePytest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []config.QuarantineEntry
		warn    string
	}{
		{"no quarantine", nil, ""},
		{"expired", cpuEntries(cpuUntil.AddDate(0, -2, 0)),
			"warning: the quarantine of tests/test_b.py expired after 2026-12-01: it protects nothing, and the file runs in the suite's pytest as usual\n" +
				"warning: the quarantine of tests/test_c.py expired after 2026-12-01: it protects nothing, and the file runs in the suite's pytest as usual\n"},
	} {
		o, out, errOut, junit := cpuQuarantine(t, cpuUntil, tc.entries...)
		assert.Equal(t, 1, o.Code, tc.name)
		assert.Equal(t, tc.warn, errOut, tc.name)
		first, _, _ := strings.Cut(out, "\n")
		assert.Regexp(t, `^Running: pytest tests/test_a.py tests/test_b.py tests/test_c.py -v -x --junitxml=\S+/junit.xml$`, first, tc.name)
		assert.Equal(t, 1, strings.Count(out, "Running: pytest"), tc.name)
		assert.NotContains(t, out, "[CI Quarantine]", tc.name)
		assert.NotContains(t, junit, "quarantined", tc.name)
	}
}

// A --junit-xml that is not a regular file (a device) cannot be read
// back: the quarantined files still run and the run says what it left
// out, instead of waiting on the device.
func TestRun_ACPUSuitesQuarantinedJUnitIsNotAddedToADevice(t *testing.T) {
	testutil.NeedCommand(t, "pytest")
	testutil.NeedLinux(t, "/dev/null, the device used,")
	root := testutil.TempTree(t, map[string]string{"tests/test_a.py": "def test_a():\n    assert True\n", "tests/test_b.py": "def test_b():\n    assert False\n"})
	p := gpuPlan("tests/test_a.py", "tests/test_b.py")
	p.Backend, p.Quarantine = config.CPU, cpuEntries(cpuUntil)[:1]
	var out, errOut bytes.Buffer
	o, err := Run(context.Background(), Spec{Root: root, Plan: p, Out: &out, ErrOut: &errOut,
		Outputs: report.Outputs{JUnitXML: os.DevNull}, Now: func() time.Time { return cpuUntil }})
	require.NoError(t, err)
	assert.Equal(t, 0, o.Code, out.String())
	assert.Contains(t, out.String(), "[CI Quarantine] tests/test_b.py FAIL (exit code 1) does not fail the run")
	assert.Equal(t, "warning: --junit-xml /dev/null is not a regular file: the quarantined files' JUnit XML is not added to it\n", errOut.String())
}
