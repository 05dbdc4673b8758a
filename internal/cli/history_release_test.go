package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

// The proposal of history flaky --quarantine over the month (both stores,
// the clock at monthNow) is the configuration's quarantine: pasted below
// `extends: default` it is a configuration internal/config accepts, whose
// entries are the flaky files with their measured rate, the day
// --until-days names and the suite that measured them; the file that
// fails on one host only is not among them.
func TestHistoryFlakyQuarantine_TheProposalIsAConfigurationTheParserAccepts(t *testing.T) {
	dir, urls := monthStores(t)

	_, q := askBoth(t, dir, urls, "history", "flaky", "--cadence", "nightly", "--quarantine", "--until-days", "14")
	assert.Equal(t, `# The files of the run history that failed or passed only on a retry in at
# least 0.0% of their runs (miles-ci history flaky --quarantine): entries of
# the configuration's quarantine to review and paste (miles-ci help config).
quarantine:
  - file: tests/e2e/test_c.py
    reason: 'flaky: 26.7% of 30 runs (0 failed, 8 passed on a retry, 0 failed at a commit where another run passed)'
    until: 2026-12-15
    suites: [stage-c-8-gpu-h100]
  - file: tests/e2e/test_a.py
    reason: 'flaky: 20.0% of 30 runs (6 failed, 0 passed on a retry, 0 failed at a commit where another run passed)'
    until: 2026-12-15
    suites: [stage-c-8-gpu-h100]
# Left out, failing on one host only (see miles-ci history hosts):
#   tests/e2e/test_b.py (stage-c-8-gpu-h100): only on runner-x
`, q)

	cfg, err := config.Parse(".miles-ci.yaml", []byte("extends: default\n"+q))
	require.NoError(t, err)
	require.Len(t, cfg.Quarantine, 2)
	for i, file := range []string{"tests/e2e/test_c.py", "tests/e2e/test_a.py"} {
		e := cfg.Quarantine[i]
		assert.Equal(t, file, e.File)
		assert.Equal(t, "2026-12-15", e.UntilText())
		assert.Equal(t, []string{monthSuite}, e.Suites)
		assert.False(t, e.Expired(monthNow), "a new entry protects")
	}
	assert.Contains(t, cfg.Quarantine[0].Reason, "26.7% of 30 runs")

	// Without --until-days: 30 days from today. Every file of both suites
	// is its own entry, and the list still parses.
	_, q = askBoth(t, dir, urls, "history", "flaky", "--min-rate", "0.2", "--quarantine")
	assert.True(t, strings.HasPrefix(q, "# The files of the run history that failed or passed only on a retry in at\n# least 20.0% of their runs"), q)
	assert.Equal(t, 3, strings.Count(q, "    until: 2026-12-31\n"), q)
	assert.Contains(t, q, "  - file: tests/e2e/test_d.py\n    reason: 'flaky: 100.0% of 5 runs (5 failed, 0 passed on a retry, 0 failed at a commit where another run passed)'\n    until: 2026-12-31\n    suites: [stage-b-2-gpu-h200]\n")
	cfg, err = config.Parse(".miles-ci.yaml", []byte("extends: default\n"+q))
	require.NoError(t, err)
	assert.Len(t, cfg.Quarantine, 3)
}

// releaseConfig writes a configuration quarantining files of the month:
// test_clean_0 (30 clean runs), test_c (a retry every fourth night),
// test_clean_pr (5 clean runs of the pull requests' suite), test_clean_1
// in a suite that never ran it, and test_a, whose reason is a workflow
// command; beside it, the files' registrations (the entries are checked
// against them, as run checks them), their suites the month's.
func releaseConfig(t *testing.T) string {
	return releaseConfigOf(t, releaseEntries)
}

// releaseConfigOf writes the configuration of entries (the text of the
// quarantine: list after its key, from its first line break) in a
// repository of the month's registrations, and returns its path; the
// repository is its directory.
func releaseConfigOf(t *testing.T, entries string) string {
	t.Helper()
	files := map[string]string{"quarantine.yaml": "extends: default\nquarantine:" + entries}
	for file, suite := range map[string]string{
		"test_clean_0": monthSuite, "test_c": monthSuite, "test_a": monthSuite,
		"test_clean_pr": monthPRSuite, "test_clean_1": monthPRSuite,
	} {
		files["tests/e2e/"+file+".py"] = fmt.Sprintf("register_cuda_ci(est_time=60, suite=%q, labels=[\"megatron\"])\n", suite)
	}
	return filepath.Join(execRepo(t, files), "quarantine.yaml")
}

// releaseEntries are the quarantine entries of releaseConfig.
const releaseEntries = `
  - file: tests/e2e/test_clean_0.py
    reason: https://github.com/radixark/miles/issues/1
    until: 2027-01-31
  - file: tests/e2e/test_c.py
    reason: flaky
    until: 2027-01-31
    suites: [stage-c-8-gpu-h100]
  - file: tests/e2e/test_clean_pr.py
    reason: slow teardown
    until: 2027-01-31
  - file: tests/e2e/test_clean_1.py
    reason: in another suite
    until: 2027-01-31
    suites: [stage-b-2-gpu-h200]
  - file: tests/e2e/test_a.py
    reason: "::error::forged"
    until: 2027-01-31
`

// history flaky --release lists the quarantined files whose latest runs
// all passed at the first attempt, as entries to delete, alike from both
// stores: test_clean_0 after its 10 latest clean runs (of 30), test_c
// only when its latest run alone is asked for (night 29 was clean, night
// 28 needed a retry), test_clean_pr when 5 runs are enough.
func TestHistoryFlakyRelease_ListsTheEntriesWhoseLatestRunsAllPassed(t *testing.T) {
	dir, urls := monthStores(t)
	// The configuration named from its directory, as a user names it.
	cfgPath := releaseConfig(t)
	t.Chdir(filepath.Dir(cfgPath))
	cfg := filepath.Base(cfgPath)

	code, out := askBoth(t, dir, urls, "--root", ".", "--config", cfg, "history", "flaky", "--release")
	require.Equal(t, 0, code, out)
	assert.Equal(t, `ENTRY              FILE                       SUITES  RUNS  SINCE       REASON
quarantine.yaml:3  tests/e2e/test_clean_0.py  all     30    2026-11-21  https://github.com/radixark/miles/issues/1
1 quarantine entry to delete: the file passed its last 10 runs at the first attempt (SINCE: the earliest of them); 4 kept: 2 failed or passed only on a retry in its last 10 runs, 2 ran fewer times
`, out)

	_, out = askBoth(t, dir, urls, "--root", ".", "--config", cfg, "history", "flaky", "--release", "--clean-runs", "5")
	assert.Equal(t, `ENTRY               FILE                        SUITES  RUNS  SINCE       REASON
quarantine.yaml:3   tests/e2e/test_clean_0.py   all     30    2026-11-26  https://github.com/radixark/miles/issues/1
quarantine.yaml:10  tests/e2e/test_clean_pr.py  all     5     2026-11-01  slow teardown
2 quarantine entries to delete: the file passed its last 5 runs at the first attempt (SINCE: the earliest of them); 3 kept: 2 failed or passed only on a retry in its last 5 runs, 1 ran fewer times
`, out)

	// The nightlies' latest run alone: night 29, where test_c and test_a
	// passed at once; the pull requests' file has no nightly run. A reason
	// that would start a workflow command is quoted.
	_, out = askBoth(t, dir, urls, "--root", ".", "--config", cfg, "history", "flaky", "--release", "--clean-runs", "1", "--cadence", "nightly")
	assert.Equal(t, `ENTRY               FILE                       SUITES              RUNS  SINCE       REASON
quarantine.yaml:3   tests/e2e/test_clean_0.py  all                 30    2026-11-30  https://github.com/radixark/miles/issues/1
quarantine.yaml:6   tests/e2e/test_c.py        stage-c-8-gpu-h100  30    2026-11-30  flaky
quarantine.yaml:17  tests/e2e/test_a.py        all                 30    2026-11-30  "::error::forged"
3 quarantine entries to delete: the file passed its last 1 run at the first attempt (SINCE: the earliest of them); 2 kept: 2 ran fewer times
`, out)
	assert.Empty(t, forgedLines(out))
}

// A configuration with no quarantine has nothing to release; the flags of
// one form of the answer are refused with another.
func TestHistoryFlakyRelease_NoQuarantineAndBadFlags(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := askAt(t, "history", "flaky", "--release", "--from", dir)
	assert.Equal(t, 0, code, errOut)
	assert.Equal(t, "nothing to release: the configuration quarantines no file (the built-in roster; see `miles-ci config --default`)\n", out)
	for _, args := range [][]string{
		{"--release", "--quarantine"},
		{"--release", "--min-rate", "10%"},
		{"--until-days", "3"},
		{"--release", "--until-days", "3"},
		{"--quarantine", "--until-days", "0"},
		{"--quarantine", "--until-days", "36526"},
		{"--clean-runs", "3"},
		{"--release", "--clean-runs", "0"},
	} {
		code, _, errOut := askAt(t, append([]string{"history", "flaky", "--from", dir}, args...)...)
		assert.Equal(t, exitUsage, code, "%v", args)
		first, _, _ := strings.Cut(errOut, "\n")
		assert.True(t, strings.HasPrefix(first, "error: --"), "%v: the error on one line: %s", args, errOut)
	}
}

// The flags of both forms land in the options, with their defaults when
// left out; nothing runs.
func TestNewCmdHistoryFlaky_ParsesTheQuarantineFlags(t *testing.T) {
	for _, tc := range []struct {
		argv                 string
		quarantine, release  bool
		untilDays, cleanRuns int
		untilGiven, cleanSet bool
	}{
		{"--quarantine", true, false, defaultUntilDays, defaultCleanRuns, false, false},
		{"--quarantine --until-days 14", true, false, 14, defaultCleanRuns, true, false},
		{"--release", false, true, defaultUntilDays, defaultCleanRuns, false, false},
		{"--release --clean-runs 20", false, true, defaultUntilDays, 20, false, true},
	} {
		var got *HistoryFlakyOptions
		f, _, _ := execFactory(t.TempDir(), nil)
		cmd := newCmdHistoryFlaky(f, func(o *HistoryFlakyOptions) error { got = o; return nil })
		cmd.SetArgs(append([]string{"--from", "reports/"}, strings.Fields(tc.argv)...))
		require.NoError(t, cmd.Execute(), tc.argv)
		assert.Equal(t, [2]bool{tc.quarantine, tc.release}, [2]bool{got.Quarantine, got.Release}, tc.argv)
		assert.Equal(t, [2]int{tc.untilDays, tc.cleanRuns}, [2]int{got.UntilDays, got.CleanRuns}, tc.argv)
		assert.Equal(t, [2]bool{tc.untilGiven, tc.cleanSet}, [2]bool{got.untilGiven, got.cleanGiven}, tc.argv)
	}
}

// expiringEntries quarantine three files of the month: test_clean_0's
// entry expired the day before monthNow (its runs are clean all the
// same), test_c needed a retry on night 28, test_clean_pr passed its 5
// runs.
const expiringEntries = `
  - file: tests/e2e/test_clean_0.py
    reason: https://github.com/radixark/miles/issues/1
    until: 2026-11-30
  - file: tests/e2e/test_c.py
    reason: flaky
    owner: some-login
    until: 2027-01-31
    suites: [stage-c-8-gpu-h100]
  - file: tests/e2e/test_clean_pr.py
    reason: slow teardown
    until: 2027-01-31
`

// --release --json gives one object per entry, in the configuration's
// order, with its verdict and why, alike from both stores; an entry past
// its until is expired (it protects nothing), whatever its runs say, in
// the JSON and in the text, where it is listed apart.
func TestHistoryFlakyRelease_JSONGivesEachEntryItsVerdictAndExpiredEntriesAreNamed(t *testing.T) {
	dir, urls := monthStores(t)
	cfgPath := releaseConfigOf(t, expiringEntries)
	t.Chdir(filepath.Dir(cfgPath))

	code, out := askBoth(t, dir, urls, "--root", ".", "--config", "quarantine.yaml", "history", "flaky", "--release", "--clean-runs", "5", "--json")
	require.Equal(t, 0, code, out)
	assert.Equal(t, `{"clean_runs":5,"entries":[`+
		`{"entry":"quarantine.yaml:3","file":"tests/e2e/test_clean_0.py","suites":[],"reason":"https://github.com/radixark/miles/issues/1","until":"2026-11-30","owner":"","runs":30,"runs_checked":5,"runs_not_clean":0,"since":"2026-11-26","expired":true,"verdict":"expired","why":"expired after 2026-11-30: it protects nothing; delete the entry, or renew its until if the reason still holds"},`+
		`{"entry":"quarantine.yaml:6","file":"tests/e2e/test_c.py","suites":["stage-c-8-gpu-h100"],"reason":"flaky","until":"2027-01-31","owner":"some-login","runs":30,"runs_checked":5,"runs_not_clean":1,"since":"2026-11-26","expired":false,"verdict":"keep","why":"1 of its last 5 runs failed or passed only on a retry"},`+
		`{"entry":"quarantine.yaml:11","file":"tests/e2e/test_clean_pr.py","suites":[],"reason":"slow teardown","until":"2027-01-31","owner":"","runs":5,"runs_checked":5,"runs_not_clean":0,"since":"2026-11-01","expired":false,"verdict":"release","why":"passed its last 5 runs at the first attempt: delete the entry"}]}`+"\n", out)

	_, out = askBoth(t, dir, urls, "--root", ".", "--config", "quarantine.yaml", "history", "flaky", "--release", "--clean-runs", "5")
	assert.Equal(t, `ENTRY               FILE                        SUITES  RUNS  SINCE       REASON
quarantine.yaml:11  tests/e2e/test_clean_pr.py  all     5     2026-11-01  slow teardown
1 quarantine entry to delete: the file passed its last 5 runs at the first attempt (SINCE: the earliest of them); 1 kept: 1 failed or passed only on a retry in its last 5 runs
ENTRY              FILE                       SUITES  UNTIL       REASON
quarantine.yaml:3  tests/e2e/test_clean_0.py  all     2026-11-30  https://github.com/radixark/miles/issues/1
1 expired quarantine entry to delete: expired, past its UNTIL it protects nothing, whatever its runs say (renew the until instead if the reason still holds)
`, out)

	// With no entry to release, the line says so of the unexpired ones.
	_, out = askBoth(t, dir, urls, "--root", ".", "--config", "quarantine.yaml", "history", "flaky", "--release", "--clean-runs", "6")
	assert.True(t, strings.HasPrefix(out, "no quarantine entry to release: no quarantined file under an unexpired entry passed its last 6 runs at the first attempt; 2 kept: 1 failed or passed only on a retry in its last 6 runs, 1 ran fewer times\nENTRY "), out)
}

// Before reading the history, --release checks the entries against the
// registrations as run does: an entry naming a file with no registration,
// or a suite the file is not registered in, is the same one-line error at
// its line, and nothing is printed.
func TestHistoryFlakyRelease_AnEntryRunWouldRefuseIsTheSameErrorAtItsLine(t *testing.T) {
	for _, tc := range []struct{ entries, want string }{
		{"\n  - file: tests/e2e/test_gone.py\n    reason: r\n    until: 2027-01-31\n",
			`error: quarantine.yaml:3: quarantine file "tests/e2e/test_gone.py" has no registration: name a registered test file, or delete the entry`},
		{"\n  - file: tests/e2e/test_c.py\n    reason: r\n    until: 2027-01-31\n    suites: [stage-b-2-gpu-h200]\n",
			`error: quarantine.yaml:6: quarantine file "tests/e2e/test_c.py" is not registered in suite "stage-b-2-gpu-h200"; its suites: stage-c-8-gpu-h100`},
	} {
		cfgPath := releaseConfigOf(t, tc.entries)
		t.Chdir(filepath.Dir(cfgPath))
		code, out, errOut := askAt(t, "--root", ".", "--config", "quarantine.yaml", "history", "flaky", "--release", "--from", t.TempDir())
		assert.Equal(t, 1, code)
		assert.Empty(t, out)
		assert.Equal(t, tc.want+"\n", errOut)

		// run gives the same line.
		_, _, runErr := askAt(t, "--root", ".", "--config", "quarantine.yaml", "run", "--hw", "cuda", "--suite", monthSuite, "--list-only")
		assert.Equal(t, tc.want+"\n", runErr)
	}
}
