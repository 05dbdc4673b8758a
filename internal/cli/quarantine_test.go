package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
)

// quarantineConfig is a roster of one CUDA suite whose quarantine holds
// tests/test_c.py until 2027-01-31; the reason carries Markdown, HTML
// and a workflow command, which every output must render inert (a control
// character is refused by the configuration's check).
const quarantineConfig = `discovery:
  roots: [tests]
  pattern: "**/test_*.py"
register_functions:
  register_cuda_ci: cuda
labels: [core]
suites:
  cuda:
    - name: gpu
      runs_on: [gpu]
quarantine:
  - file: tests/test_c.py
    reason: "::error::forged <b>*flaky*</b> | https://github.com/o/r/issues/1234"
    owner: some-login
    until: 2027-01-31
`

// quarantineRepo is a suite of four files, each a shell script that
// registers itself in the suite gpu: test_c.py fails with status 1, unless
// cFails is false, the others pass. sh exits before the register call,
// which the registry reads as Python.
func quarantineRepo(t *testing.T, cFails bool) string {
	t.Helper()
	files := map[string]string{config.FileName: quarantineConfig}
	for _, n := range []string{"a", "b", "c", "d"} {
		status := "0"
		if n == "c" && cFails {
			status = "1"
		}
		files["tests/test_"+n+".py"] = "exit " + status + "\nregister_cuda_ci(est_time=1, suite='gpu', labels=['core'])\n"
	}
	return execRepo(t, files)
}

// runQuarantined runs the suite gpu of root at the time now, fast-failing
// (no --continue-on-error), with the reports and the step summary in a
// temporary directory, and returns the exit status, the outputs and the
// directory.
func runQuarantined(t *testing.T, root string, now time.Time, extra ...string) (code int, stdout, stderr, dir string) {
	t.Helper()
	dir = t.TempDir()
	f, out, errOut := shellFactory(root, map[string]string{"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md")})
	f.Now = func() time.Time { return now }
	cmd := NewCmdRun(f, nil)
	cmd.SetArgs(append([]string{"--hw", "cuda", "--suite", "gpu", "--match-all-labels", "--max-attempts", "1", "--no-preflight",
		"--json-report", filepath.Join(dir, "r.json"), "--junit-xml", filepath.Join(dir, "r.xml")}, extra...))
	err := cmd.Execute()
	return exitCode(err, errOut, "run"), out.String(), errOut.String(), dir
}

var (
	beforeExpiry = time.Date(2027, 1, 31, 23, 59, 0, 0, time.UTC)
	afterExpiry  = time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)
)

// The acceptance of issue 36: one quarantined file of four fails, the
// others pass: the run exits 0, though fast-failing it runs every file,
// and the report, JUnit and the step summary say quarantined, with the
// reason rendered inert.
func TestRun_AQuarantinedFailureDoesNotFailTheRun(t *testing.T) {
	code, out, stderr, dir := runQuarantined(t, quarantineRepo(t, true), beforeExpiry)
	assert.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", out, stderr)
	assert.Contains(t, out, "PASSED:\n  tests/test_a.py\n  tests/test_b.py\n  tests/test_d.py\n", "the file after the failure runs too")
	assert.Contains(t, out, `[CI Quarantine] tests/test_c.py FAIL (exit code 1) does not fail the run: quarantined until 2027-01-31 (owner some-login): ::error::forged <b>*flaky*</b> | https://github.com/o/r/issues/1234`+"\n")

	rep, err := report.Read(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	assert.True(t, rep.Passed)
	c := rep.Files[2]
	assert.Equal(t, report.Fail, c.Status, "its status is kept")
	assert.True(t, c.Quarantined)
	assert.Equal(t, "::error::forged <b>*flaky*</b> | https://github.com/o/r/issues/1234", c.QuarantineReason)
	assert.Equal(t, "2027-01-31", c.QuarantineUntil)
	assert.False(t, rep.Files[0].Quarantined)
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(data), `"quarantined": true`), "only the quarantined file says so")

	junit, err := os.ReadFile(filepath.Join(dir, "r.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(junit), `failures="0" skipped="1"`)
	assert.Contains(t, string(junit), `<skipped message="quarantined until 2027-01-31 (owner some-login): ::error::forged &lt;b&gt;*flaky*&lt;/b&gt; | https://github.com/o/r/issues/1234; FAIL: exit code 1"></skipped>`)

	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| `tests/test_c.py` | FAIL (quarantined) | 1 |")
	assert.Contains(t, string(md), "**Quarantined files** (they ran; a failure of theirs does not fail the run):\n"+
		"- `tests/test_c.py` FAIL (exit code 1), which does not fail the run; quarantined until 2027-01-31 (owner some-login): ::error::forged &lt;b>\\*flaky\\*&lt;/b> \\| https\\://github.com/o/r/issues/1234\n")
}

// The same run the day after the entry's until: the entry protects
// nothing, the run warns and fails, fast-failing at the file as usual.
func TestRun_AnExpiredQuarantineProtectsNothing(t *testing.T) {
	code, out, stderr, dir := runQuarantined(t, quarantineRepo(t, true), afterExpiry)
	assert.Equal(t, 1, code)
	assert.Equal(t, "warning: the quarantine of tests/test_c.py expired after 2027-01-31: it protected nothing, and its FAIL counts as usual\n", stderr)
	assert.NotContains(t, out, "Begin (3/3)", "a fast-failing run stops at the failure")
	rep, err := report.Read(filepath.Join(dir, "r.json"))
	require.NoError(t, err)
	assert.False(t, rep.Passed)
	assert.False(t, rep.Files[2].Quarantined)
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(md), "Quarantined")
}

// --no-quarantine runs the quarantined file as an ordinary one; so does a
// cadence the configuration's quarantine_off names, while nightly obeys
// the quarantine by default.
func TestRun_NoQuarantineAndQuarantineOffRunItAsAnOrdinaryFile(t *testing.T) {
	root := quarantineRepo(t, true)
	code, out, _, _ := runQuarantined(t, root, beforeExpiry, "--no-quarantine")
	assert.Equal(t, 1, code)
	assert.NotContains(t, out, "[CI Quarantine]")

	code, _, _, _ = runQuarantined(t, root, beforeExpiry, "--cadence", "nightly")
	assert.Equal(t, 0, code, "nightly obeys the quarantine by default")

	cfg := filepath.Join(root, config.FileName)
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cfg, append(data, "quarantine_off: [nightly]\n"...), 0o644))
	code, _, _, _ = runQuarantined(t, root, beforeExpiry, "--cadence", "nightly")
	assert.Equal(t, 1, code)
	code, _, _, _ = runQuarantined(t, root, beforeExpiry)
	assert.Equal(t, 0, code, "the regular cadence still obeys it")
}

// A quarantined file that passes is named a candidate for release.
func TestRun_AQuarantinedFileThatPassesIsACandidateForRelease(t *testing.T) {
	code, out, _, dir := runQuarantined(t, quarantineRepo(t, false), beforeExpiry)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "[CI Quarantine] tests/test_c.py passed while quarantined until 2027-01-31 (owner some-login): ")
	assert.Contains(t, out, ": a candidate for release (delete its entry)\n")
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "- `tests/test_c.py` passed: a candidate for release (delete its entry); quarantined until 2027-01-31")
}

// An entry naming a file with no registration stops run before any test,
// with an error at the entry's line.
func TestRun_AQuarantineOfAnUnregisteredFileIsAnErrorAtItsLine(t *testing.T) {
	root := quarantineRepo(t, true)
	cfg := filepath.Join(root, config.FileName)
	data, err := os.ReadFile(cfg)
	require.NoError(t, err)
	text := strings.Replace(string(data), "file: tests/test_c.py", "file: tests/test_e.py", 1)
	require.NoError(t, os.WriteFile(cfg, []byte(text), 0o644))
	before, _, _ := strings.Cut(text, "- file: tests/test_e.py")
	code, out, stderr, _ := runQuarantined(t, root, beforeExpiry)
	assert.Equal(t, 1, code)
	assert.NotContains(t, out, "Begin (0/", "no test runs")
	assert.Contains(t, stderr, fmt.Sprintf(`error: .miles-ci.yaml:%d: quarantine file "tests/test_e.py" has no registration: name a registered test file, or delete the entry`, strings.Count(before, "\n")+1))
}

// --no-quarantine is parsed into the options (nothing runs).
func TestRun_NoQuarantineFlagIsParsed(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--hw", "cuda", "--suite", "s"}, false},
		{[]string{"--hw", "cuda", "--suite", "s", "--no-quarantine"}, true},
	} {
		opts, err := parseRun(t, tc.args...)
		require.NoError(t, err)
		assert.Equal(t, tc.want, opts.NoQuarantine, "%q", tc.args)
	}
}

// run --file (the /rerun-test command) runs a quarantined file as an
// ordinary file, to see whether it passes: its failure fails the run, and
// the log says the quarantine was not applied, with the entry rendered
// inert; an expired entry is not named.
func TestRunFile_AQuarantinedFileRunsAsAnOrdinaryFileAndTheLogSaysSo(t *testing.T) {
	root := quarantineRepo(t, true)
	run := func(now time.Time) (int, string) {
		f, out, errOut := shellFactory(root, nil)
		f.Now = func() time.Time { return now }
		code := Main([]string{"--root", root, "run", "--file", "tests/test_c.py", "--max-attempts", "1", "--no-preflight"}, f)
		return code, out.String() + errOut.String()
	}
	code, out := run(beforeExpiry)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "[CI Quarantine] tests/test_c.py is quarantined until 2027-01-31 (owner some-login): ::error::forged <b>*flaky*</b> | https://github.com/o/r/issues/1234; not applied: run --file runs it as an ordinary file, whose failure fails the run\n")
	assert.Empty(t, forgedLines(out))
	assert.NotContains(t, out, "does not fail the run")

	code, out = run(afterExpiry)
	assert.Equal(t, 1, code, out)
	assert.NotContains(t, out, "[CI Quarantine]")
}

// listQuarantined lists what run (or partition) would run of the suite gpu
// of root at the time now, and returns the exit status and both outputs.
func listQuarantined(t *testing.T, root string, now time.Time, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := shellFactory(root, nil)
	f.Now = func() time.Time { return now }
	code := Main(append([]string{"--root", root}, args...), f)
	return code, out.String(), errOut.String()
}

// run --list-only, the plan's listing, ends a quarantined file's line
// with its quarantine (an expired entry says it is not applied), and
// --json lists the entries under "quarantined"; the listing a run prints
// before its tests is the same. partition's listing marks it alike. With
// --no-quarantine nothing is marked: the listing is the plain one.
func TestRunListOnly_MarksTheQuarantinedFiles(t *testing.T) {
	root := quarantineRepo(t, true)
	list := []string{"run", "--hw", "cuda", "--suite", "gpu", "--match-all-labels", "--list-only"}
	code, out, errOut := listQuarantined(t, root, beforeExpiry, list...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "  - tests/test_b.py (est_time=1.0s)\n  - tests/test_c.py (est_time=1.0s) [quarantined until 2027-01-31]\n  - tests/test_d.py (est_time=1.0s)\n")
	assert.Empty(t, errOut)

	_, expired, _ := listQuarantined(t, root, afterExpiry, list...)
	assert.Contains(t, expired, "  - tests/test_c.py (est_time=1.0s) [quarantine expired after 2027-01-31: not applied]\n")

	_, plain, _ := listQuarantined(t, root, beforeExpiry, append(list, "--no-quarantine")...)
	assert.Equal(t, strings.Replace(out, " [quarantined until 2027-01-31]", "", 1), plain)

	_, js, _ := listQuarantined(t, root, beforeExpiry, append(list, "--json")...)
	assert.Contains(t, js, `,"quarantined":[{"file":"tests/test_c.py","reason":"::error::forged \u003cb\u003e*flaky*\u003c/b\u003e | https://github.com/o/r/issues/1234","until":"2027-01-31","owner":"some-login","expired":false}]}`+"\n")
	_, js, _ = listQuarantined(t, root, beforeExpiry, append(list, "--json", "--no-quarantine")...)
	assert.NotContains(t, js, "quarantined")

	_, part, _ := listQuarantined(t, root, beforeExpiry, "partition", "--suite", "gpu", "--match-all-labels", "--size", "2")
	assert.Contains(t, part, "  - tests/test_c.py (est_time=1.0s) [quarantined until 2027-01-31]\n", part)

	// The run prints the same listing before its tests.
	_, run, _, _ := runQuarantined(t, root, beforeExpiry)
	assert.Contains(t, run, "  - tests/test_c.py (est_time=1.0s) [quarantined until 2027-01-31]\n")
}
