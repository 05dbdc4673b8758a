package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/suiterun"
	"github.com/radixark/miles-ci/internal/testutil"
)

// execFactory is a Factory over a repository root with buffers and the
// given environment only.
func execFactory(root string, env map[string]string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &Factory{
		Out: &out, ErrOut: &errOut, Root: root,
		Getenv:    func(k string) string { return env[k] },
		LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Now:       time.Now,
	}, &out, &errOut
}

// shellFactory is execFactory whose runs start the test files with sh: they
// are shell scripts (see testutil.Launcher).
func shellFactory(root string, env map[string]string) (*Factory, *bytes.Buffer, *bytes.Buffer) {
	f, out, errOut := execFactory(root, env)
	f.Start = (&testutil.Launcher{Shell: true}).Start
	return f, out, errOut
}

func execRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	return testutil.TempTree(t, files)
}

func gpuRegs(names ...string) []registry.Registration {
	regs := make([]registry.Registration, len(names))
	for i, n := range names {
		regs[i] = registry.Registration{File: n, Backend: config.CUDA, Suite: "s", EstTime: 1, Labels: []string{}}
	}
	return regs
}

// testPlan is a planned suite of the given registrations under the default
// policy.
func testPlan(backend config.Backend, continueOnError bool, regs []registry.Registration) *suite.Plan {
	return &suite.Plan{Backend: backend, Suite: config.Suite{Name: "s"}, ContinueOnError: continueOnError, Enabled: regs, Tests: regs}
}

// decideAndExecute decides the gate of p's run, as run does before it
// executes the suite, and executes it, under an empty configuration.
func decideAndExecute(ctx context.Context, f *Factory, opts *RunOptions, p *suite.Plan) error {
	cfg := &config.Config{}
	gate := suiterun.DecideGate(p.Backend, p.Suite.Name, f.Getenv, opts.GateHook, opts.NoGate, cfg.Gate)
	return executeSuite(ctx, f, opts, cfg, p, gate)
}

func execOptions() *RunOptions {
	return &RunOptions{selectionFlags: selectionFlags{Suite: "s"}, Limits: runner.Limits{TimeoutPerFile: 30, MaxAttempts: 2, RetryWaitSeconds: 0, RetryTimeoutIncrease: 600}}
}

func TestExecuteSuite_GitHubActionsMarkersReportsAndStepSummary(t *testing.T) {
	root := execRepo(t, map[string]string{
		"t/a|b.py": "exit 3\n",
		"t/ok.py":  "echo fine\n",
	})
	tmp := t.TempDir()
	summary := filepath.Join(tmp, "summary.md")
	f, out, _ := shellFactory(root, map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary})
	opts := execOptions()
	opts.JSONReport = filepath.Join(tmp, "report.json")
	opts.JUnitXML = filepath.Join(tmp, "junit.xml")
	opts.TimingsOut = filepath.Join(tmp, "timings.json")
	require.NoError(t, os.WriteFile(opts.TimingsOut, []byte(`{"version": 1, "timings": {"other/shard.py": 12.5}}`), 0o644))

	err := decideAndExecute(context.Background(), f, opts, testPlan(config.CUDA, true, gpuRegs("t/a|b.py", "t/ok.py")))
	var exit *ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 1, exit.Code)

	var markers []string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "::") || strings.HasPrefix(l, "[1/2] ") || strings.HasPrefix(l, "[2/2] ") {
			markers = append(markers, elapsedRE.ReplaceAllString(l, "elapsed=*s"))
		}
	}
	assert.Equal(t, []string{
		"::group::t/a|b.py  (1/2 est=1s attempt=1)", "::endgroup::", "[1/2] t/a|b.py  FAIL  elapsed=*s exit=3",
		"::group::t/ok.py  (2/2 est=1s attempt=1)", "::endgroup::", "[2/2] t/ok.py  PASS  elapsed=*s",
	}, markers)

	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "| `t/a\\|b.py` | FAIL | 1 |")
	assert.Contains(t, string(md), "| exit code 3 |")
	assert.Contains(t, string(md), "| `t/ok.py` | PASS | 1 |")

	var rep struct {
		Passed bool `json:"passed"`
		Files  []struct {
			File     string `json:"file"`
			Status   string `json:"status"`
			ExitCode *int   `json:"exit_code"`
		} `json:"files"`
	}
	data, err := os.ReadFile(opts.JSONReport)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &rep))
	assert.False(t, rep.Passed)
	require.Len(t, rep.Files, 2)
	assert.Equal(t, "FAIL", rep.Files[0].Status)
	assert.Equal(t, 3, *rep.Files[0].ExitCode)

	var timings struct {
		Timings    map[string]float64           `json:"timings"`
		MeasuredIn map[string]map[string]string `json:"measured_in"`
	}
	data, err = os.ReadFile(opts.TimingsOut)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &timings))
	assert.Contains(t, timings.Timings, "other/shard.py", "merged into the existing file")
	assert.Contains(t, timings.Timings, "t/ok.py")
	assert.NotContains(t, timings.Timings, "t/a|b.py", "failed files have no timing")
	// Each file names the run that measured it, for timings apply; the
	// file merged into said nothing of its own.
	assert.Equal(t, map[string]map[string]string{"t/ok.py": {"suite": "s", "backend": "cuda"}}, timings.MeasuredIn)

	junit, err := os.ReadFile(opts.JUnitXML)
	require.NoError(t, err)
	assert.Contains(t, string(junit), `<failure message="exit code 3" type="FAIL"></failure>`)
}

func TestExecuteSuite_NoMarkersOutsideGitHubActions(t *testing.T) {
	root := execRepo(t, map[string]string{"ok.py": "echo fine\n"})
	for _, v := range []string{"", "1", "TRUE"} {
		f, out, _ := shellFactory(root, map[string]string{"GITHUB_ACTIONS": v})
		require.NoError(t, decideAndExecute(context.Background(), f, execOptions(), testPlan(config.CUDA, false, gpuRegs("ok.py"))))
		assert.NotContains(t, out.String(), "::group::", "GITHUB_ACTIONS=%q", v)
		assert.NotContains(t, out.String(), "[1/1] ", "GITHUB_ACTIONS=%q", v)
		assert.Contains(t, out.String(), "Test Summary: 1/1 passed\n")
	}
}

func TestExecuteSuite_GateDirCreatedForCUDAWithNeon(t *testing.T) {
	// The child leaves a record and a directory nobody may enter.
	root := execRepo(t, map[string]string{"g.py": `d="${MILES_CI_GATE_RECORD_DIR--}"
echo "record=$d"
if [ "$d" != - ]; then
    printf '%s\n' '{"metric": "m", "series": [[1, 2]]}' > "$d/r.jsonl"
    mkdir "$d/locked"
    chmod 0 "$d/locked"
fi
`})
	// The temporary directory of these runs alone, to see what is left in it.
	t.Setenv("TMPDIR", t.TempDir())
	tests := []struct {
		name    string
		backend config.Backend
		env     map[string]string
		want    string // prefix of the record dir the child saw
	}{
		{"cuda with a database gets a fresh directory", config.CUDA, map[string]string{"NEON_DATABASE_URL": "postgres://x"}, filepath.Join(os.TempDir(), "miles-ci-gate-")},
		{"rocm gets none", config.ROCM, map[string]string{"NEON_DATABASE_URL": "postgres://x"}, "-"},
		{"no database, no directory", config.CUDA, map[string]string{}, "-"},
		{"a set base is used", config.ROCM, map[string]string{"MILES_CI_GATE_RECORD_DIR": "/tmp/base-x"}, "/tmp/base-x/g.py-"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if base := tt.env["MILES_CI_GATE_RECORD_DIR"]; base != "" {
				t.Cleanup(func() { os.RemoveAll(base) })
			}
			f, out, _ := shellFactory(root, tt.env)
			require.NoError(t, decideAndExecute(context.Background(), f, execOptions(), testPlan(tt.backend, false, gpuRegs("g.py"))))
			i := strings.Index(out.String(), "record=")
			require.GreaterOrEqual(t, i, 0)
			got := strings.SplitN(out.String()[i+len("record="):], "\n", 2)[0]
			assert.True(t, strings.HasPrefix(got, tt.want), "record dir %q, want prefix %q", got, tt.want)
			if strings.HasPrefix(got, os.TempDir()) {
				assert.True(t, strings.HasSuffix(got, "/attempt-1"))
			}
			// miles-ci removes the temporary directory it made, never one
			// the environment named.
			left, err := os.ReadDir(os.TempDir())
			require.NoError(t, err)
			assert.Empty(t, left, "temporary directories left behind")
			if base := tt.env["MILES_CI_GATE_RECORD_DIR"]; base != "" {
				assert.DirExists(t, base)
			}
		})
	}
}

func TestExecuteSuite_CPURunsPytestAndPassesItsStatus(t *testing.T) {
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pytest"), []byte("#!/bin/sh\necho \"args: $*\"\nexit 4\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	root := t.TempDir()
	f, out, _ := execFactory(root, nil)
	opts := execOptions()
	// A relative path is made absolute (its directory must exist).
	opts.JUnitXML = "testdata/junit.xml"
	regs := []registry.Registration{{File: "a.py", Backend: config.CPU}, {File: "b.py", Backend: config.CPU}}
	err := decideAndExecute(context.Background(), f, opts, testPlan(config.CPU, false, regs))
	var exit *ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 4, exit.Code)
	cwd, _ := os.Getwd()
	junit := filepath.Join(cwd, "testdata/junit.xml")
	assert.Equal(t, "Running: pytest a.py b.py -v -x --junitxml="+junit+"\nargs: a.py b.py -v -x --junitxml="+junit+"\n", out.String())
}

func TestExecuteSuite_InterruptExitsWith128PlusSignal(t *testing.T) {
	root := execRepo(t, map[string]string{"hang.py": "echo $$ >&3\nexec sleep 60\n"})
	f, out, _ := execFactory(root, nil)
	launch := &testutil.Launcher{Shell: true, Ready: true}
	f.Start = launch.Start
	ctx, cancel := context.WithCancelCause(context.Background())
	// The signal comes once hang.py runs, however long it took to start.
	go func() {
		<-launch.Readied()
		cancel(&SignalError{Signal: sigTERM})
	}()
	err := decideAndExecute(ctx, f, execOptions(), testPlan(config.CUDA, false, gpuRegs("hang.py")))
	var exit *ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, 143, exit.Code)
	assert.Contains(t, out.String(), "  hang.py (interrupted)\n")
}

var sigTERM = syscall.SIGTERM

// elapsedRE normalizes wall-clock seconds, which a loaded machine stretches.
var elapsedRE = regexp.MustCompile(`elapsed=\d+s`)

// An output that cannot be written is an error before the first test runs,
// not after the whole suite.
func TestExecuteSuite_OutputPathsAreCheckedBeforeTheFirstTest(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	broken := filepath.Join(tmp, "broken.json")
	require.NoError(t, os.WriteFile(broken, []byte("{"), 0o644))
	dangling := filepath.Join(tmp, "dangling.json")
	require.NoError(t, os.Symlink("/missing/dir/x.json", dangling))
	tests := []struct {
		name string
		set  func(*RunOptions, string)
		path string
		want string
	}{
		{"a missing directory", func(o *RunOptions, p string) { o.JSONReport = p }, "/missing/dir/r.json",
			`--json-report "/missing/dir/r.json": directory "/missing/dir" does not exist`},
		{"a directory that is a file", func(o *RunOptions, p string) { o.JUnitXML = p }, filepath.Join(file, "j.xml"),
			`--junit-xml "` + filepath.Join(file, "j.xml") + `": "` + file + `" is not a directory`},
		{"a path that is a directory", func(o *RunOptions, p string) { o.TimingsOut = p }, tmp,
			`--timings-out "` + tmp + `": is a directory`},
		{"a timings file to merge into that is broken", func(o *RunOptions, p string) { o.TimingsOut = p }, broken,
			broken},
		{"a dangling link into a missing directory", func(o *RunOptions, p string) { o.JSONReport = p }, dangling,
			`--json-report "` + dangling + `": directory "/missing/dir" does not exist`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := execRepo(t, map[string]string{"ran.py": ": > \"$0.ran\"\n"})
			f, out, _ := shellFactory(root, nil)
			opts := execOptions()
			tt.set(opts, tt.path)
			err := decideAndExecute(context.Background(), f, opts, testPlan(config.CUDA, false, gpuRegs("ran.py")))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.NoFileExists(t, filepath.Join(root, "ran.py.ran"), "the test ran")
			assert.Empty(t, out.String())
		})
	}
}

// A CPU suite checks --junit-xml, which pytest writes, and not the two
// reports it ignores.
func TestExecuteSuite_CPUChecksOnlyTheJUnitPath(t *testing.T) {
	bin := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pytest"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	regs := []registry.Registration{{File: "a.py", Backend: config.CPU}}

	f, _, _ := execFactory(t.TempDir(), nil)
	opts := execOptions()
	opts.JUnitXML = "/missing/dir/j.xml"
	err := decideAndExecute(context.Background(), f, opts, testPlan(config.CPU, false, regs))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `--junit-xml "/missing/dir/j.xml": directory "/missing/dir" does not exist`)

	f, _, errOut := execFactory(t.TempDir(), nil)
	opts = execOptions()
	opts.JSONReport = "/missing/dir/r.json"
	require.NoError(t, decideAndExecute(context.Background(), f, opts, testPlan(config.CPU, false, regs)))
	assert.Contains(t, errOut.String(), "--json-report applies to GPU suites only")
}

// run --list-only says whether the metric-history gate will run and why,
// and says nothing about it without the store's variable.
func TestRun_ListOnlyStatesTheGate(t *testing.T) {
	base := []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--labels", "run-ci-lora", "--list-only"}
	neon := map[string]string{"NEON_DATABASE_URL": "postgres://x"}
	tests := []struct {
		name  string
		env   map[string]string
		extra []string
		want  string // the last line; "" for no gate line
	}{
		{"no variable, no line", nil, nil, ""},
		{"the configured gate", neon, nil, "[CI Gate] on: NEON_DATABASE_URL is set; python3 calls tests.ci.ci_utils:run_gate_hook after each passed file"},
		{"--gate-hook wins", neon, []string{"--gate-hook", "true"}, "[CI Gate] on: NEON_DATABASE_URL is set; --gate-hook runs after each passed file"},
		{"--no-gate", neon, []string{"--no-gate"}, "[CI Gate] off: --no-gate"},
		{"--no-gate without the variable", nil, []string{"--no-gate"}, "[CI Gate] off: --no-gate"},
		// The hook runs wherever there are records to read: the line says
		// so, as the run does it.
		{"--gate-hook with a named record base", map[string]string{"MILES_CI_GATE_RECORD_DIR": "/records"}, []string{"--gate-hook", "true"},
			"[CI Gate] on: MILES_CI_GATE_RECORD_DIR is set; --gate-hook runs after each passed file"},
		{"--gate-hook with nothing to read", nil, []string{"--gate-hook", "true"}, ""},
		{"a cpu suite has no gate", neon, []string{"--hw", "cpu", "--suite", "stage-a-cpu"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, err := filepath.Abs(runRepo)
			require.NoError(t, err)
			f, out, _ := execFactory(root, tt.env)
			cmd := NewCmdRun(f, nil)
			cmd.SetArgs(append(append([]string{}, base...), tt.extra...))
			require.NoError(t, cmd.Execute())
			lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
			last := lines[len(lines)-1]
			if tt.want == "" {
				assert.NotContains(t, out.String(), "[CI Gate]")
			} else {
				assert.Equal(t, tt.want, last)
			}
		})
	}
}

func TestRun_NoGateAndGateHookTogetherIsAUsageError(t *testing.T) {
	_, err := parseRun(t, "--hw", "cuda", "--suite", "s", "--no-gate", "--gate-hook", "true")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--no-gate turns the gate off; it cannot be used with --gate-hook")
}

// A run's GPU preflight is the configuration's, with --preflight-timeout's
// timeout when given: the flag replaces one field and nothing else.
func TestRunOptions_PreflightIsTheConfigurationsWithTheFlagsTimeout(t *testing.T) {
	cfg := &config.Config{Preflight: config.DefaultPreflight()}
	cfg.Preflight.QueryTimeout = 7 * time.Second
	withTimeout := cfg.Preflight
	withTimeout.Timeout = 30 * time.Second
	for _, tc := range []struct {
		args []string
		want suiterun.PreflightSpec
	}{
		{nil, suiterun.PreflightSpec{Config: cfg.Preflight}},
		{[]string{"--preflight-timeout", "30s"}, suiterun.PreflightSpec{Config: withTimeout}},
		{[]string{"--no-preflight"}, suiterun.PreflightSpec{Off: true, Config: cfg.Preflight}},
	} {
		opts, err := parseRun(t, append([]string{"--hw", "cuda", "--suite", "s"}, tc.args...)...)
		require.NoError(t, err)
		assert.Equal(t, tc.want, opts.preflight(cfg), "%q", tc.args)
	}
}
