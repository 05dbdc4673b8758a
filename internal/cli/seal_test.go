//go:build linux

package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/testutil"
)

// procProbe is a test that reads what a test of the pull request's could
// of itself and of each of its ancestors up to the process $STOP_AT (the
// go test that started miles-ci): /proc/PID/cmdline and /proc/PID/environ,
// appended to the file $FOUND, each process's after a "== PID" line.
const procProbe = `p=$$
n=0
while [ "$p" -gt 1 ] && [ "$p" != "$STOP_AT" ] && [ "$n" -lt 20 ]; do
  echo "== $p" >> "$FOUND"
  cat "/proc/$p/cmdline" >> "$FOUND" || echo "cmdline unreadable" >> "$FOUND"
  echo >> "$FOUND"
  cat "/proc/$p/environ" >> "$FOUND" || echo "environ unreadable" >> "$FOUND"
  echo >> "$FOUND"
  parent=
  while read -r key value; do
    if [ "$key" = "PPid:" ]; then parent=$value; fi
  done < "/proc/$p/status"
  p=$parent
  n=$((n + 1))
done`

// The history's URL holds a password, and a test runs the pull request's
// code: it reads nothing of the URL in /proc, neither in its own entries
// nor in those of its ancestors up to miles-ci, whether the URL was given
// by MILES_CI_HISTORY_URL or by --history (the Python-style prefix
// --hist too), and the real miles-ci still writes every row to the store
// and says which of the two named it.
func TestSealHistoryURL_TheTestsCannotReadTheURLInProc(t *testing.T) {
	testutil.SkipShort(t, "runs that re-execute themselves to hide the URL")
	testutil.NeedLinux(t, "/proc")
	bin := testutil.BuildMilesCI(t)
	srv := testutil.Postgres(t)
	const password = "Hunter2SealedPw"
	unreachable := "postgresql://ci:" + password + "x@/db?host=" + t.TempDir()
	for _, tc := range []struct {
		name  string
		env   string   // MILES_CI_HISTORY_URL, "" for unset
		flag  []string // --history and its value, $DB standing for the database's URL
		where string   // as the run names its store
		rows  bool     // the store is the database: the rows reach it
	}{
		{name: "env", env: "$DB", where: envHistoryURL, rows: true},
		{name: "flag, env too", env: unreachable, flag: []string{"--history", "$DB"}, where: "--history", rows: true},
		{name: "prefix and =", flag: []string{"--hist=$DB"}, where: "--history", rows: true},
		{name: "unreachable flag", flag: []string{"--history", unreachable}, where: "--history"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := srv.NewDatabase(t) + "&password=" + password
			root := execRepo(t, map[string]string{
				"tests/e2e/test_a.py": gpuTest("a", procProbe),
				"tests/e2e/test_b.py": gpuTest("b", ""),
			})
			found := filepath.Join(t.TempDir(), "found")
			reports := t.TempDir()
			args := historyRunArgs(root, 0, 1, filepath.Join(reports, "r.json"))
			for _, a := range tc.flag {
				args = append(args, strings.ReplaceAll(a, "$DB", db))
			}
			env := map[string]string{"FOUND": found, "STOP_AT": strconv.Itoa(os.Getpid()), "SEAL_PROBE": "visible"}
			if tc.env != "" {
				env[envHistoryURL] = strings.ReplaceAll(tc.env, "$DB", db)
			}
			cmd := milesCommand(t, root, env, args...)
			cmd.Path, cmd.Args[0] = bin, bin // the real binary, its main
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), fmt.Sprintf("history: each file's attempts are written to the store %s names as the file finishes\n", tc.where))
			assert.NotContains(t, string(out), password)

			data, err := os.ReadFile(found)
			require.NoError(t, err, "the probe ran: %s", out)
			seen := string(data)
			// The probe read miles-ci's own entries: its arguments and
			// its environment.
			assert.Contains(t, seen, "stage-b-2-gpu-h200")
			assert.Contains(t, seen, "SEAL_PROBE=visible")
			assert.NotContains(t, seen, "unreadable")
			assert.NotContains(t, seen, password, "a test read the URL's password in /proc:\n%s", seen)
			assert.NotContains(t, seen, srv.Socket(), "a test read the URL's host in /proc")

			_, total := reportRows(t, reports)
			require.Equal(t, 2, total)
			if tc.rows {
				assert.Equal(t, total, countRows(t, db), "every attempt reached the store: %s", out)
			} else {
				assert.Contains(t, string(out), "warning: history: the store --history names failed (connect: ")
			}
		})
	}
}

// sealRunArgs replaces every --history of a run, and the value it took, by
// --history=(sealed), leaving everything else where it was, so that the run
// reads the same options from the new command line; a command line with no
// URL, or not a run's, or one the run refuses, is left alone.
func TestSealRunArgs_ReplacesEveryHistoryAndNothingElse(t *testing.T) {
	const url = "postgresql://u:pw@db/h"
	run := []string{"run", "--hw", "cuda", "--suite", "s"}
	for _, tc := range []struct {
		args    []string
		env     string
		want    []string // nil: left alone
		wantURL string
	}{
		{args: run, env: url, want: run, wantURL: url},
		{args: append(run, "--history", url), want: append(run, "--history=(sealed)"), wantURL: url},
		{args: append(run, "--history="+url), env: "postgresql://other", want: append(run, "--history=(sealed)"), wantURL: url},
		{args: []string{"--root", "r", "run", "--hist", url, "--labels", "a", "b"}, want: []string{"--root", "r", "run", "--history=(sealed)", "--labels", "a", "b"}, wantURL: url},
		// The list stops at --history as before: "c" is still no label.
		{args: []string{"run", "--labels", "a", "--history", url, "c"}, want: []string{"run", "--labels", "a", "--history=(sealed)", "c"}, wantURL: url},
		{args: []string{"run", "--history", url, "--history", "", "--root", "run"}, env: url, want: []string{"run", "--history=(sealed)", "--history=(sealed)", "--root", "run"}, wantURL: ""},
		{args: []string{"--root", "run", "run", "--history", "run"}, want: []string{"--root", "run", "run", "--history=(sealed)"}, wantURL: "run"},
		// No URL: nothing to hide.
		{args: run},
		{args: append(run, "--history", ""), env: ""},
		// Not a run, or a run the command line refuses: no test starts.
		{args: []string{"partition", "--hw", "cuda", "--suite", "s"}, env: url},
		{args: []string{"help", "run"}, env: url},
		{args: []string{"--root", "r", "policy"}, env: url},
		{args: append(run, "--history"), env: url},
		{args: append(run, "--re", "1"), env: url}, // ambiguous: --retry-wait-seconds or --retry-timeout-increase
	} {
		out, gotURL, secret := sealRunArgs(tc.args, tc.env)
		if tc.want == nil {
			assert.False(t, secret, "%q", tc.args)
			assert.Nil(t, out, "%q", tc.args)
			continue
		}
		require.True(t, secret, "%q", tc.args)
		assert.Equal(t, tc.want, out, "%q", tc.args)
		assert.Equal(t, tc.wantURL, gotURL, "%q", tc.args)
		// The run reads the same flags and the same leftovers from both.
		before, beforeExtras := normalizedRunArgs(t, tc.args)
		after, afterExtras := normalizedRunArgs(t, out)
		for i, a := range before {
			if strings.HasPrefix(a, "--history=") {
				before[i] = "--history=" + sealedHistory
			}
		}
		assert.Equal(t, before, after, "%q", tc.args)
		assert.Equal(t, beforeExtras, afterExtras, "%q", tc.args)
	}
}

// normalizedRunArgs is args (a run's command line) as the run reads it:
// its flags normalized (argparse.Normalize) and the arguments none took.
func normalizedRunArgs(t *testing.T, args []string) ([]string, []string) {
	t.Helper()
	root := NewCmdRoot(&Factory{Out: io.Discard, ErrOut: io.Discard, Root: "."})
	cmd, rest, err := root.Find(args)
	require.NoError(t, err)
	require.Equal(t, "miles-ci run", cmd.CommandPath())
	cmd.InheritedFlags()
	out, extras, err := argparse.Normalize(cmd.Flags(), rest)
	require.NoError(t, err)
	return out, extras
}

// A URL that cannot be hidden (here, more than a pipe holds) leaves the run
// as it was before: one warning says that its tests can read the URL, the
// store is still tried, and the run's verdict and status are unchanged.
func TestSealHistoryURL_ARunThatCannotHideTheURLGoesOnAndSaysSo(t *testing.T) {
	testutil.NeedLinux(t, "a pipe's capacity")
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	url := "postgresql://u:pw@/db?host=" + t.TempDir() + "&application_name=" + strings.Repeat("x", 100<<10)
	cmd := milesCommand(t, root, nil, append(historyRunArgs(root, 0, 1, filepath.Join(t.TempDir(), "r.json")), "--history", url)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	assert.Contains(t, stdout.String(), "Test Summary: 1/1 passed")
	assert.Equal(t, 1, strings.Count(stderr.String(), "warning: history: the store's URL could not be hidden from the tests (the secret (102"), stderr.String())
	assert.Contains(t, stderr.String(), "a test can read it in /proc of this process\n")
	assert.Contains(t, stderr.String(), "warning: history: the store --history names failed (")
	assert.NotContains(t, stderr.String()+stdout.String(), "pw@")
}
