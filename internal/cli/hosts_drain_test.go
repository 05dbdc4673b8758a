package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/drain"
	"github.com/radixark/miles-ci/internal/testutil"
)

// drainToken is planted in the environment of every drain test, and
// looked for in everything the command wrote.
const drainToken = "ghp_PLANTEDdrainTOKEN0123456789abcdef"

// drainNow is the drain tests' clock.
var drainNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

// drainReport is a run report of stage-c-8-gpu-h100 (runs_on [h100,
// 8gpu] in the built-in configuration) on runner at sha, started ago
// before drainNow, with one file that failed with an infra cause or
// passed.
func drainReport(runner, run, sha string, ago time.Duration, infra bool) string {
	file := `{"file": "tests/a.py", "status": "PASS", "attempts": 1, "attempts_detail": [{"attempt": 1, "status": "PASS"}]}`
	if infra {
		file = `{"file": "tests/a.py", "status": "FAIL", "attempts": 1, "cause": "infra", "attempts_detail": [{"attempt": 1, "status": "FAIL", "cause": "infra", "fingerprint": "cuda-802"}]}`
	}
	return `{"version": 1, "suite": "stage-c-8-gpu-h100", "backend": "cuda", "partition": {"id": 0, "size": 1}, "plan": "", "shards": null,
 "passed": false, "interrupted": false, "elapsed": 1, "started": "` + drainNow.Add(-ago).Format("2006-01-02T15:04:05.000Z07:00") + `",
 "host": {"runner": "` + runner + `", "hostname": "ct", "repository": "o/r", "run_id": "` + run + `", "run_attempt": "1", "job": "gpu", "sha": "` + sha + `"},
 "files": [` + file + `]}`
}

// drainReports writes the runs of a night: bad failed with CUDA error 802
// a day ago, good passed; old (if given) failed the same way ago.
func drainReports(t *testing.T, badAgo time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"1/bad/report.json":  drainReport("bad", "1", "c1", badAgo, true),
		"1/good/report.json": drainReport("good", "2", "c1", 20*time.Hour, false),
	})
	return dir
}

// drainFleet is the fleet of the tests: bad and good carry the suite's
// labels, g1 an H200's.
func drainFleet(goodStatus string) []testutil.FakeRunner {
	return []testutil.FakeRunner{
		{ID: 11, Name: "bad", Status: "online", Labels: []string{"h100", "8gpu"}},
		{ID: 12, Name: "good", Status: goodStatus, Busy: true, Labels: []string{"h100", "8gpu"}},
		{ID: 13, Name: "g1", Status: "online", Labels: []string{"h200", "8gpu"}},
	}
}

// drainRun runs miles-ci with the fake GitHub's URL and the planted token
// in the environment, and checks that the token is in nothing it wrote.
func drainRun(t *testing.T, g *testutil.FakeGitHub, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	e := map[string]string{"GITHUB_API_URL": g.URL, "GH_TOKEN": drainToken, "GITHUB_REPOSITORY": "o/r"}
	for k, v := range env {
		e[k] = v
	}
	f, stdout, stderr := suitesFactory(".", e)
	f.Now = func() time.Time { return drainNow }
	code := Main(args, f)
	assert.NotContains(t, stdout.String(), drainToken, "the token in stdout")
	assert.NotContains(t, stderr.String(), drainToken, "the token in stderr")
	return code, stdout.String(), stderr.String()
}

// methods are the request methods the fake GitHub saw, in order.
func methods(g *testutil.FakeGitHub) []string {
	var out []string
	for _, r := range g.Requests() {
		out = append(out, strings.SplitN(r, " ", 2)[0])
	}
	return out
}

func assertNoTokenIn(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err == nil {
		assert.False(t, bytes.Contains(data, []byte(drainToken)), "the token in %s", path)
	}
}

func TestReportHostsDrain_DryRunChangesNothing(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
	dir := drainReports(t, 24*time.Hour)
	code, out, errOut := drainRun(t, g, nil, "report", "hosts", dir, "--drain")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "\nVerdict: 1 suspect host of 2\n  bad: 1 job, 0 of 1 file passed; 1 infra failure (cuda-802 ×1)\n")
	assert.True(t, strings.HasSuffix(out, "\nDrain (dry run: --apply removes the labels), on the evidence of the last 2 days:\n"+
		`  bad: would remove label "h100" (runner id 11 of repos/o/r; stage-c-8-gpu-h100 runs on [h100, 8gpu]); evidence: 1 infra failure (cuda-802 ×1)`+"\n"), out)
	assert.Equal(t, []string{"GET"}, methods(g), "a dry run only reads")
	assert.Equal(t, []string{"h100", "8gpu"}, g.Labels("bad"))
}

func TestReportHostsDrain_ApplyRemovesExactlyTheSuspectsLabel(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
	dir := drainReports(t, 24*time.Hour)
	log := filepath.Join(t.TempDir(), "drain.jsonl")
	code, out, errOut := drainRun(t, g, nil, "report", "hosts", dir, "--drain", "--apply", "--drain-log", log)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nDrain (applied), on the evidence of the last 2 days:\n"+
		`  bad: removed label "h100" (runner id 11 of repos/o/r; stage-c-8-gpu-h100 runs on [h100, 8gpu]); evidence: 1 infra failure (cuda-802 ×1)`+"\n"+
		"hint: miles-ci report hosts --restore bad --drain-log "+log+" gives the labels back\n")
	assert.Equal(t, []string{
		"GET /repos/o/r/actions/runners?page=1&per_page=100",
		"DELETE /repos/o/r/actions/runners/11/labels/h100",
	}, g.Requests())
	assert.Equal(t, []string{"8gpu"}, g.Labels("bad"))
	assert.Equal(t, []string{"h100", "8gpu"}, g.Labels("good"))
	assert.Equal(t, []string{"h200", "8gpu"}, g.Labels("g1"))

	data, err := os.ReadFile(log)
	require.NoError(t, err)
	assertNoTokenIn(t, log)
	var rec map[string]any
	require.NoError(t, json.Unmarshal(data, &rec))
	assert.Equal(t, map[string]any{"time": "2026-12-01T09:00:00Z", "action": "drain", "scope": "repos/o/r", "runner_id": 11.0, "runner": "bad",
		"label": "h100", "label_set": []any{"h100", "8gpu"}, "suites": []any{"stage-c-8-gpu-h100"},
		"evidence": []any{"1 infra failure (cuda-802 ×1)"}}, rec)

	// Again: bad no longer carries the set, so nothing more is removed.
	code, out, errOut = drainRun(t, g, nil, "report", "hosts", dir, "--drain", "--apply", "--drain-log", log)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "  bad: kept: no longer carries [h100, 8gpu] (drained before)\n  nothing to drain among the 3 runners of repos/o/r\n")
	assert.Equal(t, []string{"GET", "DELETE", "GET"}, methods(g))

	// --restore gives it back, from the log.
	code, out, errOut = drainRun(t, g, nil, "report", "hosts", "--restore", "bad", "--drain-log", log)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "bad: restored label \"h100\" (runner id 11 of repos/o/r)\n", out)
	assert.Equal(t, "POST /repos/o/r/actions/runners/11/labels", g.Requests()[len(g.Requests())-1])
	assert.ElementsMatch(t, []string{"h100", "8gpu"}, g.Labels("bad"))
	data, err = os.ReadFile(log)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 2)
	assert.Contains(t, lines[1], `"action":"restore","scope":"repos/o/r","runner_id":11,"runner":"bad","label":"h100"`)

	// The log says nothing is left to give back.
	code, _, errOut = drainRun(t, g, nil, "report", "hosts", "--restore", "bad", "--drain-log", log)
	assert.Equal(t, 1, code)
	assert.Equal(t, "error: restore: the drain log \""+log+"\" holds no label drained from runner \"bad\" of repos/o/r and not given back since\n", errOut)
}

func TestReportHostsDrain_NeverTheLastOnlineCarrier(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("offline")...)
	dir := drainReports(t, 24*time.Hour)
	log := filepath.Join(t.TempDir(), "drain.jsonl")
	code, out, errOut := drainRun(t, g, nil, "report", "hosts", dir, "--drain", "--apply", "--drain-log", log)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasSuffix(out, "\nDrain (applied), on the evidence of the last 2 days:\n"+
		"  bad: kept: the last online runner carrying [h100, 8gpu]: draining it would leave stage-c-8-gpu-h100 nowhere to run\n"+
		"  nothing to drain among the 3 runners of repos/o/r\n"), out)
	assert.Equal(t, []string{"GET"}, methods(g))
	assert.Equal(t, []string{"h100", "8gpu"}, g.Labels("bad"))
	data, _ := os.ReadFile(log)
	assert.Empty(t, data, "no change, no record")
}

func TestReportHostsDrain_AnUnreadableListRemovesNothing(t *testing.T) {
	for _, brk := range []string{"error", "garbage", "short", "total"} {
		t.Run(brk, func(t *testing.T) {
			g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
			g.Break(brk)
			dir := drainReports(t, 24*time.Hour)
			log := filepath.Join(t.TempDir(), "drain.jsonl")
			code, _, errOut := drainRun(t, g, nil, "report", "hosts", dir, "--drain", "--apply", "--drain-log", log)
			assert.Equal(t, 1, code)
			assert.True(t, strings.HasPrefix(errOut, "error: drain: nothing drained: the runner list cannot be read whole: GET repos/o/r/actions/runners"), errOut)
			assert.Equal(t, []string{"GET"}, methods(g))
			assert.Equal(t, []string{"h100", "8gpu"}, g.Labels("bad"))
			assertNoTokenIn(t, log)
		})
	}
}

func TestReportHostsDrain_OnlyRecentEvidence(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
	dir := drainReports(t, 3*24*time.Hour)
	code, out, errOut := drainRun(t, g, nil, "report", "hosts", dir, "--drain")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nVerdict: 1 suspect host of 2\n", "the verdict reads every report")
	assert.True(t, strings.HasSuffix(out, "on the evidence of the last 2 days:\n  no suspect host: nothing to drain\n"), out)
	assert.Empty(t, g.Requests(), "nothing to drain asks nothing")

	code, out, errOut = drainRun(t, g, nil, "report", "hosts", dir, "--drain", "--days", "4")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `  bad: would remove label "h100"`)
}

func TestReportHostsDrain_MaxDrainPerLabelSet(t *testing.T) {
	fleet := append(drainFleet("online"), testutil.FakeRunner{ID: 14, Name: "bad2", Status: "online", Labels: []string{"h100", "8gpu"}})
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", fleet...)
	dir := drainReports(t, 24*time.Hour)
	testutil.WriteFile(t, dir, "1/bad2/report.json", drainReport("bad2", "3", "c1", time.Hour, true))
	code, out, errOut := drainRun(t, g, nil, "report", "hosts", dir, "--drain")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `  bad: would remove label "h100"`)
	assert.Contains(t, out, "  bad2: kept: --max-drain 1 reached for [h100, 8gpu]\n")

	code, out, errOut = drainRun(t, g, nil, "report", "hosts", dir, "--drain", "--max-drain", "2")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `  bad: would remove label "h100"`)
	assert.Contains(t, out, `  bad2: would remove label "h100"`)
}

func TestReportHostsDrain_OrganizationRunnersAndTheTokenNeverShows(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
	dir := drainReports(t, 24*time.Hour)
	log := filepath.Join(t.TempDir(), "drain.jsonl")
	code, out, errOut := drainRun(t, g, map[string]string{"GH_TOKEN": "", "GITHUB_TOKEN": drainToken},
		"report", "hosts", dir, "--drain", "--apply", "--org", "org", "--drain-log", log)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, `  bad: removed label "h100" (runner id 11 of orgs/org;`)
	assert.Equal(t, "DELETE /orgs/org/actions/runners/11/labels/h100", g.Requests()[1])
	assertNoTokenIn(t, log)

	// A URL holding the token is refused without being repeated.
	u := strings.Replace(g.URL, "http://", "http://x:"+drainToken+"@", 1)
	code, _, errOut = drainRun(t, g, map[string]string{"GITHUB_API_URL": u}, "report", "hosts", dir, "--drain")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "GITHUB_API_URL holds a user, a password, a query or a fragment (not shown)")

	// A token GitHub refuses.
	code, _, errOut = drainRun(t, g, map[string]string{"GH_TOKEN": "ghp_other"}, "report", "hosts", dir, "--drain")
	assert.Equal(t, 1, code)
	assert.Equal(t, "error: drain: nothing drained: the runner list cannot be read whole: GET repos/o/r/actions/runners: HTTP 401: \"Bad credentials\"\n", errOut)
}

func TestHistoryHostsDrain_ApplyAndRestoreByLabel(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
	dir := drainReports(t, 24*time.Hour)
	log := filepath.Join(t.TempDir(), "drain.jsonl")
	code, out, errOut := drainRun(t, g, nil, "history", "hosts", "--from", dir, "--drain", "--apply", "--drain-log", log, "--repo", "o/r")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "\nDrain (applied), on the evidence of the last 2 days:\n"+
		`  bad: removed label "h100" (runner id 11 of repos/o/r; stage-c-8-gpu-h100 runs on [h100, 8gpu]); evidence: 1 infra failure (cuda-802 ×1)`+"\n"+
		"hint: miles-ci history hosts --restore bad")
	assert.Equal(t, []string{"8gpu"}, g.Labels("bad"))

	code, out, errOut = drainRun(t, g, nil, "history", "hosts", "--restore", "bad", "--label", "h100")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "bad: restored label \"h100\" (runner id 11 of repos/o/r)\n", out)
	assert.ElementsMatch(t, []string{"h100", "8gpu"}, g.Labels("bad"))

	code, out, errOut = drainRun(t, g, nil, "history", "hosts", "--restore", "bad", "--label", "h100")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "bad (runner id 11 of repos/o/r) carries h100 already: nothing to restore\n", out)
}

func TestHostsDrain_FlagsThatMeanNothingAreUsageErrors(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
	dir := drainReports(t, 24*time.Hour)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report", "hosts", dir, "--apply"}, "--apply, --max-drain, --days, --drain-log, --repo, --org and --label go with --drain or --restore"},
		{[]string{"report", "hosts", dir, "--days", "3"}, "--apply, --max-drain, --days, --drain-log, --repo, --org and --label go with --drain or --restore"},
		{[]string{"report", "hosts", dir, "--drain", "--apply"}, "--apply needs --drain-log FILE: every change is recorded so that it can be undone"},
		{[]string{"report", "hosts", dir, "--drain", "--json"}, "--json: the drain prints its plan as text; leave out --json"},
		{[]string{"report", "hosts", dir, "--drain", "--restore", "bad"}, "--drain and --restore: give one of them"},
		{[]string{"report", "hosts", dir, "--drain", "--repo", "o/r", "--org", "org"}, "--repo and --org: the runners are a repository's or an organization's; give one of them"},
		{[]string{"report", "hosts", "--restore", "bad"}, "--restore needs the labels to give back: --drain-log FILE (the drain's records) or --label LABEL"},
		{[]string{"report", "hosts", dir, "--restore", "bad", "--label", "h100"}, `--restore reads no report; leave out "` + dir + `"`},
		{[]string{"report", "hosts", dir, "--drain", "--max-drain", "0"}, `invalid argument "0" for "--max-drain" flag: "0" is not a whole number >= 1 and <= 1048576`},
		{[]string{"history", "hosts", "--from", dir, "--drain", "--label", "x"}, "--label goes with --restore"},
		{[]string{"report", "hosts", dir, "--drain", "--repo", "nope"}, `"nope" is not a repository: expected OWNER/NAME`},
	}
	for _, c := range cases {
		code, _, errOut := drainRun(t, g, nil, c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Equal(t, "error: "+c.want, strings.SplitN(errOut, "\n", 2)[0], "%v", c.args)
	}
	assert.Empty(t, g.Requests())
}

func TestReportHostsDrain_ALogThatCannotBeWrittenOrReadDrainsNothing(t *testing.T) {
	g := testutil.NewFakeGitHub(t, drainToken, "o/r", "org", drainFleet("online")...)
	dir := drainReports(t, 24*time.Hour)
	tmp := t.TempDir()
	notDir := testutil.WriteFile(t, tmp, "file", "")
	broken := testutil.WriteFile(t, tmp, "broken.jsonl", "{\"action\":\"drain\"}\nnot json\n")
	missing := filepath.Join(tmp, "missing", "drain.jsonl")
	for log, want := range map[string]string{
		filepath.Join(notDir, "drain.jsonl"): `error: drain log "` + filepath.Join(notDir, "drain.jsonl") + `": `,
		missing:                              `error: drain log "` + missing + `": `,
		broken:                               "error: " + broken + ":2: not a drain log record: invalid character 'o' in literal null (expecting 'u')\n",
	} {
		code, _, errOut := drainRun(t, g, nil, "report", "hosts", dir, "--drain", "--apply", "--drain-log", log)
		assert.Equal(t, 1, code)
		assert.True(t, strings.HasPrefix(errOut, want), errOut)
	}
	assert.Empty(t, g.Requests(), "the log is checked before the runner list is read")
	assert.Equal(t, []string{"h100", "8gpu"}, g.Labels("bad"))
}

func TestDrainHeader(t *testing.T) {
	cases := []struct {
		name  string
		apply bool
		days  int
		want  string
	}{
		{"a dry run", false, 2, "\nDrain (dry run: --apply removes the labels), on the evidence of the last 2 days:\n"},
		{"applied, one day", true, 1, "\nDrain (applied), on the evidence of the last 1 day:\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, drainHeader(c.apply, c.days))
		})
	}
}

func TestDrainFlags_MaxDrainAndDays(t *testing.T) {
	cases := []struct {
		name                   string
		flags                  drainFlags
		wantMaxDrain, wantDays int
	}{
		{"left out: the defaults", drainFlags{}, 1, 2},
		{"given", drainFlags{MaxDrain: 3, Days: 7}, 3, 7},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.wantMaxDrain, c.flags.maxDrain())
			assert.Equal(t, c.wantDays, c.flags.days())
		})
	}
}

func TestRestoreLabels(t *testing.T) {
	records := []drain.Record{
		{Action: drain.ActionDrain, Scope: "repos/o/r", Runner: "a", Label: "h100"},
		{Action: drain.ActionDrain, Scope: "repos/o/r", Runner: "a", Label: "8gpu"},
		{Action: drain.ActionRestore, Scope: "repos/o/r", Runner: "a", Label: "h100"},
	}
	cases := []struct {
		name    string
		given   []string
		records []drain.Record
		runner  string
		want    []string
	}{
		{"--label wins over the log", []string{"mi350"}, records, "a", []string{"mi350"}},
		{"else the log's labels not given back since", nil, records, "a", []string{"8gpu"}},
		{"another runner's records are not this one's", nil, records, "b", nil},
		{"no log, no --label: nothing", nil, nil, "a", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, restoreLabels(c.given, c.records, "repos/o/r", c.runner))
		})
	}
}
