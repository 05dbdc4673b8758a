package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// hostsFixture is the #2542 shape the hosts topic shows: two runs of a
// two-shard suite, novita-host2 failing with CUDA error 802 and its rerun
// passing on novita-host4.
const hostsFixture = "../../testdata/docs/hosts"

func TestReportHosts_NamesTheHostOfThe2542Runs(t *testing.T) {
	f, stdout, stderr := suitesFactory(".", nil)
	require.Equal(t, 0, Main([]string{"report", "hosts", hostsFixture}, f), stderr.String())
	assert.Empty(t, stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "\nVerdict: 1 suspect host of 2\n  novita-host2: 2 jobs, 0 of 13 files passed; 13 infra failures (cuda-802 ×13); 12 failed files passed on novita-host4 at the same commit\n")

	f, stdout, stderr = suitesFactory(".", nil)
	assert.Equal(t, 1, Main([]string{"report", "hosts", "--strict", "--json", hostsFixture}, f), "--strict fails on a suspect")
	assert.Empty(t, stderr.String(), "the status says it; no message")
	var doc struct {
		Suspects []string `json:"suspects"`
		Hosts    []struct {
			Host         string         `json:"host"`
			Jobs         int            `json:"jobs"`
			FilesRun     int            `json:"files_run"`
			Passed       int            `json:"passed"`
			Failed       int            `json:"failed"`
			Infra        int            `json:"infra"`
			Contradicted int            `json:"contradicted"`
			Fingerprints map[string]int `json:"fingerprints"`
			PassedOn     []string       `json:"passed_on"`
			Suspect      bool           `json:"suspect"`
		} `json:"hosts"`
		Jobs []struct {
			RunID  string `json:"run_id"`
			Host   string `json:"host"`
			Passed int    `json:"passed"`
			Files  int    `json:"files"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &doc), stdout.String())
	assert.Equal(t, []string{"novita-host2"}, doc.Suspects)
	require.Len(t, doc.Hosts, 2)
	h2, h4 := doc.Hosts[0], doc.Hosts[1]
	assert.Equal(t, "novita-host2", h2.Host)
	assert.Equal(t, []any{2, 13, 0, 13, 13, 12, true}, []any{h2.Jobs, h2.FilesRun, h2.Passed, h2.Failed, h2.Infra, h2.Contradicted, h2.Suspect})
	assert.Equal(t, map[string]int{"cuda-802": 13}, h2.Fingerprints)
	assert.Equal(t, []string{"novita-host4"}, h2.PassedOn)
	assert.Equal(t, []any{"novita-host4", 3, 28, 28, 0, 0, false}, []any{h4.Host, h4.Jobs, h4.FilesRun, h4.Passed, h4.Failed, h4.Contradicted, h4.Suspect})
	require.Len(t, doc.Jobs, 5)
	assert.Equal(t, []any{"32101379316", "novita-host2", 0, 12}, []any{doc.Jobs[3].RunID, doc.Jobs[3].Host, doc.Jobs[3].Passed, doc.Jobs[3].Files})

	// A higher bar for contradictions does not clear an infra failure.
	f, stdout, _ = suitesFactory(".", nil)
	assert.Equal(t, 1, Main([]string{"report", "hosts", "--strict", "--min-contradicted", "50", hostsFixture}, f))
	assert.Contains(t, stdout.String(), "  novita-host2: 2 jobs, 0 of 13 files passed; 13 infra failures (cuda-802 ×13)\n")
}

// hostReport is a run report of one shard of suite s on runner at sha,
// with files as JSON entries.
func hostReport(runner, run, sha string, files ...string) string {
	return `{"version": 1, "suite": "s", "backend": "cuda", "partition": {"id": 0, "size": 1}, "plan": "", "shards": null,
 "passed": false, "interrupted": false, "elapsed": 1,
 "host": {"runner": ` + jsonString(runner) + `, "hostname": "ct", "repository": "o/r", "run_id": "` + run + `", "run_attempt": "1", "job": "gpu", "sha": "` + sha + `"},
 "files": [` + strings.Join(files, ",") + `]}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func hostFile(name, status string) string {
	return `{"file": "` + name + `", "status": "` + status + `", "attempts": 1, "attempts_detail": [{"attempt": 1, "status": "` + status + `"}]}`
}

func TestReportHosts_SkipsWhatCannotBePlacedAndSaysSo(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"run-1/shard/report.json": hostReport("h2", "1", "c1", hostFile("a.py", "FAIL"), hostFile("b.py", "FAIL")),
		"run-2/shard/report.json": hostReport("h4", "2", "c1", hostFile("a.py", "PASS"), hostFile("b.py", "PASS")),
		"run-2/old/report.json":   `{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "files": []}`,
		"run-2/older/report.json": `{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "files": []}`,
		"run-2/merged/suite.json": `{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "shards": {"size": 1, "missing": []}, "hosts": [{"runner": "h4"}], "files": []}`,
		"run-2/timings/t.json":    `{"version": 1, "timings": {"a.py": 1}}`,
		"run-2/notes.txt":         "not JSON, not looked at",
	})
	f, stdout, stderr := suitesFactory(".", nil)
	require.Equal(t, 0, Main([]string{"report", "hosts", dir, filepath.Join(dir, "run-1")}, f), stderr.String())
	assert.Equal(t, `warning: skipped "DIR/run-2/merged/suite.json": cannot be placed on a host: a merged report: it does not say which host ran which file (give the shards' own reports)
warning: skipped "DIR/run-2/old/report.json" and 1 more: cannot be placed on a host: no "host" (an older miles-ci wrote it)
warning: skipped "DIR/run-2/timings/t.json": not a run report (a timings file (it has "timings"), not a report; expected a report written by miles-ci run --json-report (timings files go to timings merge, timings apply and --timings))
warning: skipped "DIR/run-1/shard/report.json": repeats a job read before (same run, attempt, job, suite and shard); counted once
`, strings.ReplaceAll(stderr.String(), dir, "DIR"))
	assert.Contains(t, stdout.String(), "\nh2    ct         1     2          0       2       0      2\n")
	assert.Contains(t, stdout.String(), "Verdict: 1 suspect host of 2\n  h2: 1 job, 0 of 2 files passed; 2 failed files passed on h4 at the same commit\n")
}

func TestReportHosts_BadInputsAreOneLineErrors(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"bad.json":        `{"version": 1, "suite": "s"`,
		"empty/x.txt":     "",
		"old/report.json": `{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "files": []}`,
	})
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"a file that is no report", []string{filepath.Join(dir, "bad.json")}, 1, `error: read report "DIR/bad.json": invalid JSON: unexpected end of JSON input`},
		{"a missing file", []string{filepath.Join(dir, "none.json")}, 1, `error: read report "DIR/none.json": open: no such file or directory`},
		{"nothing to analyze", []string{filepath.Join(dir, "empty")}, 1, `error: no run report to analyze in "DIR/empty": give the reports that run --json-report writes, or the directories gh run download fills`},
		{"a threshold of 0", []string{"--min-contradicted", "0", dir}, 2, "error: --min-contradicted must be at least 1"},
		{"no input", nil, 2, "error: no input file given; expected run reports, or directories holding them (gh run download -D DIR)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, stdout, stderr := suitesFactory(dir, nil)
			assert.Equal(t, tt.code, Main(append([]string{"report", "hosts"}, tt.args...), f))
			assert.Empty(t, stdout.String())
			assert.Equal(t, tt.want, strings.ReplaceAll(strings.SplitN(stderr.String(), "\n", 2)[0], dir, "DIR"))
		})
	}
	f, _, stderr := suitesFactory(dir, nil)
	assert.Equal(t, 1, Main([]string{"report", "hosts", filepath.Join(dir, "old")}, f))
	assert.Equal(t, `warning: skipped "DIR/old/report.json": cannot be placed on a host: no "host" (an older miles-ci wrote it)`+"\n"+
		`error: no run report to analyze in "DIR/old": give the reports that run --json-report writes, or the directories gh run download fills`+"\n",
		strings.ReplaceAll(stderr.String(), dir, "DIR"), "every report skipped is no analysis")
}

// A runner name, a hostname and a file come from reports: in the tables
// and the verdict they stay on their line and write no escape sequence.
func TestReportHosts_NamesFromReportsAreInert(t *testing.T) {
	dir := t.TempDir()
	evil := "h2\n::error::forged\x1b[2J\t\u202e"
	testutil.WriteTree(t, dir, map[string]string{
		"a.json": hostReport(evil, "1", "c1", hostFile("a.py", "FAIL"), hostFile("b.py", "FAIL")),
		"b.json": hostReport("h4", "2", "c1", hostFile("a.py", "PASS"), hostFile("b.py", "PASS")),
	})
	f, stdout, stderr := suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"report", "hosts", dir}, f), stderr.String())
	out := stdout.String()
	assert.NotContains(t, out, "\n::error::")
	assert.NotContains(t, out, "\x1b")
	assert.NotContains(t, out, "\u202e")
	assert.Contains(t, out, `  h2\n::error::forged\x1b[2J\t\u202e: 1 job, 0 of 2 files passed;`)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		assert.NotContains(t, line, "\t", "a tab would break the columns")
	}
}

func TestNewCmdReportHosts_ParsesArgumentsIntoOptions(t *testing.T) {
	f, _, _ := suitesFactory(".", nil)
	for argv, want := range map[string]ReportHostsOptions{
		"runs/":                              {Inputs: []string{"runs/"}, MinContradicted: 2},
		"a.json b/ --json --strict":          {Inputs: []string{"a.json", "b/"}, JSON: true, Strict: true, MinContradicted: 2},
		"runs/ --min-contradicted 5":         {Inputs: []string{"runs/"}, MinContradicted: 5},
		"--min-contradicted=1 --strict runs": {Inputs: []string{"runs"}, Strict: true, MinContradicted: 1},
	} {
		var got *ReportHostsOptions
		cmd := NewCmdReportHosts(f, func(o *ReportHostsOptions) error { got = o; return nil })
		cmd.SetArgs(strings.Fields(argv))
		require.NoError(t, cmd.Execute(), argv)
		assert.Equal(t, &want, got, argv)
	}
}

func TestReportHosts_EmptyDirectoryIsNoAnalysis(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "runs"), 0o755))
	f, _, stderr := suitesFactory(dir, nil)
	assert.Equal(t, 1, Main([]string{"report", "hosts", filepath.Join(dir, "runs")}, f))
	assert.Contains(t, stderr.String(), "no run report to analyze")
}
