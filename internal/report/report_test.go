package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/timings"
)

func intp(v int) *int       { return &v }
func strp(s string) *string { return &s }
func pass(n int, el float64) Attempt {
	return Attempt{Attempt: n, Status: Pass, Elapsed: el, ExitCode: intp(0)}
}
func fail(n int, el float64, code int) Attempt {
	return Attempt{Attempt: n, Status: Fail, Elapsed: el, ExitCode: intp(code), Reason: "exit code " + string(rune('0'+code))}
}

// file builds a report entry whose top-level fields follow its attempts,
// as runner.Document writes them.
func file(name string, status Status, attempts ...Attempt) File {
	f := File{File: name, Status: status, Attempts: len(attempts), EstTime: 10, AttemptsDetail: attempts}
	for _, a := range attempts {
		f.Elapsed += a.Elapsed
		f.ExitCode = a.ExitCode
		f.Reason = a.Reason
	}
	if status == NotRun {
		f.Reason = "not run: an earlier file failed"
	}
	return f
}

func report(suite string, interrupted bool, files ...File) *Report {
	r := &Report{Suite: suite, Backend: "cuda", Interrupted: interrupted, Elapsed: 1, Files: files}
	r.Finish()
	return r
}

func TestFinish_FlakyIsAPassAfterAFailedAttempt(t *testing.T) {
	r := report("s", false,
		file("flaky.py", Pass, fail(1, 5, 1), pass(2, 3)),
		file("steady.py", Pass, pass(1, 2)),
		file("broken.py", Fail, fail(1, 1, 1), fail(2, 1, 1)),
	)
	assert.True(t, r.Files[0].Flaky)
	assert.False(t, r.Files[1].Flaky)
	assert.False(t, r.Files[2].Flaky, "a file that never passed is failed, not flaky")
	assert.False(t, r.Passed)
}

func TestMarshalParse_RoundTripKeepsEveryField(t *testing.T) {
	r := report("s", false, file("flaky.py", Pass, fail(1, 5, 1), pass(2, 3)), file("later.py", NotRun))
	r.Files[0].AttemptsDetail[0].OutputTail = strp("AssertionError: <score> not greater than 0.9\n")
	r.Files[0].EstTime = EstTime(math.Inf(1))
	data, err := Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"output_tail": "AssertionError: <score> not greater than 0.9\n"`, "no HTML escapes")
	assert.Contains(t, string(data), `"est_time": 1e999`)
	assert.Contains(t, string(data), `"attempts_detail": []`, "a file never run has an empty list, not null")

	got, err := Parse(data)
	require.NoError(t, err)
	r.Files[1].AttemptsDetail = []Attempt{}
	assert.Equal(t, r, got)
}

func TestRead_BadReportsAreOneLineErrorsNamingTheFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	good := `{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "PASS"}]}`
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "nope.json"), `read report "DIR/nope.json": open: no such file or directory`},
		{"directory", dir, `read report "DIR": is a directory, not a regular file`},
		{"truncated", write("trunc.json", good[:40]), `read report "DIR/trunc.json": invalid JSON: unexpected end of JSON input`},
		{"not JSON", write("text.json", "PASS a.py\n"), `read report "DIR/text.json": invalid JSON: invalid character 'P' looking for beginning of value`},
		{"wrong version", write("v2.json", strings.Replace(good, `"version": 1`, `"version": 2`, 1)), `read report "DIR/v2.json": unsupported version 2; expected 1`},
		{"no version", write("nov.json", `{"suite": "s"}`), `read report "DIR/nov.json": no "version"; expected a report written by miles-ci run --json-report (version 1)`},
		{"timings file", write("timings.json", `{"version": 1, "timings": {"a.py": 3}}`), `read report "DIR/timings.json": a timings file (it has "timings"), not a report; expected a report written by miles-ci run --json-report (timings files go to timings merge, timings apply and --timings)`},
		{"a report that also holds timings", write("both-keys.json", strings.Replace(good, `"version": 1,`, `"version": 1, "timings": {},`, 1)), ``},
		{"array", write("arr.json", `[1]`), `read report "DIR/arr.json": the document is a JSON array; expected an object`},
		{"bad cause", write("cause.json", strings.Replace(good, `"status": "PASS"`, `"status": "FAIL", "cause": "gremlins"`, 1)), `read report "DIR/cause.json": files[0] ("a.py") has cause "gremlins"; expected one of "test", "timeout", "infra" or none`},
		{"bad fingerprint", write("fp.json", strings.Replace(good, `"status": "PASS"`, `"status": "FAIL", "attempts": 1, "attempts_detail": [{"attempt": 1, "status": "FAIL", "cause": "infra", "fingerprint": "x\u001b]0;pwned\u0007"}]`, 1)), `read report "DIR/fp.json": files[0] ("a.py") attempt 1 has fingerprint "x\x1b]0;pwned\a"; expected a name of letters, digits, '.', '-' and '_'`},
		{"bad type", write("type.json", `{"version": 1, "suite": "s", "backend": "cuda", "files": {}}`), `read report "DIR/type.json": "files" is a JSON object, which is not its type`},
		{"bad status", write("status.json", strings.Replace(good, `"PASS"`, `"OK"`, 1)), `read report "DIR/status.json": files[0] ("a.py") has status "OK"; expected one of PASS, FAIL, TIMEOUT, NOT RUN, INTERRUPTED`},
		{"bad est_time", write("est.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "est_time": "1"`, 1)), `read report "DIR/est.json": est_time is "1"; expected a number`},
		{"no file name", write("noname.json", strings.Replace(good, `"a.py"`, `""`, 1)), `read report "DIR/noname.json": files[0] has no "file"`},
		{"negative attempts", write("neg.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "attempts": -3`, 1)), `read report "DIR/neg.json": files[0] ("a.py") has "attempts" -3; expected a count from 0 to 1000000`},
		{"more attempts listed than counted", write("detail.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "attempts": 1, "attempts_detail": [{"attempt": 1, "status": "FAIL"}, {"attempt": 2, "status": "PASS"}]`, 1)), `read report "DIR/detail.json": files[0] ("a.py") lists 2 attempts in "attempts_detail" but "attempts" is 1 (or missing)`},
		{"negative elapsed", write("elapsed.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "elapsed": -1.5`, 1)), `read report "DIR/elapsed.json": files[0] ("a.py") has "elapsed" -1.5; expected seconds, from 0 to 1e+12`},
		{"negative attempt elapsed", write("aelapsed.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "attempts": 1, "attempts_detail": [{"attempt": 1, "status": "PASS", "elapsed": -2}]`, 1)), `read report "DIR/aelapsed.json": files[0] ("a.py") attempt 1 has "elapsed" -2; expected seconds, from 0 to 1e+12`},
		{"huge attempts", write("huge.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "attempts": 9223372036854775807`, 1)), `read report "DIR/huge.json": files[0] ("a.py") has "attempts" 9223372036854775807; expected a count from 0 to 1000000`},
		{"huge elapsed", write("hugeel.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "elapsed": 1.7e308`, 1)), `read report "DIR/hugeel.json": files[0] ("a.py") has "elapsed" 1.7e+308; expected seconds, from 0 to 1e+12`},
		{"key spelled in capitals", write("caps.json", strings.Replace(good, `"status"`, `"STATUS"`, 1)), `read report "DIR/caps.json": files[0] ("a.py") has no "status"`},
		{"capitals do not win over the key", write("both.json", strings.Replace(good, `"status": "PASS"`, `"status": "PASS", "Status": "OK"`, 1)), ``},
		{"version spelled otherwise", write("ver.json", strings.Replace(good, `"version"`, `"Version"`, 1)), `read report "DIR/ver.json": no "version"; expected a report written by miles-ci run --json-report (version 1)`},
		{"negative run elapsed", write("runel.json", strings.Replace(good, `"version": 1,`, `"version": 1, "elapsed": -200,`, 1)), `read report "DIR/runel.json": "elapsed" is -200; expected seconds, from 0 to 1e+12`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(tt.path)
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tt.want, strings.ReplaceAll(err.Error(), dir, "DIR"))
			var re *Error
			assert.ErrorAs(t, err, &re)
		})
	}
}

func TestCheckSuite_AnotherSuiteOrBackendIsAnError(t *testing.T) {
	r := report("stage-a", false)
	r.path = "r.json"
	assert.NoError(t, r.CheckSuite("stage-a", "cuda"))
	assert.EqualError(t, r.CheckSuite("stage-b", "cuda"), `report "r.json" is of suite "stage-a" (cuda), not "stage-b" (cuda)`)
	assert.EqualError(t, r.CheckSuite("stage-a", "rocm"), `report "r.json" is of suite "stage-a" (cuda), not "stage-a" (rocm)`)
}

func TestMerge_OrderLastWinsAndAttemptsAddUp(t *testing.T) {
	shard0 := report("s", false,
		file("a.py", Pass, pass(1, 4)),
		file("b.py", Fail, fail(1, 2, 1)),
		file("c.py", NotRun),
	)
	shard1 := report("s", false, file("d.py", Pass, pass(1, 1)))
	rerun := report("s", false,
		file("b.py", Pass, pass(1, 3)),
		file("c.py", Fail, fail(1, 1, 2)),
	)
	got, err := Merge(shard0, shard1, rerun)
	require.NoError(t, err)

	var names []string
	for _, f := range got.Files {
		names = append(names, f.File)
	}
	assert.Equal(t, []string{"a.py", "b.py", "c.py", "d.py"}, names, "first listing's place, reports in the order given")
	b := got.Files[1]
	assert.Equal(t, Pass, b.Status, "the rerun's entry is the final word")
	assert.True(t, b.Flaky, "failed in the shard, passed in its rerun")
	assert.Equal(t, 2, b.Attempts)
	assert.Equal(t, 5.0, b.Elapsed)
	assert.Equal(t, []int{1, 2}, []int{b.AttemptsDetail[0].Attempt, b.AttemptsDetail[1].Attempt})
	assert.Equal(t, Fail, got.Files[2].Status)
	assert.Equal(t, "exit code 2", got.Files[2].Reason)
	assert.False(t, got.Passed)
	assert.Equal(t, 3.0, got.Elapsed, "the runs' elapsed times add up")
	assert.Equal(t, Version, got.Version)
}

func TestMerge_PassedOnlyWhenEveryFilePassedAndNotRunSaysNothingNew(t *testing.T) {
	first := report("s", false, file("a.py", Fail, fail(1, 1, 1)), file("b.py", Pass, pass(1, 1)))
	rerun := report("s", false, file("a.py", Pass, pass(1, 1)), file("b.py", NotRun))
	got, err := Merge(first, rerun)
	require.NoError(t, err)
	assert.True(t, got.Passed)
	assert.Equal(t, Pass, got.Files[1].Status, "NOT RUN does not replace a file that ran")

	interrupted := report("s", true, file("a.py", Interrupted, Attempt{Attempt: 1, Status: Interrupted}))
	got, err = Merge(first, interrupted)
	require.NoError(t, err)
	assert.True(t, got.Interrupted)
	assert.False(t, got.Passed)
}

func TestMerge_HostNotReadyStaysUntilAnotherRunRanTheFile(t *testing.T) {
	stopped := report("s", false, file("a.py", Fail, fail(1, 1, 1)), file("b.py", NotRun))
	stopped.HostNotReady = true
	got, err := Merge(stopped)
	require.NoError(t, err)
	assert.True(t, got.HostNotReady, "b.py never ran: the host that was not ready is why")

	rerun := report("s", false, file("a.py", Pass, pass(1, 1)), file("b.py", Pass, pass(1, 1)))
	got, err = Merge(stopped, rerun)
	require.NoError(t, err)
	assert.False(t, got.HostNotReady, "the rerun on another host ran every file")
	assert.True(t, got.Passed)
}

func TestMerge_ReportsOfAnotherSuiteAreAnError(t *testing.T) {
	a, b := report("s", false), report("t", false)
	a.path, b.path = "a.json", "b.json"
	_, err := Merge(a, b)
	assert.EqualError(t, err, `report "b.json" is of suite "t" (cuda), not "s" (cuda) as "a.json" is`)
}

func TestSelectRerun_TakesWhatTheReportListsAsNotPassed(t *testing.T) {
	r := report("s", false,
		file("pass.py", Pass, pass(1, 1)),
		file("flaky.py", Pass, fail(1, 1, 1), pass(2, 1)),
		file("fail.py", Fail, fail(1, 1, 1)),
		file("timeout.py", Timeout, Attempt{Attempt: 1, Status: Timeout}),
		file("stopped.py", Interrupted, Attempt{Attempt: 1, Status: Interrupted}),
		file("notrun.py", NotRun),
		file("twice.py", Pass, pass(1, 1)),
		file("twice.py", Fail, fail(1, 1, 1)),
	)
	got, err := SelectRerun(r)
	require.NoError(t, err)
	assert.Equal(t, []string{"fail.py", "timeout.py", "stopped.py", "notrun.py", "twice.py"}, got.Files,
		"each once, in the report's order")
	assert.Equal(t, 7, got.Listed, "files, each once")
}

func TestSelectRerun_APassedReportLeavesNothing(t *testing.T) {
	got, err := SelectRerun(report("s", false, file("a.py", Pass, pass(1, 1))))
	require.NoError(t, err)
	assert.Empty(t, got.Files)
	assert.Equal(t, 1, got.Listed)

	got, err = SelectRerun(report("s", false))
	require.NoError(t, err, "passed, with no file: whether it covers the plan is the plan's question")
	assert.Empty(t, got.Files)
}

// TestSelectRerun_AFailedReportAlwaysLeavesSomethingToRerun: a report that
// did not pass and leaves nothing to rerun is an error, never an empty
// rerun that exits 0.
func TestSelectRerun_AFailedReportAlwaysLeavesSomethingToRerun(t *testing.T) {
	allPassed := report("s", false, file("a.py", Pass, pass(1, 1)), file("b.py", Pass, pass(1, 1)))
	allPassed.Passed = false // written by hand, or cut between two files
	allPassed.path = "odd.json"
	_, err := SelectRerun(allPassed)
	assert.EqualError(t, err, `report "odd.json" did not pass but shows all 2 file(s) it lists passed; rerun the whole shard without --rerun-failed`)

	interrupted := report("s", true, file("a.py", Pass, pass(1, 1)))
	interrupted.path = "cut.json"
	_, err = SelectRerun(interrupted)
	var nf *NothingFailedError
	assert.ErrorAs(t, err, &nf)
}

func TestMarshalJUnit_FlakyTestcasePassesWithOneFlakyFailurePerFailedAttempt(t *testing.T) {
	flaky := file("flaky.py", Pass,
		Attempt{Attempt: 1, Status: Fail, Elapsed: 1.5, ExitCode: intp(1), Reason: "exit code 1", OutputTail: strp("boom 1\n")},
		Attempt{Attempt: 2, Status: Timeout, Elapsed: 2, TimedOut: true, TimeoutAfter: intp(2), Reason: "timeout after 2s", OutputTail: strp("slow\n")},
		Attempt{Attempt: 3, Status: Pass, Elapsed: 1, ExitCode: intp(0), OutputTail: strp("ok\n")},
	)
	r := report("s", false, flaky, file("bad.py", Fail, fail(1, 1, 3)), file("later.py", NotRun))
	data, err := MarshalJUnit(r)
	require.NoError(t, err)

	var doc struct {
		Suites []struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
				Flaky   []struct {
					Message   string `xml:"message,attr"`
					Type      string `xml:"type,attr"`
					Time      string `xml:"time,attr"`
					SystemOut string `xml:"system-out"`
				} `xml:"flakyFailure"`
				SystemOut string `xml:"system-out"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	require.Len(t, doc.Suites, 1)
	s := doc.Suites[0]
	assert.Equal(t, 3, s.Tests)
	assert.Equal(t, 1, s.Failures, "a flaky file is not a failure")
	c := s.Cases[0]
	assert.Nil(t, c.Failure)
	require.Len(t, c.Flaky, 2)
	assert.Equal(t, "exit code 1", c.Flaky[0].Message)
	assert.Equal(t, "FAIL", c.Flaky[0].Type)
	assert.Equal(t, "1.500", c.Flaky[0].Time)
	assert.Equal(t, "boom 1\n", c.Flaky[0].SystemOut)
	assert.Equal(t, "TIMEOUT", c.Flaky[1].Type)
	assert.Equal(t, "slow\n", c.Flaky[1].SystemOut)
	assert.Equal(t, "ok\n", c.SystemOut, "the testcase's own output is the passing attempt's")
	assert.NotNil(t, s.Cases[1].Failure)
	assert.Empty(t, s.Cases[1].Flaky)
}

func TestMergeTimings_AFlakyFileIsMeasuredByItsPassingAttempt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timings.json")
	r := report("s", false,
		file("flaky.py", Pass, fail(1, 500, 1), pass(2, 7)),
		file("bad.py", Fail, fail(1, 9, 1)),
	)
	require.NoError(t, MergeTimings(path, r))
	got, err := timings.Read(path)
	require.NoError(t, err)
	assert.Equal(t, timings.Timings{"flaky.py": 7}, got, "only passing attempts are measured")
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// reportWriters writes each file of r to a path.
func reportWriters(r *Report) map[string]func(string) error {
	return map[string]func(string) error{
		"json":    func(p string) error { return Write(p, r) },
		"junit":   func(p string) error { return WriteJUnit(p, r) },
		"timings": func(p string) error { return MergeTimings(p, r) },
	}
}

func TestWriters_ADirectoryTargetIsAnErrorAndLeavesNoTemporaryFile(t *testing.T) {
	r := report("s", false, file("a.py", Pass, pass(1, 1.5)))
	for name, write := range reportWriters(r) {
		t.Run(name, func(t *testing.T) {
			parent := t.TempDir()
			target := filepath.Join(parent, "report.json")
			require.NoError(t, os.Mkdir(target, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(target, "x"), []byte("x"), 0o644))
			require.Error(t, write(target))
			assert.Equal(t, []string{"report.json"}, listDir(t, parent), "no temporary file left beside the target")
		})
	}
}

// Every report is written through a link (the link stays), keeps an
// existing file's mode, and merges timings into the linked file.
func TestWriters_WriteThroughLinks(t *testing.T) {
	r := report("s", false, file("b.py", Pass, pass(1, 1.5)))
	for name, write := range reportWriters(r) {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			real := filepath.Join(dir, "real.json")
			require.NoError(t, os.WriteFile(real, []byte(`{"version": 1, "timings": {"a.py": 2}}`), 0o600))
			link := filepath.Join(dir, "link.json")
			require.NoError(t, os.Symlink("real.json", link))
			require.NoError(t, write(link))
			st, err := os.Lstat(link)
			require.NoError(t, err)
			assert.NotZero(t, st.Mode()&fs.ModeSymlink, "the link must stay a link")
			st, err = os.Stat(real)
			require.NoError(t, err)
			assert.Equal(t, fs.FileMode(0o600), st.Mode().Perm())
			assert.ElementsMatch(t, []string{"real.json", "link.json"}, listDir(t, dir))
			if name == "timings" {
				got, err := timings.Read(real)
				require.NoError(t, err)
				assert.Equal(t, timings.Timings{"a.py": 2, "b.py": 1.5}, got)
			}
		})
	}
}

// A report that is a FIFO or /dev/zero is refused at once: reading it would
// wait for a writer forever, or until memory runs out.
func TestRead_OnlyABoundedRegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	zero := filepath.Join(dir, "zero.json")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	for path, want := range map[string]string{
		fifo: "is a FIFO, not a regular file",
		zero: "not a regular file",
		dir:  "is a directory, not a regular file",
	} {
		done := make(chan error, 1)
		go func() { _, err := Read(path); done <- err }()
		select {
		case err := <-done:
			var re *Error
			require.ErrorAs(t, err, &re, path)
			assert.Contains(t, err.Error(), want, path)
			assert.NotContains(t, err.Error(), "\n")
		case <-time.After(20 * time.Second):
			t.Fatalf("Read(%s) did not return", path)
		}
	}
}

func TestSelectRerun_AnEmptyReportThatFailedIsAnError(t *testing.T) {
	r := report("s", true) // interrupted before its first file
	require.False(t, r.Passed)
	r.path = "cut.json"
	_, err := SelectRerun(r)
	assert.EqualError(t, err, `report "cut.json" lists no file but did not pass; rerun the whole shard without --rerun-failed`)
}

// Marshal writes the document one file at a time, byte for byte as
// encoding/json writes the whole document.
func TestMarshal_IsEncodingJSONsIndentedDocument(t *testing.T) {
	tail := "<b>&</b>\n\u2028é"
	code, after := 3, 60
	for _, files := range [][]File{{}, {
		{File: "a.py", Status: Pass, Attempts: 1, Elapsed: 1.5, EstTime: 30},
		{File: "b.py", Status: Timeout, Attempts: 2, TimedOut: true, TimeoutAfter: &after, EstTime: EstTime(math.Inf(1)),
			Reason: "timeout after 60s", AttemptsDetail: []Attempt{
				{Attempt: 1, Status: Fail, ExitCode: &code, OutputTail: &tail},
				{Attempt: 2, Status: Timeout, TimedOut: true, TimeoutAfter: &after}}},
	}} {
		r := &Report{Version: 1, Suite: "s", Backend: "cuda", Elapsed: 12.25, Interrupted: true, Files: files}
		got, err := Marshal(r)
		require.NoError(t, err)
		doc := *r
		doc.Files = make([]File, len(files))
		for i, f := range files {
			if f.AttemptsDetail == nil {
				f.AttemptsDetail = []Attempt{}
			}
			doc.Files[i] = f
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		require.NoError(t, enc.Encode(doc))
		assert.Equal(t, want.String(), string(got))
	}
}

// MarshalReadable refuses what Read would refuse: counts or times past
// their bounds, and a document larger than MaxSize, counted before it is
// built.
func TestMarshalReadable_RefusesWhatReadRefuses(t *testing.T) {
	r := &Report{Suite: "s", Backend: "cuda", Elapsed: 2e12, Files: []File{}}
	_, err := MarshalReadable(r)
	assert.EqualError(t, err, `"elapsed" is 2e+12; expected seconds, from 0 to 1e+12`)

	big := strings.Repeat("x", 1<<20)
	r = &Report{Version: Version, Suite: "s", Backend: "cuda", Files: []File{}}
	for range MaxSize >> 20 {
		r.Files = append(r.Files, File{File: "a.py", Status: Fail, Attempts: 1, AttemptsDetail: []Attempt{{Attempt: 1, Status: Fail, OutputTail: &big}}})
	}
	_, err = MarshalReadable(r)
	require.Error(t, err)
	assert.Regexp(t, `^the document would be [0-9]+ bytes, larger than the 256 MiB a report may have$`, err.Error())

	r.Files = r.Files[:3]
	data, err := MarshalReadable(r)
	require.NoError(t, err)
	_, err = Parse(data)
	assert.NoError(t, err)
}

// shardReport is a report of shard id of size on plan, listing files.
func shardReport(path string, id, size int, plan string, files ...File) *Report {
	r := report("s", false, files...)
	r.Partition, r.Plan, r.path = &Partition{ID: id, Size: size}, plan, path
	return r
}

func TestMerge_SaysWhichShardsItCoversAndWhichAreMissing(t *testing.T) {
	a, b, c := file("a.py", Pass, pass(1, 1)), file("b.py", Fail, fail(1, 1, 1)), file("c.py", Pass, pass(1, 1))
	// The plan leaves shard 3 without a test: no report is expected of it.
	emptyThree := func(plan string) []int {
		if plan == "P" {
			return []int{3}
		}
		return nil
	}
	for _, tc := range []struct {
		name    string
		reports []*Report
		empty   func(string) []int
		missing []int
		plan    string
	}{
		{"every shard", []*Report{shardReport("0", 0, 3, "P", a), shardReport("1", 1, 3, "P", b), shardReport("2", 2, 3, "P", c)}, nil, nil, "P"},
		{"one missing", []*Report{shardReport("0", 0, 3, "P", a), shardReport("2", 2, 3, "P", c)}, nil, []int{1}, "P"},
		{"a shard again, in a later attempt", []*Report{shardReport("0", 0, 2, "P", a), shardReport("1", 1, 2, "P", b), shardReport("1r", 1, 2, "P", b)}, nil, nil, "P"},
		{"an empty shard", []*Report{shardReport("0", 0, 4, "P", a), shardReport("1", 1, 4, "P", b), shardReport("2", 2, 4, "P", c)}, emptyThree, nil, "P"},
		{"an empty shard under one plan only", []*Report{shardReport("0", 0, 4, "P", a), shardReport("1", 1, 4, "Q", b), shardReport("2", 2, 4, "P", c)}, emptyThree, []int{3}, ""},
		{"the whole suite", []*Report{report("s", false, a, b)}, nil, nil, ""},
		{"a run of one file is no shard", []*Report{shardReport("0", 0, 2, "P", a), report("s", false, b)}, nil, []int{1}, "P"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := Merger{EmptyShards: tc.empty}
			for _, r := range tc.reports {
				require.NoError(t, m.Add(r))
			}
			assert.Equal(t, tc.missing, m.Missing())
			got := m.Report()
			require.NotNil(t, got.Shards)
			assert.Equal(t, tc.missing, got.Shards.Missing)
			assert.Nil(t, got.Partition, "a merge is of no one shard")
			assert.Equal(t, tc.plan, got.Plan)
			if tc.missing != nil {
				assert.False(t, got.Passed, "a merge that lacks a shard has not passed")
			}
		})
	}

	// A merge that lacks a shard, merged again with that shard's report,
	// is complete; one of another count does not merge.
	lacking, err := Merge(shardReport("0", 0, 2, "P", a))
	require.NoError(t, err)
	assert.Equal(t, &Shards{Size: 2, Missing: []int{1}}, lacking.Shards)
	whole, err := Merge(lacking, shardReport("1", 1, 2, "P", c))
	require.NoError(t, err)
	assert.Equal(t, &Shards{Size: 2}, whole.Shards)
	assert.True(t, whole.Passed)
	_, err = Merge(shardReport("a.json", 0, 2, "P", a), shardReport("b.json", 1, 3, "P", c))
	assert.EqualError(t, err, `report "b.json" is of a split into 3 shards, but "a.json" is of 2: shards of different splits do not make one suite report`)
}

// A report without "partition" (written before reports said what they
// cover) is read, merged and written back in its own shape; a merge of it
// cannot tell what is missing.
func TestParse_AnUnscopedReportStaysUnscoped(t *testing.T) {
	old := []byte(`{
  "version": 1,
  "suite": "s",
  "backend": "cuda",
  "passed": true,
  "interrupted": false,
  "elapsed": 1,
  "files": []
}
`)
	r, err := Parse(old)
	require.NoError(t, err)
	assert.True(t, r.Unscoped())
	data, err := Marshal(r)
	require.NoError(t, err)
	assert.Equal(t, string(old), string(data))

	m := Merger{}
	require.NoError(t, m.Add(shardReport("0", 0, 2, "P")))
	require.NoError(t, m.Add(r))
	assert.Nil(t, m.Missing(), "shard 1 may be in the unscoped report")
	got := m.Report()
	assert.True(t, got.Unscoped())
	data, err = Marshal(got)
	require.NoError(t, err)
	assert.NotContains(t, string(data), `"partition"`)

	scoped, err := Parse([]byte(`{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "files": []}`))
	require.NoError(t, err)
	assert.False(t, scoped.Unscoped(), "a run of the whole suite says so with null")
}

func TestParse_AScopeNoRunWritesIsAnError(t *testing.T) {
	for doc, want := range map[string]string{
		`"partition": {"id": 2, "size": 2}`:                        `"partition" is shard 2 of 2; expected a shard from 0 to the count less one, of a count from 1 to 1000000`,
		`"partition": {"id": 0, "size": 0}`:                        `"partition" is shard 0 of 0; expected`,
		`"partition": {"id": 0, "size": 2}, "shards": {"size": 2}`: `"partition" names one shard, but "shards" says the report merges several`,
		`"shards": {"size": 2, "missing": [1, 0]}`:                 `"shards" lists missing shard 0; expected shards from 0 to 1, ascending, each once`,
		`"shards": {"size": 2, "missing": [2]}`:                    `"shards" lists missing shard 2; expected`,
		`"shards": {"size": -1, "missing": []}`:                    `"shards" has "size" -1; expected a count from 0 to 1000000`,
	} {
		_, err := Parse([]byte(`{"version": 1, "suite": "s", "backend": "cuda", ` + doc + `, "files": []}`))
		require.Error(t, err, doc)
		assert.Contains(t, err.Error(), want, doc)
	}
}
