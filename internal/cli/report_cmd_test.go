package cli

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// reportSuite is the suite of the repositories below: one GPU stage of the
// default configuration, selected with --labels run-ci-fsdp.
const reportSuite = "stage-b-2-gpu-h200"

// gpuTest is a test file of reportSuite, a shell script that miles runs
// with sh (see testutil.ShellTest). Each run appends the file's name to
// ran.log in the repository root (the children's working directory), so a
// test can tell exactly what ran; body decides the outcome.
func gpuTest(name, body string) string {
	return testutil.ShellTest(`register_cuda_ci(est_time=1, suite="`+reportSuite+`", labels=["fsdp"])`+"\n",
		"echo "+name+" >> ran.log\n"+body)
}

// passOnceFixed fails until the file fixed.marker exists in the root.
const passOnceFixed = `if [ ! -e fixed.marker ]; then
    echo "AssertionError: loss 2.0 not less than 1.0"
    exit 4
fi
echo fixed
`

// miles runs miles-ci in process on root, its test files with sh, and
// returns the exit status and both streams.
func miles(t *testing.T, root string, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	f, out, errOut := shellFactory(root, env)
	code := Main(append([]string{"--root", root}, args...), f)
	return code, out.String(), errOut.String()
}

func ranLog(t *testing.T, root string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "ran.log"))
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return strings.Fields(string(data))
}

func runArgs(extra ...string) []string {
	return append([]string{"run", "--hw", "cuda", "--suite", reportSuite, "--labels", "run-ci-fsdp"}, extra...)
}

type junitDoc struct {
	Suites []struct {
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
			Flaky   []struct {
				Message   string `xml:"message,attr"`
				Type      string `xml:"type,attr"`
				SystemOut string `xml:"system-out"`
			} `xml:"flakyFailure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// readDoc decodes the file at path with unmarshal (xml or json).
func readDoc[T any](t *testing.T, path string, unmarshal func([]byte, any) error) T {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc T
	require.NoError(t, unmarshal(data, &doc), string(data))
	return doc
}

func readJUnit(t *testing.T, path string) junitDoc {
	t.Helper()
	doc := readDoc[junitDoc](t, path, xml.Unmarshal)
	require.Len(t, doc.Suites, 1)
	return doc
}

type jsonReportDoc struct {
	Version int  `json:"version"`
	Passed  bool `json:"passed"`
	Files   []struct {
		File           string `json:"file"`
		Status         string `json:"status"`
		Flaky          bool   `json:"flaky"`
		Attempts       int    `json:"attempts"`
		AttemptsDetail []struct {
			Attempt    int     `json:"attempt"`
			Status     string  `json:"status"`
			ExitCode   *int    `json:"exit_code"`
			Reason     string  `json:"reason"`
			OutputTail *string `json:"output_tail"`
		} `json:"attempts_detail"`
	} `json:"files"`
}

func readJSONReport(t *testing.T, path string) jsonReportDoc {
	t.Helper()
	return readDoc[jsonReportDoc](t, path, json.Unmarshal)
}

func TestRun_AFileThatFailsOnceThenPassesIsFlakyInEveryReport(t *testing.T) {
	// The first attempt creates the marker and fails with a retriable
	// assertion; the second finds it and passes.
	root := execRepo(t, map[string]string{
		"tests/e2e/test_flaky.py": gpuTest("flaky", `if [ ! -e flaky.marker ]; then
    : > flaky.marker
    echo "AssertionError: score 0.5 not greater than 0.9"
    exit 1
fi
echo "passed this time"
`),
		"tests/e2e/test_steady.py": gpuTest("steady", ""),
	})
	out := t.TempDir()
	summary := filepath.Join(out, "summary.md")
	jsonPath, junitPath := filepath.Join(out, "r.json"), filepath.Join(out, "r.xml")
	code, stdout, stderr := miles(t, root, map[string]string{"GITHUB_STEP_SUMMARY": summary},
		runArgs("--enable-retry", "--retry-wait-seconds", "0", "--json-report", jsonPath, "--junit-xml", junitPath)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"flaky", "flaky", "steady"}, ranLog(t, root))
	assert.Contains(t, stdout, "Test Summary: 2/2 passed\n", "the Python-compatible summary is unchanged")
	assert.NotContains(t, stdout, "FLAKY")

	rep := readJSONReport(t, jsonPath)
	assert.True(t, rep.Passed)
	f := rep.Files[0]
	assert.Equal(t, "tests/e2e/test_flaky.py", f.File)
	assert.Equal(t, "PASS", f.Status)
	assert.True(t, f.Flaky)
	require.Len(t, f.AttemptsDetail, 2)
	assert.Equal(t, "FAIL", f.AttemptsDetail[0].Status)
	assert.Equal(t, "exit code 1", f.AttemptsDetail[0].Reason)
	require.NotNil(t, f.AttemptsDetail[0].OutputTail)
	assert.Contains(t, *f.AttemptsDetail[0].OutputTail, "AssertionError: score 0.5 not greater than 0.9")
	assert.Equal(t, "PASS", f.AttemptsDetail[1].Status)
	assert.False(t, rep.Files[1].Flaky)

	junit := readJUnit(t, junitPath)
	assert.Equal(t, 0, junit.Suites[0].Failures)
	c := junit.Suites[0].Cases[0]
	assert.Equal(t, "tests/e2e/test_flaky.py", c.Name)
	assert.Nil(t, c.Failure, "a flaky testcase passes")
	require.Len(t, c.Flaky, 1)
	assert.Equal(t, "exit code 1", c.Flaky[0].Message)
	assert.Equal(t, "FAIL", c.Flaky[0].Type)
	assert.Contains(t, c.Flaky[0].SystemOut, "not greater than 0.9")
	assert.Empty(t, junit.Suites[0].Cases[1].Flaky)

	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "| `tests/e2e/test_flaky.py` | FLAKY (passed on attempt 2) | 2 |")
	assert.Contains(t, string(md), "**Flaky 1 test(s)**")
	assert.Contains(t, string(md), "- `tests/e2e/test_flaky.py`: passed on attempt 2; attempt 1: exit code 1\n")
}

func TestRunRerunFailed_RerunsOnlyWhatFailedAndMergeShowsTheWholeSuite(t *testing.T) {
	root := execRepo(t, map[string]string{
		"tests/e2e/test_a.py":     gpuTest("a", ""),
		"tests/e2e/test_b.py":     gpuTest("b", passOnceFixed),
		"tests/e2e/test_c.py":     gpuTest("c", ""),
		"tests/e2e/test_later.py": gpuTest("later", ""),
	})
	// test_later.py is in another suite: the report, which does not
	// list it, decides what there is to rerun.
	require.NoError(t, os.WriteFile(filepath.Join(root, "tests/e2e/test_later.py"),
		[]byte(strings.Replace(gpuTest("later", ""), reportSuite, "stage-c-2-gpu-h200", 1)), 0o644))
	out := t.TempDir()
	first, rerun := filepath.Join(out, "first.json"), filepath.Join(out, "rerun.json")

	code, _, stderr := miles(t, root, nil, runArgs("--continue-on-error", "--json-report", first)...)
	require.Equal(t, 1, code, stderr)
	assert.Equal(t, []string{"a", "b", "c"}, ranLog(t, root))

	require.NoError(t, os.WriteFile(filepath.Join(root, "fixed.marker"), nil, 0o644))
	require.NoError(t, os.Remove(filepath.Join(root, "ran.log")))
	code, stdout, stderr := miles(t, root, nil, runArgs("--rerun-failed", first, "--json-report", rerun)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"b"}, ranLog(t, root), "only the file that failed runs again")
	header := "Partition: full\n" + strings.Repeat("=", 60) + "\n"
	assert.Contains(t, stdout, header+"Rerunning the 1 of 3 file(s) listed in "+first+" that did not pass\n"+
		"Enabled 1 test(s) (est total 1s):\n  - tests/e2e/test_b.py (est_time=1.0s)\n")

	merged, junitPath := filepath.Join(out, "suite.json"), filepath.Join(out, "suite.xml")
	code, stdout, stderr = miles(t, root, nil, "report", "merge", first, rerun, "-o", merged)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	rep := readJSONReport(t, merged)
	assert.True(t, rep.Passed, "every file passed in its last report")
	var files []string
	for _, f := range rep.Files {
		files = append(files, f.File+" "+f.Status)
	}
	assert.Equal(t, []string{"tests/e2e/test_a.py PASS", "tests/e2e/test_b.py PASS", "tests/e2e/test_c.py PASS"}, files)
	assert.True(t, rep.Files[1].Flaky, "failed in the first job, passed in its rerun")
	assert.Equal(t, 2, rep.Files[1].Attempts)
	code, stdout, _ = miles(t, root, nil, "report", "merge", first, rerun)
	require.Equal(t, 0, code)
	written, err := os.ReadFile(merged)
	require.NoError(t, err)
	assert.Equal(t, string(written), stdout, "without -o the same document goes to stdout")

	code, stdout, stderr = miles(t, root, nil, "report", "summary", merged, "--junit-xml", junitPath)
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(stdout, "### CUDA "+reportSuite+": 3/3 passed (1 flaky)\n"), stdout)
	assert.Contains(t, stdout, "| `tests/e2e/test_a.py` | PASS | 1 |")
	assert.Contains(t, stdout, "| `tests/e2e/test_b.py` | FLAKY (passed on attempt 2) | 2 |")
	assert.Contains(t, stdout, "| `tests/e2e/test_c.py` | PASS | 1 |")
	junit := readJUnit(t, junitPath)
	assert.Len(t, junit.Suites[0].Cases, 3)
	assert.Equal(t, 0, junit.Suites[0].Failures)
	assert.Len(t, junit.Suites[0].Cases[1].Flaky, 1)

	// The suite passed: a further rerun has nothing to do.
	require.NoError(t, os.Remove(filepath.Join(root, "ran.log")))
	code, stdout, stderr = miles(t, root, nil, runArgs("--rerun-failed", merged)...)
	require.Equal(t, 0, code, stderr)
	assert.Nil(t, ranLog(t, root))
	assert.Contains(t, stdout, "Rerunning the 0 of 3 file(s) listed in "+merged+" that did not pass\n"+
		"Nothing to rerun: every file "+merged+" lists passed\n\nNo tests to run. Exiting with success.\n")
}

func TestRunRerunFailed_BadReportIsOneLineErrorAndNothingRuns(t *testing.T) {
	root := execRepo(t, map[string]string{
		"tests/e2e/test_a.py": gpuTest("a", ""),
		"tests/e2e/test_b.py": gpuTest("b", ""),
	})
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	good := `{"version": 1, "suite": "` + reportSuite + `", "backend": "cuda", "partition": null, "passed": false, "files": [` +
		`{"file": "tests/e2e/test_a.py", "status": "FAIL"}]}`
	const usage = "\nRun 'miles-ci run --help' for usage."
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "missing.json"), `error: read report "DIR/missing.json": open: no such file or directory`},
		{"truncated", write("truncated.json", good[:strings.Index(good, `"files"`)]), `error: read report "DIR/truncated.json": invalid JSON: unexpected end of JSON input`},
		{"wrong version", write("v9.json", strings.Replace(good, `"version": 1`, `"version": 9`, 1)), `error: read report "DIR/v9.json": unsupported version 9; expected 1`},
		{"directory", dir, `error: read report "DIR": is a directory, not a regular file`},
		{"another suite", write("suite.json", strings.Replace(good, reportSuite, "stage-c-2-gpu-h200", 1)),
			`error: report "DIR/suite.json" is of suite "stage-c-2-gpu-h200" (cuda), but this run is of "` + reportSuite + `" (cuda): give the report this job wrote in its previous attempt, or rerun the whole shard without --rerun-failed` + usage},
		{"another backend", write("rocm.json", strings.Replace(good, `"cuda"`, `"rocm"`, 1)),
			`error: report "DIR/rocm.json" is of suite "` + reportSuite + `" (rocm), but this run is of "` + reportSuite + `" (cuda): give the report this job wrote in its previous attempt, or rerun the whole shard without --rerun-failed` + usage},
		{"a shard's", write("shard.json", strings.Replace(good, `"partition": null`, `"partition": {"id": 1, "size": 2}`, 1)),
			`error: report "DIR/shard.json" is of shard 1 of 2, but this run is of the whole suite: give the report this job wrote in its previous attempt, or rerun the whole shard without --rerun-failed` + usage},
		{"one that does not say", write("old.json", strings.Replace(good, `"partition": null, `, "", 1)),
			`error: report "DIR/old.json" does not say which shard it covers (no "partition": an older miles-ci wrote it, or it merges such a report): give the report this job wrote in its previous attempt, or rerun the whole shard without --rerun-failed` + usage},
		{"a failed file no longer registered", write("gone.json", strings.Replace(good, "test_a.py", "test_z.py", 1)),
			`error: report "DIR/gone.json" shows "tests/e2e/test_z.py" did not pass, but it is no longer registered in suite ` + reportSuite + `; rerun the whole shard without --rerun-failed`},
		{"passed, no file", write("empty.json", strings.NewReplacer(`"passed": false`, `"passed": true`, `{"file": "tests/e2e/test_a.py", "status": "FAIL"}`, "").Replace(good)),
			`error: report "DIR/empty.json" lists no file, but this run selects 2; is it the report of another shard? Rerun without --rerun-failed`},
		{"failed, no file", write("cut.json", strings.Replace(good, `{"file": "tests/e2e/test_a.py", "status": "FAIL"}`, "", 1)),
			`error: report "DIR/cut.json" lists no file but did not pass; rerun the whole shard without --rerun-failed`},
		{"failed, every file passed", write("odd.json", strings.Replace(good, `"FAIL"`, `"PASS"`, 1)),
			`error: report "DIR/odd.json" did not pass but shows all 1 file(s) it lists passed; rerun the whole shard without --rerun-failed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := miles(t, root, nil, runArgs("--rerun-failed", tt.path)...)
			if strings.HasSuffix(tt.want, usage) {
				assert.Equal(t, 2, code, "a report of another job is a bad argument")
			} else {
				assert.Equal(t, 1, code)
			}
			assert.Equal(t, tt.want+"\n", strings.ReplaceAll(stderr, dir, "DIR"))
			assert.Nil(t, ranLog(t, root), "nothing ran")
		})
	}

	code, _, stderr := miles(t, root, nil, runArgs("--rerun-failed=")...)
	assert.Equal(t, 2, code, "an empty path is a usage error")
	assert.Contains(t, stderr, "--rerun-failed needs a path, got an empty value")
}

// TestRunRerunFailed_AFailedFileMovedByNewerTimingsIsRerunByItsShard: on
// est_time, shard 1 of 2 runs test_b, which fails; newer timings then move
// test_b to shard 0. Shard 1's rerun still reruns it (and nothing else),
// and shard 0's rerun, whose report passed, runs nothing: the report, not
// today's split, decides.
func TestRunRerunFailed_AFailedFileMovedByNewerTimingsIsRerunByItsShard(t *testing.T) {
	root := execRepo(t, map[string]string{
		"tests/e2e/test_a.py": gpuTest("a", ""),
		"tests/e2e/test_b.py": gpuTest("b", passOnceFixed),
		"tests/e2e/test_c.py": gpuTest("c", ""),
	})
	out := t.TempDir()
	shard := func(id string, extra ...string) []string {
		return runArgs(append([]string{"--auto-partition-id", id, "--auto-partition-size", "2"}, extra...)...)
	}
	report0, report1 := filepath.Join(out, "shard-0.json"), filepath.Join(out, "shard-1.json")
	code, _, stderr := miles(t, root, nil, shard("0", "--json-report", report0)...)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = miles(t, root, nil, shard("1", "--json-report", report1)...)
	require.Equal(t, 1, code, stderr)
	assert.Equal(t, []string{"a", "c", "b"}, ranLog(t, root), "the fixture: shard 0 runs a and c, shard 1 b")

	moved := filepath.Join(out, "timings.json")
	require.NoError(t, os.WriteFile(moved, []byte(`{"version": 1, "timings": {"tests/e2e/test_b.py": 100}}`), 0o644))
	code, stdout, _ := miles(t, root, nil, shard("0", "--timings", moved, "--list-only")...)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "  - tests/e2e/test_b.py", "the fixture: the timings move test_b to shard 0")

	require.NoError(t, os.WriteFile(filepath.Join(root, "fixed.marker"), nil, 0o644))
	require.NoError(t, os.Remove(filepath.Join(root, "ran.log")))
	code, stdout, stderr = miles(t, root, nil, shard("1", "--timings", moved, "--rerun-failed", report1)...)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, []string{"b"}, ranLog(t, root))
	assert.Contains(t, stdout, "Rerunning the 1 of 1 file(s) listed in "+report1+
		" that did not pass (1 now in another shard, rerun here all the same)\n")

	require.NoError(t, os.Remove(filepath.Join(root, "ran.log")))
	code, stdout, stderr = miles(t, root, nil, shard("0", "--timings", moved, "--rerun-failed", report0)...)
	require.Equal(t, 0, code, stderr)
	assert.Nil(t, ranLog(t, root), "shard 0's report passed")
	assert.Contains(t, stdout, "Nothing to rerun: every file "+report0+" lists passed\n")
}

// TestRunRerunFailed_OnACPUSuiteIsAUsageError: a CPU suite writes no JSON
// report, so there is nothing to rerun from; nothing runs.
func TestRunRerunFailed_OnACPUSuiteIsAUsageError(t *testing.T) {
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	report := filepath.Join(t.TempDir(), "r.json")
	require.NoError(t, os.WriteFile(report, []byte(`{"version": 1, "suite": "stage-a-cpu", "backend": "cpu", "passed": false, "files": []}`), 0o644))
	code, stdout, stderr := miles(t, root, nil, "run", "--hw", "cpu", "--suite", "stage-a-cpu", "--rerun-failed", report)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout, "nothing planned, nothing run")
	assert.Contains(t, stderr, "--rerun-failed applies to GPU suites only; a CPU suite (--hw cpu) writes no JSON report to rerun from\n")
}

func TestReportMergeAndSummary_BadInputsAreOneLineErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, suite string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(`{"version": 1, "suite": "`+suite+`", "backend": "cuda", "partition": null, "files": []}`), 0o644))
		return p
	}
	a, b := write("a.json", "s"), write("b.json", "t")
	out := filepath.Join(dir, "out.json")
	// Each within the bounds report summary checks, their sums not.
	many := filepath.Join(dir, "many.json")
	require.NoError(t, os.WriteFile(many, []byte(`{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "elapsed": 5e11,
		"files": [{"file": "x.py", "status": "FAIL", "attempts": 600000, "elapsed": 1}]}`), 0o644))
	timingsFile := filepath.Join(dir, "timings.json")
	require.NoError(t, os.WriteFile(timingsFile, []byte(`{"version": 1, "timings": {"tests/e2e/test_a.py": 12.5}}`), 0o644))
	// A report at the size limit, whose bytes take no disk (a sparse
	// file): five are more than a merge reads.
	huge := filepath.Join(dir, "huge.json")
	require.NoError(t, os.WriteFile(huge, nil, 0o644))
	require.NoError(t, os.Truncate(huge, report.MaxSize))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"summary of a timings file", []string{"report", "summary", timingsFile}, 1,
			`error: read report "DIR/timings.json": a timings file (it has "timings"), not a report; expected a report written by miles-ci run --json-report (timings files go to timings merge, timings apply and --timings)`},
		{"merge of a timings file", []string{"report", "merge", a, timingsFile, "-o", out}, 1,
			`error: read report "DIR/timings.json": a timings file (it has "timings"), not a report; expected a report written by miles-ci run --json-report (timings files go to timings merge, timings apply and --timings)`},
		{"suites differ", []string{"report", "merge", a, b, "-o", out}, 1,
			`error: report "DIR/b.json" is of suite "t" (cuda), not "s" (cuda) as "DIR/a.json" is`},
		{"missing input", []string{"report", "merge", a, filepath.Join(dir, "none.json")}, 1,
			`error: read report "DIR/none.json": open: no such file or directory`},
		{"no input", []string{"report", "merge"}, 2, "error: no input file given; expected the reports the shards wrote with run --json-report"},
		{"empty output", []string{"report", "merge", a, "-o", ""}, 2, "error: --output needs a path, got an empty value"},
		{"merged attempts past the bound", []string{"report", "merge", many, many, "-o", out}, 1,
			`error: cannot write the merged report: files[0] ("x.py") has "attempts" 1200000; expected a count from 0 to 1000000`},
		{"merged attempts past the bound, to stdout", []string{"report", "merge", many, many}, 1,
			`error: cannot write the merged report: files[0] ("x.py") has "attempts" 1200000; expected a count from 0 to 1000000`},
		{"merge of more than a merge reads", []string{"report", "merge", a, huge, huge, huge, huge, huge, "-o", out}, 1,
			"error: the reports given hold 1342177359 bytes together, more than the 1024 MiB a merge reads: it holds them in memory to write a merged report, which may be at most 256 MiB"},
		{"summary of a directory", []string{"report", "summary", dir}, 1, `error: read report "DIR": is a directory, not a regular file`},
		{"summary of two", []string{"report", "summary", a, b}, 2, "error: accepts 1 arg(s), received 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := suitesFactory(dir, nil)
			assert.Equal(t, tt.code, Main(tt.args, f))
			assert.Empty(t, stdout.String())
			assert.Equal(t, tt.want, strings.ReplaceAll(strings.SplitN(stderr.String(), "\n", 2)[0], dir, "DIR"))
			if tt.code == 1 {
				assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "one line: %q", stderr.String())
			}
		})
	}
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "nothing written")
}

func TestNewCmdReport_ParsesArgumentsIntoOptions(t *testing.T) {
	f, _, _ := suitesFactory(".", nil)
	var merge *ReportMergeOptions
	cmd := NewCmdReportMerge(f, func(o *ReportMergeOptions) error { merge = o; return nil })
	cmd.SetArgs([]string{"a.json", "b.json", "-o", "suite.json"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, &ReportMergeOptions{Inputs: []string{"a.json", "b.json"}, Output: "suite.json"}, merge)
	cmd = NewCmdReportMerge(f, func(o *ReportMergeOptions) error { merge = o; return nil })
	cmd.SetArgs([]string{"a.json", "--allow-missing"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, &ReportMergeOptions{Inputs: []string{"a.json"}, AllowMissing: true}, merge)

	var summary *ReportSummaryOptions
	cmd = NewCmdReportSummary(f, func(o *ReportSummaryOptions) error { summary = o; return nil })
	cmd.SetArgs([]string{"suite.json", "--junit-xml", "suite.xml"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, &ReportSummaryOptions{Input: "suite.json", JUnitXML: "suite.xml"}, summary)
}

// TestShardReports_SayWhichShardTheyCover: shard 1 of 2 fails. Its rerun
// given shard 0's passing report once said "Nothing to rerun" and passed,
// and a merge lacking shard 1's report summarized as "1/1 passed". Each
// report now names its shard and plan: the rerun refuses another shard's
// report, the merge refuses a set that lacks a shard holding tests (or,
// with --allow-missing, records it), and the summary shows it and fails.
func TestShardReports_SayWhichShardTheyCover(t *testing.T) {
	root := execRepo(t, map[string]string{
		"tests/e2e/test_a.py": gpuTest("a", ""),
		"tests/e2e/test_b.py": gpuTest("b", "exit 3\n"),
	})
	out := t.TempDir()
	shard := func(id, size string, extra ...string) []string {
		return runArgs(append([]string{"--auto-partition-id", id, "--auto-partition-size", size}, extra...)...)
	}
	report0, report1 := filepath.Join(out, "shard-0.json"), filepath.Join(out, "shard-1.json")
	code, _, stderr := miles(t, root, nil, shard("0", "2", "--json-report", report0)...)
	require.Equal(t, 0, code, stderr)
	code, _, stderr = miles(t, root, nil, shard("1", "2", "--json-report", report1)...)
	require.Equal(t, 1, code, stderr)
	require.Equal(t, []string{"a", "b"}, ranLog(t, root), "the fixture: shard 0 runs a, shard 1 b")
	data, err := os.ReadFile(report1)
	require.NoError(t, err)
	assert.Regexp(t, `"backend": "cuda",\n  "partition": \{\n    "id": 1,\n    "size": 2\n  \},\n  "plan": "p1\.2\.[0-9a-f]{8}\.[0-9a-f]{8}",\n  "shards": null,\n`, string(data))

	code, stdout, stderr := miles(t, root, nil, shard("1", "2", "--rerun-failed", report0)...)
	assert.Equal(t, 2, code)
	assert.NotContains(t, stdout, "Nothing to rerun")
	assert.Equal(t, `error: report "`+report0+`" is of shard 0 of 2, but this run is shard 1 of 2: give the report of shard 1 of 2 of `+reportSuite+`, or rerun the whole shard without --rerun-failed`,
		strings.SplitN(stderr, "\n", 2)[0])
	assert.Equal(t, []string{"a", "b"}, ranLog(t, root), "nothing ran")

	merged := filepath.Join(out, "suite.json")
	code, _, stderr = miles(t, root, nil, "report", "merge", report0, "-o", merged)
	assert.Equal(t, 1, code)
	assert.Equal(t, "error: no report given covers shard(s) 1 of the 2 of "+reportSuite+", which hold tests (their jobs stopped before writing one, or their reports were not given): give them, or --allow-missing to write the merge with them marked missing\n", stderr)
	_, err = os.Stat(merged)
	assert.True(t, os.IsNotExist(err), "nothing written")

	code, _, stderr = miles(t, root, nil, "report", "merge", report0, "--allow-missing", "-o", merged)
	require.Equal(t, 0, code, stderr)
	data, err = os.ReadFile(merged)
	require.NoError(t, err)
	assert.Contains(t, string(data), "\"partition\": null,\n  \"plan\": \"p1.2.")
	assert.Contains(t, string(data), "\"shards\": {\n    \"size\": 2,\n    \"missing\": [\n      1\n    ]\n  },\n  \"passed\": false,\n")
	code, stdout, stderr = miles(t, root, nil, "report", "summary", merged)
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(stdout, "### CUDA "+reportSuite+": 1/1 passed, 1 of 2 shards missing\n\n"+
		"**Missing shard(s) 1 of 2:** no report, so their tests are not in this table and the suite has not passed.\n\n| File |"), stdout)
	assert.Equal(t, `error: report "`+merged+`" lacks shard(s) 1 of the 2 of `+reportSuite+": no report of theirs was merged, so their tests are not in it and the suite has not passed\n", stderr)

	// Every shard, a shard given twice across attempts: complete.
	code, _, stderr = miles(t, root, nil, "report", "merge", report0, report1, report1, "-o", merged)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, readFile(t, merged), "\"shards\": {\n    \"size\": 2,\n    \"missing\": []\n  },\n  \"passed\": false,\n")
	code, _, stderr = miles(t, root, nil, "report", "summary", merged)
	assert.Equal(t, 0, code, "a summary of a failed suite shows it; the shard's job failed")
	assert.Empty(t, stderr)

	// A shard that the plan leaves without a test writes no report and is
	// not missing; reports of another shard count do not merge.
	report3 := filepath.Join(out, "shard-0-of-3.json")
	code, _, stderr = miles(t, root, nil, shard("0", "3", "--json-report", report3)...)
	require.Equal(t, 0, code, stderr)
	code, stdout, _ = miles(t, root, nil, shard("2", "3", "--list-only")...)
	require.Equal(t, 0, code)
	require.Contains(t, stdout, "No tests to run", "the fixture: shard 2 of 3 holds no test")
	report31 := filepath.Join(out, "shard-1-of-3.json")
	code, _, _ = miles(t, root, nil, shard("1", "3", "--json-report", report31)...)
	require.Equal(t, 1, code)
	code, _, stderr = miles(t, root, nil, "report", "merge", report3, report31, "-o", merged)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, readFile(t, merged), "\"size\": 3,\n    \"missing\": []\n")
	code, _, stderr = miles(t, root, nil, "report", "merge", report0, report31)
	assert.Equal(t, 1, code)
	assert.Equal(t, `error: report "`+report31+`" is of a split into 3 shards, but "`+report0+`" is of 2: shards of different splits do not make one suite report`+"\n", stderr)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}

// A report written before reports said which shard they cover still
// merges, with a warning that the merge cannot tell what is missing.
func TestReportMerge_AnUnscopedReportMergesWithAWarning(t *testing.T) {
	dir := t.TempDir()
	old, shard0 := filepath.Join(dir, "old.json"), filepath.Join(dir, "shard-0.json")
	require.NoError(t, os.WriteFile(old, []byte(`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "b.py", "status": "PASS"}]}`), 0o644))
	require.NoError(t, os.WriteFile(shard0, []byte(`{"version": 1, "suite": "s", "backend": "cuda", "partition": {"id": 0, "size": 2}, "plan": "p1.2.aaaaaaaa.bbbbbbbb", "files": [{"file": "a.py", "status": "PASS"}]}`), 0o644))
	f, stdout, stderr := suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"report", "merge", shard0, old}, f), stderr.String())
	assert.Equal(t, `warning: report "`+old+`" does not say which shard it covers (an older miles-ci wrote it): the merge cannot tell whether a shard's report is missing`+"\n", stderr.String())
	assert.NotContains(t, stdout.String(), `"partition"`, "the merge does not say either")
	assert.Contains(t, stdout.String(), `"passed": true`)
}
