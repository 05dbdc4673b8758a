package cli

import (
	"os"
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
// command.
func releaseConfig(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "quarantine.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`extends: default
quarantine:
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
`), 0o644))
	return path
}

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

	code, out := askBoth(t, dir, urls, "--config", cfg, "history", "flaky", "--release")
	require.Equal(t, 0, code, out)
	assert.Equal(t, `ENTRY              FILE                       SUITES  RUNS  SINCE       REASON
quarantine.yaml:3  tests/e2e/test_clean_0.py  all     30    2026-11-21  https://github.com/radixark/miles/issues/1
1 quarantine entry to delete: the file passed its last 10 runs at the first attempt (SINCE: the earliest of them); 4 kept: 2 failed or passed only on a retry in its last 10 runs, 2 ran fewer times
`, out)

	_, out = askBoth(t, dir, urls, "--config", cfg, "history", "flaky", "--release", "--clean-runs", "5")
	assert.Equal(t, `ENTRY               FILE                        SUITES  RUNS  SINCE       REASON
quarantine.yaml:3   tests/e2e/test_clean_0.py   all     30    2026-11-26  https://github.com/radixark/miles/issues/1
quarantine.yaml:10  tests/e2e/test_clean_pr.py  all     5     2026-11-01  slow teardown
2 quarantine entries to delete: the file passed its last 5 runs at the first attempt (SINCE: the earliest of them); 3 kept: 2 failed or passed only on a retry in its last 5 runs, 1 ran fewer times
`, out)

	// The nightlies' latest run alone: night 29, where test_c and test_a
	// passed at once; the pull requests' file has no nightly run. A reason
	// that would start a workflow command is quoted.
	_, out = askBoth(t, dir, urls, "--config", cfg, "history", "flaky", "--release", "--clean-runs", "1", "--cadence", "nightly")
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
		{"--release", "--json"},
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
