package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoot_MistypedRootIsAnErrorNotAnEmptyGreenRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(file, []byte("# x\n"), 0o644))
	for _, tc := range []struct {
		root, want string
	}{
		{filepath.Join(dir, "nope"), `repository root "` + filepath.Join(dir, "nope") + `": no such file or directory`},
		{file, `repository root "` + file + `" is not a directory`},
	} {
		for _, args := range [][]string{
			{"suites"},
			{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--match-all-labels"},
			{"partition", "--suite", "stage-a-cpu"},
		} {
			f, out, errOut := suitesFactory(tc.root, nil)
			assert.Equal(t, 1, Main(append([]string{"--root", tc.root}, args...), f), "%v", args)
			assert.Contains(t, errOut.String(), tc.want, "%v", args)
			assert.NotContains(t, out.String(), "No tests to run", "%v", args)
		}
	}
}

func TestRoot_NoDiscoveryRootIsAnError(t *testing.T) {
	dir := t.TempDir()
	want := `no discovery root exists below "` + dir + `" (looked for tests/fast, tests/fast-gpu, tests/e2e, tests/ci); pass the repository root with --root` + "\n"
	diff := filepath.Join(dir, "diff")
	require.NoError(t, os.WriteFile(diff, []byte("M\x00tests/e2e/test_x.py\x00"), 0o644))
	for _, args := range [][]string{
		{"suites"},
		{"suites", "--suite", "stage-a-cpu"},
		{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100"},
		{"run", "--hw", "cpu", "--suite", "stage-a-cpu", "--list-only", "--json"},
		{"partition", "--suite", "stage-a-cpu"},
		{"partition", "--suite", "stage-a-cpu", "--id", "0"},
		{"policy"},
	} {
		env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": "[]", "CHANGED_FILES_PATH": diff}
		f, out, errOut := suitesFactory(dir, env)
		assert.Equal(t, 1, Main(append([]string{"--root", dir}, args...), f), "%v", args)
		// policy prints its errors as annotations, the others with "error: ".
		got := strings.TrimPrefix(strings.TrimPrefix(errOut.String(), "::error::"), "error: ")
		assert.Equal(t, want, got, "%v", args)
		assert.NotContains(t, out.String(), "No tests to run", "%v", args)
	}
}

func TestRoot_NoDiscoveryRootStillPassesWhereTheRegistryIsNotRead(t *testing.T) {
	dir := t.TempDir()
	// suites --json is the Python collector's registry, which passes.
	f, out, errOut := suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "suites", "--json"}, f), errOut.String())
	assert.Contains(t, out.String(), `"registrations": []`)
	assert.Contains(t, errOut.String(), `warning: no discovery root exists below "`+dir+`" (looked for tests/fast`)

	// A dispatched run's policy runs every stage without reading the registry.
	f, out, errOut = suitesFactory(dir, map[string]string{"EVENT_NAME": "workflow_dispatch"})
	require.Equal(t, 0, Main([]string{"--root", dir, "policy"}, f), errOut.String())
	assert.Contains(t, out.String(), "Resolved CI policy")

	// A discovery root without tests, and a known suite that no test uses,
	// run zero tests and pass.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests", "e2e"), 0o755))
	f, out, errOut = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100"}, f), errOut.String())
	assert.Contains(t, out.String(), "No tests to run")
	assert.Empty(t, errOut.String())
}

func TestRoot_AnEmptyPathFlagIsAUsageErrorNotTheDefault(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--config", "", "suites"}, "config"},
		{[]string{"suites", "--config="}, "config"},
		{[]string{"suites", "--timings", ""}, "timings"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only", "--timings", ""}, "timings"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only", "--config", ""}, "config"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--json-report="}, "json-report"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--junit-xml", ""}, "junit-xml"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--timings-out", ""}, "timings-out"},
		{[]string{"partition", "--suite", "stage-a-cpu", "--timings", ""}, "timings"},
	} {
		f, out, errOut := suitesFactory(dir, nil)
		assert.Equal(t, 2, Main(append([]string{"--root", dir}, tc.args...), f), "%v", tc.args)
		assert.Contains(t, errOut.String(), "--"+tc.flag+" needs a path, got an empty value", "%v", tc.args)
		assert.Empty(t, out.String(), "%v", tc.args)
	}
}

// Two output flags naming one file would write the second report over the
// first; that is a usage error before anything runs, however the paths are
// spelled (relative, absolute, through a link).
func TestRun_OneFileForTwoReportsIsAUsageError(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("r.json", nil, 0o644))
	require.NoError(t, os.Symlink("r.json", "link.json"))
	run := []string{"--root", dir, "run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json-report", "r.json", "--timings-out", "r.json"}, `--json-report and --timings-out name the same file "r.json"`},
		{[]string{"--junit-xml", "out/x.xml", "--json-report", "./out/../out/x.xml"}, `--junit-xml and --json-report name the same file "./out/../out/x.xml"`},
		{[]string{"--junit-xml", filepath.Join(dir, "r.json"), "--timings-out", "r.json"}, `--junit-xml and --timings-out name the same file "r.json"`},
		{[]string{"--json-report", "link.json", "--timings-out", "r.json"}, `--json-report and --timings-out name the same file "r.json"`},
	} {
		f, out, errOut := suitesFactory(dir, nil)
		assert.Equal(t, 2, Main(append(run, tc.args...), f), "%v", tc.args)
		assert.Contains(t, errOut.String(), tc.want, "%v", tc.args)
		assert.Empty(t, out.String(), "%v", tc.args)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests", "e2e"), 0o755)) // a repository root
	f, _, errOut := suitesFactory(dir, nil)
	assert.Equal(t, 0, Main(append(run, "--list-only", "--json-report", "/dev/null", "--junit-xml", "/dev/null"), f), errOut.String())
}

// A FIFO given as --config or --timings is an error at once: nothing
// writes to it, and waiting would hang the job until it is killed.
func TestMain_FIFOConfigOrTimingsIsAnErrorAtOnce(t *testing.T) {
	root, err := filepath.Abs("../../testdata/sample")
	require.NoError(t, err)
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--config", fifo, "suites"}, `error: read config "` + fifo + `": is a FIFO, not a regular file`},
		{[]string{"suites", "--timings", fifo}, `error: read timings "` + fifo + `": is a FIFO, not a regular file`},
		{[]string{"partition", "--suite", "stage-c-8-gpu-h100", "--size", "2", "--timings", fifo}, `error: read timings "` + fifo + `": is a FIFO, not a regular file`},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only", "--timings", fifo}, `error: read timings "` + fifo + `": is a FIFO, not a regular file`},
		{[]string{"timings", "merge", fifo}, `error: read timings "` + fifo + `": is a FIFO, not a regular file`},
	} {
		f, _, errOut := suitesFactory(root, nil)
		done := make(chan int, 1)
		go func() { done <- Main(append([]string{"--root", root}, tc.args...), f) }()
		select {
		case code := <-done:
			assert.Equal(t, 1, code, "%v", tc.args)
		case <-time.After(20 * time.Second):
			t.Fatalf("%v blocked on the FIFO", tc.args)
		}
		assert.Contains(t, errOut.String(), tc.want, "%v", tc.args)
	}
}

func TestMain_UsageAndUnknownSuiteMessagesSayTheNextStep(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sutes"}, exitUsage,
			"error: unknown command \"sutes\" for \"miles-ci\"\n\nDid you mean this?\n\tsuites\n\nRun 'miles-ci --help' for usage.\n"},
		{[]string{"run", "--hw", "cpu"}, exitUsage,
			"error: the following arguments are required: --suite (or --file FILE alone, to run one registered file)\nRun 'miles-ci run --help' for usage.\n"},
		{[]string{"partition", "--suite", "stage-a-cpu", "--size", "0"}, exitUsage,
			"error: --size must be positive, got 0\nRun 'miles-ci partition --help' for usage.\n"},
		{[]string{"timings", "merge"}, exitUsage,
			"error: no input file given; expected the timings files the shards wrote with run --timings-out\nRun 'miles-ci timings merge --help' for usage.\n"},
		{[]string{"timings", "apply", "--check"}, exitUsage,
			"error: no input file given; expected one or more timings files, as run --timings-out or timings merge writes them, or --from a history\nRun 'miles-ci timings apply --help' for usage.\n"},
		{[]string{"report", "merge"}, exitUsage,
			"error: no input file given; expected the reports the shards wrote with run --json-report\nRun 'miles-ci report merge --help' for usage.\n"},
		// The first line is the Python runner's, byte for byte.
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h10"}, exitFailure,
			"error: Unknown suite stage-c-8-gpu-h10 for backend CUDA\nhint: did you mean stage-c-8-gpu-h100?\n"},
		{[]string{"run", "--hw", "cpu", "--suite", "stage-c-8-gpu-h100", "--list-only"}, exitFailure,
			"error: Unknown suite stage-c-8-gpu-h100 for backend CPU\nhint: stage-c-8-gpu-h100 is a cuda suite; select it with --hw cuda\n"},
		{[]string{"run", "--hw", "rocm", "--suite", "stage-c-8-gpu-h10"}, exitFailure,
			"error: Unknown suite stage-c-8-gpu-h10 for backend ROCM\nhint: did you mean stage-c-8-gpu-h100 (a cuda suite, --hw cuda)?\n"},
		{[]string{"run", "--hw", "cuda", "--suite", "nothing-like-it"}, exitFailure,
			"error: Unknown suite nothing-like-it for backend CUDA\n"},
		{[]string{"partition", "--suite", "stage-a-cpus"}, exitFailure,
			"error: Unknown suite stage-a-cpus; known suites: stage-a-cpu, stage-b-cpu, stage-b-2-gpu-h200, stage-c-8-gpu-h100, stage-c-8-gpu-h200, stage-c-4-gpu-h200, stage-c-2-gpu-h200, stage-c-4-gpu-mi350, nightly-stage-c-8-gpu-mi350, nightly-stage-c-4-gpu-mi350, nightly-stage-c-2-gpu-mi350\nhint: did you mean stage-a-cpu?\n"},
	} {
		f, _, errOut := suitesFactory(runRepo, nil)
		assert.Equal(t, tc.code, Main(append([]string{"--root", runRepo}, tc.args...), f), "%v", tc.args)
		assert.Equal(t, tc.want, errOut.String(), "%v", tc.args)
	}
}

func TestMain_CompletesFlagValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--hw", ""}, "cpu\ncuda\nrocm\n:4\n"},
		{[]string{"run", "--hw", "cpu", "--suite", ""}, "stage-a-cpu\nstage-b-cpu\n:4\n"},
		{[]string{"partition", "--suite", "stage-a-cpu", "--cadence=n"}, "--cadence=nightly\n:4\n"},
		{[]string{"run", "--labels", "run-ci-fsdp", "run-ci-lo"}, "run-ci-long\nrun-ci-lora\n:4\n"},
		{[]string{"suites", "--suite", "stage-b-"}, "stage-b-cpu\nstage-b-2-gpu-h200\n:4\n"},
		{[]string{"suites", "rename", "stage-b-"}, "stage-b-cpu\nstage-b-2-gpu-h200\n:4\n"},
		{[]string{"suites", "rename", "stage-b-cpu", ""}, ":4\n"}, // the new name is the user's
		{[]string{"run", "--timings", ""}, "json\n:8\n"},          // a path: the shell completes files, the JSON ones
	} {
		f, out, _ := suitesFactory(runRepo, nil)
		require.Equal(t, 0, Main(append([]string{"__complete", "--root", runRepo}, tc.args...), f), "%v", tc.args)
		assert.Equal(t, tc.want, out.String(), "%v", tc.args)
	}
}

func TestRoot_NoDiscoveryRootIsAnAnnotationInGitHubActions(t *testing.T) {
	dir := t.TempDir()
	f, _, errOut := suitesFactory(dir, map[string]string{"GITHUB_ACTIONS": "true"})
	require.Equal(t, 1, Main([]string{"--root", dir, "run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100"}, f))
	assert.True(t, strings.HasPrefix(errOut.String(), "::error::no discovery root exists below "), errOut.String())
}

// A misspelled subcommand of a group (report, timings, completion) is a
// usage error, not the group's help and exit 0: a typo in a workflow step
// must fail it.
func TestGroups_AnUnknownOrMissingSubcommandIsAUsageError(t *testing.T) {
	for _, args := range [][]string{{"report", "summry", "r.json"}, {"report"}, {"timings", "merg", "t.json"}, {"timings"},
		{"completion", "bsh"}, {"completion"}} {
		f, out, errOut := suitesFactory(".", nil)
		assert.Equal(t, exitUsage, Main(args, f), "%q", args)
		assert.Empty(t, out.String(), "%q: no help on stdout", args)
		assert.Contains(t, errOut.String(), "Run 'miles-ci "+args[0]+" --help' for usage.", "%q", args)
	}
}

// A mistyped subcommand of a group gets the nearest one, as a mistyped
// top-level command does.
func TestGroups_AMistypedSubcommandGetsASuggestion(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "summry", "r.json"}, "error: unknown command \"summry\" for \"miles-ci report\"\n\nDid you mean this?\n\tsummary\n\nRun 'miles-ci report --help' for usage.\n"},
		{[]string{"timings", "mrge"}, "error: unknown command \"mrge\" for \"miles-ci timings\"\n\nDid you mean this?\n\tmerge\n\nRun 'miles-ci timings --help' for usage.\n"},
		{[]string{"completion", "bsh"}, "error: unknown command \"bsh\" for \"miles-ci completion\"\n\nDid you mean this?\n\tbash\n\nRun 'miles-ci completion --help' for usage.\n"},
		{[]string{"report", "xyzzy"}, "error: unknown command \"xyzzy\" for \"miles-ci report\"\nRun 'miles-ci report --help' for usage.\n"},
	} {
		f, _, errOut := suitesFactory(".", nil)
		assert.Equal(t, exitUsage, Main(tc.args, f), "%q", tc.args)
		assert.Equal(t, tc.want, errOut.String(), "%q", tc.args)
	}
	f, out, errOut := suitesFactory(".", nil)
	require.Equal(t, 0, Main([]string{"completion", "bash"}, f), errOut.String())
	assert.Contains(t, out.String(), "bash completion")
}

// The commands a stop signal lets finish are declared where each is built
// (Annotations: finishOnSignal(...)) and found by walking the tree: among
// them are the five root.go listed by hand before (run and the four that
// write files of their own), every one says why, and a command that only
// reads and prints is not one. A new command that writes files declares
// it in its own file; this list need not grow.
func TestRoot_TheCommandsASignalLetsFinish(t *testing.T) {
	f, _, _ := suitesFactory(t.TempDir(), nil)
	var got []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		if finishes(c) {
			got = append(got, c.CommandPath())
			assert.NotEmpty(t, c.Annotations[finishKey], "%s says why it finishes", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(f))
	assert.Subset(t, got, []string{
		"miles-ci run", "miles-ci report merge", "miles-ci report summary",
		"miles-ci timings merge", "miles-ci timings apply",
	})
	for _, readOnly := range []string{"miles-ci suites", "miles-ci policy", "miles-ci partition", "miles-ci lint", "miles-ci history flaky", "miles-ci report hosts"} {
		assert.NotContains(t, got, readOnly)
	}
}
