package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

func TestDefault_DescribesMilesToday(t *testing.T) {
	c := Default()
	assert.Equal(t, []string{"tests/fast", "tests/fast-gpu", "tests/e2e", "tests/ci"}, c.Roots)
	assert.Equal(t, "**/test_*.py", c.Pattern)
	assert.Equal(t, Implicit{Root: "tests/fast", Suite: "stage-a-cpu", EstTime: 1.0}, c.Implicit)
	assert.Equal(t, []RegisterFunc{{"register_cpu_ci", CPU}, {"register_cuda_ci", CUDA}, {"register_rocm_ci", ROCM}}, c.RegisterFuncs)
	assert.Equal(t, []string{"megatron", "model-scripts", "sglang", "fsdp", "short", "long", "ckpt", "lora",
		"eval", "precision", "ft-short", "ft-long", "weight-update", "fully-async", "replay", "qwen35",
		"mooncake", "miles-plugin", "amd"}, c.KnownLabels())
	for _, l := range c.Labels {
		assert.NotEmpty(t, l.Description, "label %s", l.Name)
	}

	type row struct {
		name     string
		backend  Backend
		runsOn   string
		shards   int
		external bool
	}
	var got []row
	for _, s := range c.Suites {
		got = append(got, row{s.Name, s.Backend, strings.Join(s.RunsOn, ","), s.Shards, s.External})
	}
	assert.Equal(t, []row{
		{"stage-a-cpu", CPU, "ubuntu-latest", 4, false},
		{"stage-b-cpu", CPU, "ubuntu-latest", 1, false},
		{"stage-b-2-gpu-h200", CUDA, "h200,2gpu", 1, false},
		{"stage-c-8-gpu-h100", CUDA, "h100,8gpu", 2, false},
		{"stage-c-8-gpu-h200", CUDA, "h200,8gpu", 2, false},
		{"stage-c-4-gpu-h200", CUDA, "h200,4gpu", 3, false},
		{"stage-c-2-gpu-h200", CUDA, "h200,2gpu", 2, false},
		{"stage-c-4-gpu-mi350", ROCM, "self-hosted,amd,mi350,4gpu", 2, false},
		{"nightly-stage-c-8-gpu-mi350", ROCM, "self-hosted,amd,mi350,8gpu", 1, true},
		{"nightly-stage-c-4-gpu-mi350", ROCM, "self-hosted,amd,mi350,4gpu", 1, true},
		{"nightly-stage-c-2-gpu-mi350", ROCM, "self-hosted,amd,mi350,2gpu", 1, true},
	}, got)
	mi350, ok := c.Suite("stage-c-4-gpu-mi350")
	require.True(t, ok)
	assert.Equal(t, "pr-test-rocm.yml", mi350.Workflow)
	assert.Equal(t, "tests/ci/labels.py", c.LabelsFile)

	// needs: the "Depends on" column of the Miles stage document.
	gpuNeeds := []string{"resolve-ci-policy", "resolve-ci-image", "stage-a-cpu"}
	wantNeeds := map[string][]string{
		"stage-a-cpu": {"resolve-ci-policy"}, "stage-b-cpu": {"resolve-ci-policy"},
		"stage-b-2-gpu-h200": gpuNeeds, "stage-c-8-gpu-h100": gpuNeeds, "stage-c-8-gpu-h200": gpuNeeds,
		"stage-c-4-gpu-h200": gpuNeeds, "stage-c-2-gpu-h200": gpuNeeds,
		"stage-c-4-gpu-mi350": {"resolve-ci-policy", "resolve-ci-image"},
	}
	for _, s := range c.Suites {
		assert.Equal(t, wantNeeds[s.Name], s.Needs, s.Name)
	}

	assert.Equal(t, []string{"stage-b-2-gpu-h200", "stage-c-2-gpu-h200", "stage-c-4-gpu-h200",
		"stage-c-4-gpu-mi350", "stage-c-8-gpu-h100", "stage-c-8-gpu-h200"}, c.PRGPUStages())
	assert.Equal(t, map[string]string{"0 15 * * 0-5": "nightly", "0 15 * * 6": "weekly"}, c.Schedules)
	assert.Equal(t, map[string][]string{"nightly": {"long", "ft-long"}, "run-ci-image": {"long", "ft-short", "ft-long"}},
		c.ScopeSubtractions)
	assert.Equal(t, FileRun{ImageRepository: "radixark/miles", MinTimeout: 1800}, c.FileRun)
}

func TestIsNoGPUPath_FollowsTheMilesRules(t *testing.T) {
	c := Default()
	cases := map[string]bool{
		".pre-commit-config.yaml":            true,
		"scripts/tools/sync_example_docs.py": true,
		"docs/ci/00-stage.md":                true,
		"docs/images/a.png":                  true,
		"README.md":                          true,
		"miles/backends/notes.mdx":           true,
		"a/b/c/CHANGELOG.md":                 true,
		"README.MD":                          false, // case-sensitive, like Python's str.endswith
		"./docs/x.png":                       false, // compared as given
		"miles/trainer.py":                   false,
		"scripts/tools/other.py":             false,
		"tests/e2e/test_x.py":                false,
		"docsx/a.png":                        false,
	}
	for path, want := range cases {
		assert.Equal(t, want, c.IsNoGPUPath(path), path)
	}
}

const minimal = `discovery:
  roots: [tests]
  pattern: "**/test_*.py"
register_functions:
  register_cpu_ci: cpu
labels:
  - core: Core tests
suites:
  cpu:
    - name: unit
      shards: 2
`

func TestLoad_RootFileReplacesTheDefault(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, FileName, minimal)
	c, err := Load(dir, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"tests"}, c.Roots)
	assert.Equal(t, []string{"core"}, c.KnownLabels())
	assert.Empty(t, c.PRGPUStages())
	assert.Equal(t, filepath.Join(dir, FileName), c.Source)
}

func TestLoad_ExplicitFileWinsOverRootFile(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, FileName, "not: valid: yaml: [")
	explicit := testutil.WriteFile(t, t.TempDir(), "ci.yaml", minimal)
	c, err := Load(dir, explicit)
	require.NoError(t, err)
	assert.Equal(t, explicit, c.Source)
}

func TestLoad_NoFileMeansDefault(t *testing.T) {
	c, err := Load(t.TempDir(), "")
	require.NoError(t, err)
	assert.Equal(t, "default", c.Source)
	assert.Len(t, c.Suites, 11)
}

// A message names the configuration as a user knows it: the built-in one
// by the command that prints it, a file by its path from the repository
// root; never a file of miles-ci's own tree.
func TestOrigin_NamesTheConfigurationAsAUserKnowsIt(t *testing.T) {
	c, err := Load(t.TempDir(), "")
	require.NoError(t, err)
	assert.Equal(t, "the built-in roster; see `miles-ci config --default`", c.Origin())
	assert.NotContains(t, c.Origin(), "internal/")

	dir := t.TempDir()
	testutil.WriteFile(t, dir, FileName, minimal)
	c, err = Load(dir, "")
	require.NoError(t, err)
	assert.Equal(t, ".miles-ci.yaml", c.Origin())

	inside := testutil.WriteFile(t, dir, "ci/strict.yaml", minimal)
	c, err = Load(dir, inside)
	require.NoError(t, err)
	assert.Equal(t, "ci/strict.yaml", c.Origin())

	outside := testutil.WriteFile(t, t.TempDir(), "ci.yaml", minimal)
	c, err = Load(dir, outside)
	require.NoError(t, err)
	assert.Equal(t, outside, c.Origin())
}

func TestLoad_MissingExplicitFileIsAnError(t *testing.T) {
	_, err := Load(t.TempDir(), "/nonexistent/ci.yaml")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `read config "/nonexistent/ci.yaml"`)
}

func TestLoad_LabelsFileReadsKnownLabelsFromPython(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "tests/ci/labels.py", `"""Labels."""

KNOWN_LABELS: dict[str, str] = {
    "beta": "Second",
    "alpha": "First",  # a comment
}
`)
	testutil.WriteFile(t, dir, FileName, strings.Replace(minimal, "labels:\n  - core: Core tests\n", "labels_file: tests/ci/labels.py\n", 1))
	c, err := Load(dir, "")
	require.NoError(t, err)
	assert.Equal(t, []Label{{"beta", "Second"}, {"alpha", "First"}}, c.Labels)
	assert.True(t, c.IsKnownLabel("alpha"))
	assert.False(t, c.IsKnownLabel("core"))
}

func TestLoad_LabelsFileLabelWithAControlCharacterIsAnError(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "tests/ci/labels.py", "KNOWN_LABELS = {\n    \"a\\nb\": \"x\",\n}\n")
	testutil.WriteFile(t, dir, FileName, strings.Replace(minimal, "labels:\n  - core: Core tests\n", "labels_file: tests/ci/labels.py\n", 1))
	_, err := Load(dir, "")
	require.Error(t, err)
	assert.Equal(t, `tests/ci/labels.py:2: KNOWN_LABELS label "a\nb" holds the control character U+000A`, err.Error())
}

func TestLoad_LabelsFileMissingIsAnError(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, FileName, strings.Replace(minimal, "labels:\n  - core: Core tests\n", "labels_file: tests/ci/labels.py\n", 1))
	_, err := Load(dir, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `read labels file "tests/ci/labels.py"`)
}

// loadWithin runs Load and fails the test if it does not return within 10
// s: a FIFO must be refused, not waited on.
func loadWithin(t *testing.T, root, explicit string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { _, err := Load(root, explicit); done <- err }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked")
		return nil
	}
}

// The configuration and the labels file are read only when they are
// regular files of at most MaxFileSize bytes: a link to /dev/zero, a FIFO
// or a giant file, any of which a pull request can commit, is a one-line
// error at once.
func TestLoad_ConfigAndLabelsFileMustBeSmallRegularFiles(t *testing.T) {
	withLabelsFile := strings.Replace(minimal, "labels:\n  - core: Core tests\n", "labels_file: tests/ci/labels.py\n", 1)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) (explicit string)
		want  string
	}{
		{"root config linked to /dev/zero", func(t *testing.T, dir string) string {
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, FileName)))
			return ""
		}, `read config "DIR/.miles-ci.yaml": is a character device, not a regular file`},
		{"explicit config a FIFO", func(t *testing.T, dir string) string {
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "ci.yaml"), 0o600))
			return filepath.Join(dir, "ci.yaml")
		}, `read config "DIR/ci.yaml": is a FIFO, not a regular file`},
		{"root config too large", func(t *testing.T, dir string) string {
			testutil.WriteFile(t, dir, FileName, minimal+strings.Repeat("# padding\n", MaxFileSize/10))
			return ""
		}, `read config "DIR/.miles-ci.yaml": is larger than 4 MiB`},
		{"labels file linked to /dev/zero", func(t *testing.T, dir string) string {
			testutil.WriteFile(t, dir, FileName, withLabelsFile)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests", "ci"), 0o755))
			require.NoError(t, os.Symlink("/dev/zero", filepath.Join(dir, "tests", "ci", "labels.py")))
			return ""
		}, `DIR/.miles-ci.yaml:6: labels_file "tests/ci/labels.py" leads outside the repository (to "/dev/zero") through a link`},
		{"labels file a FIFO", func(t *testing.T, dir string) string {
			testutil.WriteFile(t, dir, FileName, withLabelsFile)
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests", "ci"), 0o755))
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "tests", "ci", "labels.py"), 0o600))
			return ""
		}, `read labels file "tests/ci/labels.py": is a FIFO, not a regular file`},
		{"labels file linked outside the repository", func(t *testing.T, dir string) string {
			testutil.WriteFile(t, dir, FileName, withLabelsFile)
			outside := testutil.WriteFile(t, t.TempDir(), "labels.py", "KNOWN_LABELS = {}\n")
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests", "ci"), 0o755))
			require.NoError(t, os.Symlink(outside, filepath.Join(dir, "tests", "ci", "labels.py")))
			return ""
		}, `DIR/.miles-ci.yaml:6: labels_file "tests/ci/labels.py" leads outside the repository (to "`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			explicit := tc.setup(t, dir)
			err := loadWithin(t, dir, explicit)
			require.Error(t, err)
			assert.Contains(t, err.Error(), strings.ReplaceAll(tc.want, "DIR", dir))
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// A labels file reached through a link inside the repository is fine.
func TestLoad_LabelsFileLinkInsideTheRepository(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, FileName, strings.Replace(minimal, "labels:\n  - core: Core tests\n", "labels_file: labels.py\n", 1))
	testutil.WriteFile(t, dir, "tests/ci/labels.py", "KNOWN_LABELS = {\"a\": \"A\"}\n")
	require.NoError(t, os.Symlink("tests/ci/labels.py", filepath.Join(dir, "labels.py")))
	c, err := Load(dir, "")
	require.NoError(t, err)
	assert.Equal(t, []Label{{"a", "A"}}, c.Labels)
}

func TestLoad_LabelsFileWinsOverTheListWhenPresent(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, FileName, minimal+"labels_file: tests/ci/labels.py\n")
	c, err := Load(dir, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"core"}, c.KnownLabels(), "no labels.py: the list stands")
	assert.False(t, c.LabelsFromFile)

	testutil.WriteFile(t, dir, "tests/ci/labels.py", "KNOWN_LABELS = {\"core\": \"Core\", \"new\": \"Added\"}\n")
	c, err = Load(dir, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"core", "new"}, c.KnownLabels())
	assert.True(t, c.LabelsFromFile)
}

func TestLoad_DefaultReadsTheRepositorysLabelsPy(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFile(t, dir, "tests/ci/labels.py", "KNOWN_LABELS: dict[str, str] = {\n    \"megatron\": \"M\",\n    \"b200\": \"Blackwell\",\n}\n")
	c, err := Load(dir, "")
	require.NoError(t, err)
	assert.Equal(t, "default", c.Source)
	assert.Equal(t, []string{"megatron", "b200"}, c.KnownLabels())

	c, err = Load(t.TempDir(), "")
	require.NoError(t, err)
	assert.Len(t, c.KnownLabels(), 19, "without labels.py: the built-in list")
}

func TestNewLabelHint_NamesWhereTheLabelsCameFrom(t *testing.T) {
	const github = " + create matching `run-ci-<label>` in GitHub repo Settings -> Labels."
	withFile := t.TempDir()
	testutil.WriteFile(t, withFile, "tests/ci/labels.py", "KNOWN_LABELS = {\"a\": \"A\"}\n")
	custom := testutil.WriteFile(t, t.TempDir(), "ci.yaml", minimal)
	fallback := testutil.WriteFile(t, t.TempDir(), "ci.yaml", minimal+"labels_file: lbl.py\n")
	cases := []struct {
		name, root, config, want string
	}{
		{"labels.py, as Python says it", withFile, "", "To add a new label: edit tests/ci/labels.py" + github},
		{"built-in fallback", t.TempDir(), "",
			"To add a new label: edit tests/ci/labels.py" + github + " (this repository has no tests/ci/labels.py; the labels above are miles-ci's built-in list)"},
		{"a configuration's own list", t.TempDir(), custom, "To add a new label: add it to the labels: list of " + custom + github},
		{"a configuration's fallback list", t.TempDir(), fallback,
			"To add a new label: edit lbl.py" + github + " (this repository has no lbl.py; the labels above are the labels: list of " + fallback + ")"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load(tc.root, tc.config)
			require.NoError(t, err)
			assert.Equal(t, tc.want, c.NewLabelHint())
		})
	}
}

func TestParse_RejectsBadConfigurationsWithFileAndLine(t *testing.T) {
	cases := []struct {
		name string
		edit func(string) string
		want string
	}{
		{"unknown top-level key", func(s string) string { return s + "colour: blue\n" },
			`ci.yaml:12: unknown key "colour" in the configuration`},
		{"unknown suite key", func(s string) string { return strings.Replace(s, "shards: 2", "shard: 2", 1) },
			`ci.yaml:11: unknown key "shard" in a suite`},
		{"shards below one", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 0", 1) },
			`ci.yaml:11: suite "unit" has shards "0"; expected a whole number of at least 1`},
		{"shards beyond any matrix", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 1000000000", 1) },
			`ci.yaml:11: suite "unit" has shards "1000000000"; expected at most 256, the jobs GitHub Actions runs of one matrix`},
		{"shards beyond GitHub's matrix", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 257", 1) },
			`ci.yaml:11: suite "unit" has shards "257"; expected at most 256, the jobs GitHub Actions runs of one matrix`},
		{"shards not a number", func(s string) string { return strings.Replace(s, "shards: 2", "shards: two", 1) },
			`ci.yaml:11: suite "unit" has shards "two"`},
		{"duplicate suite", func(s string) string { return s + "    - name: unit\n" },
			`ci.yaml:12: suite "unit" appears twice under cpu`},
		{"suite under two backends", func(s string) string { return s + "  cuda:\n    - name: unit\n" },
			`ci.yaml:13: suite "unit" is listed under both cpu and cuda`},
		{"empty label", func(s string) string {
			return strings.Replace(s, "  - core: Core tests", "  - core: Core tests\n  - \"\": nothing", 1)
		},
			`ci.yaml:8: a label name is empty`},
		{"duplicate label", func(s string) string {
			return strings.Replace(s, "  - core: Core tests", "  - core: Core tests\n  - core: again", 1)
		},
			`ci.yaml:8: label "core" appears twice`},
		{"control character in a label", func(s string) string {
			return strings.Replace(s, "  - core: Core tests", "  - \"co\\nre\": Core tests", 1)
		},
			`ci.yaml:7: label "co\nre" holds the control character U+000A`},
		{"control character in a suite name", func(s string) string { return strings.Replace(s, "name: unit", "name: \"un\\rit\"", 1) },
			`ci.yaml:10: suite name "un\rit" holds the control character U+000D`},
		{"a workflow command as a suite name", func(s string) string {
			return strings.Replace(s, "name: unit", `name: "::error title=forged::stage"`, 1)
		},
			`ci.yaml:10: suite name "::error title=forged::stage" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)`},
		{"a space in a suite name", func(s string) string { return strings.Replace(s, "name: unit", "name: unit tests", 1) },
			`ci.yaml:10: suite name "unit tests" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)`},
		{"a suite name starting with a digit", func(s string) string { return strings.Replace(s, "name: unit", "name: 8-gpu", 1) },
			`ci.yaml:10: suite name "8-gpu" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)`},
		{"a backtick in a suite name", func(s string) string { return strings.Replace(s, "name: unit", "name: unit`x", 1) },
			"ci.yaml:10: suite name \"unit`x\" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)"},
		{"a discovery root that begins a workflow command", func(s string) string {
			return strings.Replace(s, "roots: [tests]", `roots: [tests, "::error title=forged::x"]`, 1)
		},
			`ci.yaml:2: discovery root "::error title=forged::x" must begin with a letter, digit, '.' or '_': every test file's path begins with it, and paths begin lines`},
		{"an implicit root that begins with a blank", func(s string) string {
			return strings.Replace(s, "roots: [tests]", "roots: [tests]\n  implicit: {root: \" ::x\", suite: unit}", 1)
		},
			`ci.yaml:3: discovery.implicit.root " ::x" must begin with a letter, digit, '.' or '_': its test files' paths begin with it, and paths begin lines`},
		{"an implicit suite that is no job id", func(s string) string {
			return strings.Replace(s, "roots: [tests]", "roots: [tests]\n  implicit: {root: tests, suite: \"a b\"}", 1)
		},
			`ci.yaml:3: discovery.implicit.suite "a b" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)`},
		{"control character in runs_on", func(s string) string { return s + "      runs_on: [\"h100\\x1b\"]\n" },
			`ci.yaml:12: suite "unit": runs_on entry "h100\x1b" holds the control character U+001B`},
		{"control character in needs", func(s string) string { return s + "      needs: [\"a\\tb\"]\n" },
			`ci.yaml:12: suite "unit": needs entry "a\tb" holds the control character U+0009`},
		{"invalid glob", func(s string) string { return strings.Replace(s, `"**/test_*.py"`, `"**/test_[.py"`, 1) },
			`ci.yaml:3: discovery.pattern "**/test_[.py" is not a valid glob pattern`},
		{"invalid no-gpu glob", func(s string) string { return s + "no_gpu_paths: [\"docs/[\"]\n" },
			`ci.yaml:12: no_gpu_paths entry "docs/[" is not a valid glob pattern`},
		{"unknown backend", func(s string) string { return strings.Replace(s, "register_cpu_ci: cpu", "register_cpu_ci: tpu", 1) },
			`ci.yaml:5: register function "register_cpu_ci" has backend "tpu"; expected cpu, cuda or rocm`},
		{"bad schedule cadence", func(s string) string { return s + "schedules:\n  \"0 1 * * *\": hourly\n" },
			`ci.yaml:13: schedule "0 1 * * *" has cadence "hourly"`},
		{"empty job id in needs", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 2\n      needs: [a, \"\"]", 1) },
			`ci.yaml:12: suite "unit" has an empty job id in needs`},
		{"needs not a list", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 2\n      needs: a", 1) },
			`ci.yaml:12: needs must be a list of strings`},
		{"not YAML", func(string) string { return "a: [\n" }, `ci.yaml:`},
		{"an unclosed quote names its own line", func(s string) string { return strings.Replace(s, `"**/test_*.py"`, `"**/test_*.py`, 1) },
			`ci.yaml:3: invalid YAML: a quoted string opened on this line is not closed on it (the parser stopped at line `},
		{"an unclosed single quote, with a # inside it", func(s string) string {
			return strings.Replace(s, `"**/test_*.py"`, `'**/test_*.py  # the pattern`, 1)
		}, `ci.yaml:3: invalid YAML: a quoted string opened on this line`},
		{"an apostrophe in a plain value or a comment opens nothing", func(s string) string {
			return strings.Replace(s, "Core tests", "Core's tests # it's core", 1) + "  - oops\n"
		}, `ci.yaml:8: invalid YAML: did not find expected key`}, // yaml.v3's own line
		{"empty", func(string) string { return "" }, `ci.yaml: the configuration is empty`},
		{"unknown file_run key", func(s string) string { return s + "file_run:\n  image: x\n" },
			`ci.yaml:13: unknown key "image" in file_run`},
		{"image repository with a tag", func(s string) string { return s + "file_run:\n  image_repository: a/b:dev\n" },
			`ci.yaml:13: file_run.image_repository "a/b:dev" must be a non-empty image name without spaces or ':'`},
		{"min timeout zero", func(s string) string { return s + "file_run:\n  min_timeout: 0\n" },
			`ci.yaml:13: file_run.min_timeout "0" must be a whole number of seconds from 1 to 2147483647`},
		{"min timeout not a number", func(s string) string { return s + "file_run:\n  min_timeout: 1.5\n" },
			`ci.yaml:13: file_run.min_timeout "1.5" must be a whole number of seconds`},
		{"gate function without a module", func(s string) string { return s + strings.Replace(gateSection(""), "m:h", "run_gate_hook", 1) },
			`ci.yaml:13: gate.hook "run_gate_hook" must be module:function, as tests.ci.ci_utils:run_gate_hook`},
		{"gate function missing", func(s string) string {
			return s + strings.Replace(gateSection(""), "  registry: m:r\n", "", 1)
		},
			`ci.yaml:13: the gate section has no "registry" function`},
		{"gate timeout zero", func(s string) string { return s + gateSection("timeout: 0") },
			`ci.yaml:13: gate.timeout "0" must be a whole number of seconds from 1 to 2147483647`},
		{"gate unknown key", func(s string) string { return s + gateSection("module: x") },
			`ci.yaml:13: unknown key "module" in gate`},
		{"preflight timeout zero", func(s string) string { return s + "preflight:\n  timeout: 0s\n" },
			`ci.yaml:13: preflight.timeout "0s" must be a positive duration, as 120s, 2m or 1m30s (a bare number is seconds), of at most 2147483647 seconds`},
		{"preflight interval not a duration", func(s string) string { return s + "preflight:\n  interval: soon\n" },
			`ci.yaml:13: preflight.interval "soon" must be a positive duration`},
		{"preflight foreign processes", func(s string) string { return s + "preflight:\n  foreign_processes: kill\n" },
			`ci.yaml:13: preflight.foreign_processes "kill" must be warn or fail`},
		{"preflight unknown key", func(s string) string { return s + "preflight:\n  retries: 3\n" },
			`ci.yaml:13: unknown key "retries" in preflight; expected one of timeout, interval, `},
		{"gpus zero", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 2\n      gpus: 0", 1) },
			`ci.yaml:12: suite "unit" has gpus "0"; expected a whole number from 1 to 1024`},
		{"missing suites", func(s string) string { return s[:strings.Index(s, "suites:")] }, `the configuration has no "suites" section`},
		{"target minutes zero", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 2\n      target_minutes: 0", 1) },
			`ci.yaml:12: suite "unit" has target_minutes "0"; expected a positive number of minutes`},
		{"target minutes a word", func(s string) string {
			return strings.Replace(s, "shards: 2", "shards: 2\n      target_minutes: soon", 1)
		},
			`ci.yaml:12: suite "unit" has target_minutes "soon"; expected a positive number of minutes`},
		{"target minutes infinite", func(s string) string {
			return strings.Replace(s, "shards: 2", "shards: 2\n      target_minutes: .inf", 1)
		},
			`ci.yaml:12: suite "unit" has target_minutes ".inf"; expected a positive number of minutes`},
		{"setup minutes negative", func(s string) string {
			return strings.Replace(s, "shards: 2", "shards: 2\n      target_minutes: 5\n      setup_minutes: -1", 1)
		},
			`ci.yaml:13: suite "unit" has setup_minutes "-1"; expected a number of minutes of at least 0`},
		{"setup minutes as long as the target", func(s string) string {
			return strings.Replace(s, "shards: 2", "shards: 2\n      target_minutes: 5\n      setup_minutes: 5", 1)
		},
			`ci.yaml:13: suite "unit" has setup_minutes 5, not less than its target_minutes 5: no time is left for tests; raise target_minutes or lower setup_minutes`},
		{"default setup minutes longer than a target", func(s string) string {
			s = strings.Replace(s, "suites:\n", "suite_defaults:\n  setup_minutes: 7.5\nsuites:\n", 1)
			return strings.Replace(s, "shards: 2", "shards: 2\n      target_minutes: 6", 1)
		},
			`ci.yaml:14: suite "unit" has setup_minutes 7.5 (suite_defaults.setup_minutes, line 9), not less than its target_minutes 6: no time is left for tests`},
		{"default setup minutes a word", func(s string) string {
			return strings.Replace(s, "suites:\n", "suite_defaults:\n  setup_minutes: soon\nsuites:\n", 1)
		},
			`ci.yaml:9: suite_defaults.setup_minutes "soon" must be a number of minutes of at least 0`},
		{"default setup minutes infinite", func(s string) string {
			return strings.Replace(s, "suites:\n", "suite_defaults:\n  setup_minutes: .inf\nsuites:\n", 1)
		},
			`ci.yaml:9: suite_defaults.setup_minutes ".inf" must be a number of minutes of at least 0`},
		{"suite_defaults unknown key", func(s string) string {
			return strings.Replace(s, "suites:\n", "suite_defaults:\n  target_minutes: 30\nsuites:\n", 1)
		},
			`ci.yaml:9: unknown key "target_minutes" in suite_defaults; expected one of setup_minutes`},
		{"shards not whole", func(s string) string { return strings.Replace(s, "shards: 2", "shards: 1.9", 1) },
			`ci.yaml:11: suite "unit" has shards "1.9"; expected a whole number of at least 1`},
		{"shards a quoted number", func(s string) string { return strings.Replace(s, "shards: 2", `shards: "2"`, 1) },
			`ci.yaml:11: suite "unit" has shards "2"; expected a whole number of at least 1`},
		{"a second document", func(s string) string { return s + "---\nsuites: {}\n" },
			`ci.yaml:12: a second YAML document starts here; the configuration is one document`},
		{"an empty second document", func(s string) string { return s + "---\n" },
			`ci.yaml:12: a second YAML document starts here`},
		{"discovery root above the repository", func(s string) string { return strings.Replace(s, "roots: [tests]", "roots: [tests, ../../..]", 1) },
			`ci.yaml:2: discovery root "../../.." must be a non-empty repository-relative path with / separators that stays inside the repository`},
		{"discovery root leaving by a detour", func(s string) string { return strings.Replace(s, "roots: [tests]", "roots: [tests/../..]", 1) },
			`ci.yaml:2: discovery root "tests/../.."`},
		{"absolute discovery root", func(s string) string { return strings.Replace(s, "roots: [tests]", "roots: [/]", 1) },
			`ci.yaml:2: discovery root "/"`},
		{"labels_file above the repository", func(s string) string {
			return strings.Replace(s, "labels:\n  - core: Core tests\n", "labels_file: ../../../etc/labels.py\n", 1)
		},
			`ci.yaml:6: labels_file "../../../etc/labels.py" must be a repository-relative path with / separators that stays inside the repository`},
		{"absolute labels_file", func(s string) string {
			return strings.Replace(s, "labels:\n  - core: Core tests\n", "labels_file: /etc/labels.py\n", 1)
		},
			`ci.yaml:6: labels_file "/etc/labels.py" must be`},
		{"merge key", func(s string) string {
			return strings.Replace(s, "    - name: unit\n", "    - &base {name: base}\n    - <<: *base\n      name: unit\n", 1)
		},
			`ci.yaml:11: merge keys (<<) are not supported; write the keys out`},
		{"alias bomb", func(s string) string {
			bomb := "x0: &a0 [s, s, s, s, s, s, s, s, s, s]\n"
			for i := 1; i < 9; i++ {
				bomb += fmt.Sprintf("x%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
			}
			return strings.Replace(s, "suites:\n", "schedules:\n  "+strings.ReplaceAll(strings.TrimSuffix(bomb, "\n"), "\n", "\n  ")+"\nsuites:\n", 1)
		},
			`aliases expand the configuration to more than 100000 values; write it out without nested aliases`},
		{"an alias to its own container", func(s string) string { return strings.Replace(s, "roots: [tests]", "roots: &r [tests, *r]", 1) },
			`ci.yaml:2: an alias refers to a value that contains it`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("ci.yaml", []byte(tc.edit(minimal)))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}

// Every GitHub job id is a suite name: Miles's names, and the other forms
// a job id may take.
func TestParse_SuiteNamesAreGitHubJobIDs(t *testing.T) {
	for _, name := range []string{"stage-c-8-gpu-h100", "nightly-stage-c-2-gpu-mi350", "Stage_A", "_private", "x"} {
		c, err := Parse("ci.yaml", []byte(strings.Replace(minimal, "name: unit", "name: "+name, 1)))
		require.NoError(t, err, name)
		assert.Equal(t, name, c.Suites[0].Name)
	}
}

// Aliases are resolved: a list or a string written once under an anchor
// serves several suites.
func TestParse_ResolvesAliases(t *testing.T) {
	doc := strings.Replace(minimal, "    - name: unit\n      shards: 2\n",
		"    - name: unit\n      runs_on: &ub [ubuntu-latest, big]\n      shards: &two 2\n    - name: other\n      runs_on: *ub\n      shards: *two\n", 1)
	c, err := Parse("ci.yaml", []byte(doc))
	require.NoError(t, err)
	require.Len(t, c.Suites, 2)
	assert.Equal(t, []string{"ubuntu-latest", "big"}, c.Suites[1].RunsOn)
	assert.Equal(t, 2, c.Suites[1].Shards)
}

// `miles-ci config --default > .miles-ci.yaml` is the documented way to
// start a repository's own configuration: the copy, found at the root,
// must behave exactly as the built-in one until it is edited.
func TestLoad_ACommittedCopyOfTheDefaultBehavesAsTheDefault(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, ".miles-ci.yaml"), DefaultYAML(), 0o644))
	c, err := Load(root, "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, ".miles-ci.yaml"), c.Source)
	assert.Equal(t, ".miles-ci.yaml", c.Origin())
	want := Default()
	c.Source, want.Source, c.shownAs = "", "", ""
	// Only where a finding points differs: at the file, not the built-in
	// roster.
	for i := range want.Suites {
		want.Suites[i].RunsOnAt.BuiltIn = false
		want.Suites[i].At.BuiltIn = false
	}
	assert.Equal(t, want, c)
}

// gateSection is a gate section whose first line is extra (none when "").
func gateSection(extra string) string {
	s := "gate:\n"
	if extra != "" {
		s += "  " + extra + "\n"
	}
	return s + "  hook: m:h\n  store: m:s\n  provenance: m:p\n  registry: m:r\n"
}

func TestParse_GateSection(t *testing.T) {
	c, err := Parse("ci.yaml", []byte(minimal))
	require.NoError(t, err)
	assert.False(t, c.Gate.Configured, "without a gate section only --gate-hook calls a gate")

	c, err = Parse("ci.yaml", []byte(minimal+gateSection("python: /usr/bin/python3")))
	require.NoError(t, err)
	assert.Equal(t, Gate{Configured: true, Python: "/usr/bin/python3", Hook: "m:h", Store: "m:s", Provenance: "m:p",
		Registry: "m:r", Timeout: 600}, c.Gate)

	assert.Equal(t, Gate{Configured: true, Python: "python3", Hook: "tests.ci.ci_utils:run_gate_hook",
		Store: "tests.ci.ci_utils:build_store_from_env", Provenance: "tests.ci.ci_utils:gate_provenance_from_env",
		Registry: "tests.ci.ci_register:ut_parse_one_file", Timeout: 600}, Default().Gate, "Miles' own gate")

	c, err = Parse("ci.yaml", []byte("extends: default\ngate:\n  python: /opt/py\n  hook: a:b\n  store: a:c\n  provenance: a:d\n  registry: a:e\n"))
	require.NoError(t, err)
	assert.Equal(t, "/opt/py", c.Gate.Python, "extends: default replaces the gate section whole")
}

func TestParse_PreflightSection(t *testing.T) {
	c, err := Parse("ci.yaml", []byte(minimal))
	require.NoError(t, err)
	assert.Equal(t, DefaultPreflight(), c.Preflight, "without the section, the defaults")
	assert.Equal(t, Preflight{Timeout: 120 * time.Second, Interval: 2 * time.Second, QueryTimeout: 5 * time.Second,
		ForeignProcesses: ForeignWarn}, Default().Preflight, "the built-in section says what the defaults are")
	c, err = Parse("ci.yaml", []byte(minimal+"preflight:\n  timeout: 1m30s\n  interval: 3\n  foreign_processes: fail\n"))
	require.NoError(t, err)
	assert.Equal(t, Preflight{Timeout: 90 * time.Second, Interval: 3 * time.Second, QueryTimeout: 5 * time.Second,
		ForeignProcesses: ForeignFail}, c.Preflight, "a bare number is seconds; a key left out keeps its default")
}

func TestSuite_GPUsNeededIsTheGpusKeyElseTheRunnerLabel(t *testing.T) {
	assert.Equal(t, 8, Suite{RunsOn: []string{"h100", "8gpu"}}.GPUsNeeded())
	assert.Equal(t, 4, Suite{RunsOn: []string{"self-hosted", "4-gpu"}}.GPUsNeeded())
	assert.Equal(t, 2, Suite{RunsOn: []string{"h100", "8gpu"}, GPUs: 2}.GPUsNeeded(), "the roster's gpus wins")
	assert.Equal(t, 0, Suite{RunsOn: []string{"ubuntu-latest"}}.GPUsNeeded(), "no count to check")
	s, ok := Default().Suite("stage-c-4-gpu-mi350")
	require.True(t, ok)
	assert.Equal(t, 4, s.GPUsNeeded())
}

func TestParse_FileRunSectionIsOptional(t *testing.T) {
	c, err := Parse("ci.yaml", []byte(minimal))
	require.NoError(t, err)
	assert.Equal(t, FileRun{MinTimeout: 1800}, c.FileRun, "no image repository, the default timeout")
}

func TestParse_ExtendsDefaultReplacesOnlyTheSectionsGiven(t *testing.T) {
	c, err := Parse("ci.yaml", []byte("extends: default\nno_gpu_paths:\n  - \"**/*.txt\"\n"))
	require.NoError(t, err)
	def := Default()
	assert.Equal(t, []string{"**/*.txt"}, c.NoGPUPaths, "the section given replaces the built-in one whole")
	assert.Equal(t, def.Suites, c.Suites, "the others are the built-in ones")
	assert.Equal(t, def.KnownLabels(), c.KnownLabels())
	assert.Equal(t, def.Roots, c.Roots)
	assert.Equal(t, "ci.yaml", c.Source)

	// labels and labels_file are one section: giving either drops both.
	c, err = Parse("ci.yaml", []byte("extends: default\nlabels_file: tests/ci/labels.py\n"))
	require.NoError(t, err)
	assert.Equal(t, "tests/ci/labels.py", c.LabelsFile)
}

func TestParse_ExtendsErrorsNameTheirFileAndLine(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"unknown key", "extends: default\n\ncolour: blue\n", `ci.yaml:3: unknown key "colour" in the configuration`},
		{"another base", "extends: upstream\n", `ci.yaml:1: extends must be "default" (the built-in configuration)`},
		{"a bad section of the file", "extends: default\ndiscovery:\n  roots: [tests]\n", `ci.yaml:3: discovery needs roots and pattern`},
	} {
		_, err := Parse("ci.yaml", []byte(tc.doc))
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

// A file that extends the default without a labels section has the
// built-in labels, and says so: not the labels: list of a file that has none.
func TestLoad_ExtendingTheDefaultKeepsTheBuiltInLabelsAndSaysSo(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, ".miles-ci.yaml"),
		[]byte("extends: default\nno_gpu_paths: [\"docs/**\"]\n"), 0o644))
	c, err := Load(root, "")
	require.NoError(t, err)
	assert.Equal(t, Default().KnownLabels(), c.KnownLabels())
	assert.Equal(t, "miles-ci's built-in list", c.LabelsSource())
	assert.NotContains(t, c.NewLabelHint(), ".miles-ci.yaml")
}

// An overlay's suites section merges into the built-in roster by suite
// name: a built-in name replaces that suite, a new one is added, and every
// other built-in suite stays.
func TestParse_ExtendsDefaultMergesSuitesByName(t *testing.T) {
	doc := `extends: default
suites:
  cuda:
    - name: stage-c-8-gpu-b200
      runs_on: [b200, 8gpu]
    - name: stage-c-8-gpu-h100
      runs_on: [h100, 8gpu]
      shards: 5
  rocm:
    - name: stage-b-cpu
      runs_on: [mi350]
`
	c, err := Parse("ci.yaml", []byte(doc))
	require.NoError(t, err)
	def := Default()
	names := func(cfg *Config) []string {
		var out []string
		for _, s := range cfg.Suites {
			out = append(out, string(s.Backend)+":"+s.Name)
		}
		return out
	}
	got := names(c)
	assert.Len(t, got, len(def.Suites)+1, "one suite added; none dropped")
	for _, n := range names(def) {
		if n != "cpu:stage-b-cpu" {
			assert.Contains(t, got, n)
		}
	}
	assert.Contains(t, got, "cuda:stage-c-8-gpu-b200")
	assert.Contains(t, got, "rocm:stage-b-cpu", "a suite of a built-in name may move to another backend")
	assert.NotContains(t, got, "cpu:stage-b-cpu")
	h100, ok := c.Suite("stage-c-8-gpu-h100")
	require.True(t, ok)
	assert.Equal(t, 5, h100.Shards, "the file's suite replaces the built-in one")
	defH100, _ := def.Suite("stage-c-8-gpu-h100")
	cuda := func(list []string) (out []string) {
		for _, n := range list {
			if strings.HasPrefix(n, "cuda:") {
				out = append(out, n)
			}
		}
		return out
	}
	assert.Equal(t, append(cuda(names(def)), "cuda:stage-c-8-gpu-b200"), cuda(got), "replaced in its place, the new one last")
	assert.NotEqual(t, defH100.Shards, h100.Shards)
	require.NotNil(t, c.Overlay)
	assert.Equal(t, []string{"stage-c-8-gpu-b200"}, c.Overlay.SuitesAdded)
	assert.Equal(t, []string{"stage-c-8-gpu-h100", "stage-b-cpu"}, c.Overlay.SuitesReplaced)
	assert.Equal(t, []string(nil), c.Overlay.Replaced)

	c, err = Parse("ci.yaml", []byte("extends: default\nno_gpu_paths: [\"docs/**\"]\n"))
	require.NoError(t, err)
	assert.Equal(t, &Overlay{Replaced: []string{"no_gpu_paths"}}, c.Overlay)
	c, err = Parse("ci.yaml", DefaultYAML())
	require.NoError(t, err)
	assert.Nil(t, c.Overlay, "a whole configuration is no overlay")
}

// The merged roster is checked as a whole, each problem on the file's line.
func TestParse_ExtendsDefaultSuitesErrorsNameTheFileLine(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"a name twice in the file", "extends: default\nsuites:\n  cuda:\n    - name: stage-c-8-gpu-h100\n    - name: stage-c-8-gpu-h100\n",
			`ci.yaml:5: suite "stage-c-8-gpu-h100" appears twice under cuda`},
		{"a new name twice in the file", "extends: default\nsuites:\n  cuda:\n    - name: x\n  cpu:\n    - name: x\n",
			`ci.yaml:4: suite "x" is listed under both cpu and cuda`},
		{"an unknown backend", "extends: default\nsuites:\n  tpu:\n    - name: x\n", `ci.yaml:3: unknown key "tpu" in suites`},
		{"not a list", "extends: default\nsuites:\n  cuda: stage-x\n", `ci.yaml:3: suites.cuda must be a list of suites`},
		{"a suite without a name", "extends: default\nsuites:\n  cuda:\n    - runs_on: [x]\n", `ci.yaml:4: a suite has no name`},
	} {
		_, err := Parse("ci.yaml", []byte(tc.doc))
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
	}
}

// A suite knows where its entry and its runs_on stand, so that a finding
// about the suite or its labels can point there: in the built-in roster (as `miles-ci config
// --default` prints it), or in the file, also for a suite a file
// extending the default takes from the built-in roster.
func TestParse_SuitesRecordWhereTheyAndTheirRunsOnStand(t *testing.T) {
	def := Default()
	h100, ok := def.Suite("stage-c-8-gpu-h100")
	require.True(t, ok)
	lines := strings.Split(string(DefaultYAML()), "\n")
	assert.Equal(t, "      runs_on: [h100, 8gpu]", lines[h100.RunsOnAt.Line-1])
	assert.Equal(t, Pos{Line: h100.RunsOnAt.Line, Col: 7, BuiltIn: true}, h100.RunsOnAt)
	assert.Equal(t, BuiltInPath, def.Place(h100.RunsOnAt))
	assert.Equal(t, "    - name: stage-c-8-gpu-h100", lines[h100.At.Line-1], "the suite's entry")
	assert.Equal(t, Pos{Line: h100.At.Line, Col: 7, BuiltIn: true}, h100.At)

	c, err := Parse("ci.yaml", []byte("extends: default\nsuites:\n  cuda:\n    - name: stage-y\n      shards: 1\n      runs_on: [b200]\n    - name: stage-z\n"))
	require.NoError(t, err)
	y, _ := c.Suite("stage-y")
	assert.Equal(t, Pos{Line: 6, Col: 7}, y.RunsOnAt)
	assert.Equal(t, "ci.yaml", c.Place(y.RunsOnAt))
	z, _ := c.Suite("stage-z")
	assert.Equal(t, Pos{Line: 7, Col: 7}, z.RunsOnAt, "no runs_on: the suite entry")
	assert.Equal(t, Pos{Line: 4, Col: 7}, y.At)
	assert.Equal(t, Pos{Line: 7, Col: 7}, z.At)
	kept, _ := c.Suite("stage-c-8-gpu-h100")
	assert.Equal(t, h100.RunsOnAt, kept.RunsOnAt)
	assert.Equal(t, BuiltInPath, c.Place(kept.RunsOnAt))
}

func TestParse_SetupMinutesTheSuitesOwnElseTheDefault(t *testing.T) {
	doc := strings.Replace(minimal, "suites:\n", "suite_defaults:\n  setup_minutes: 4\nsuites:\n", 1)
	doc = strings.Replace(doc, "shards: 2", "shards: 2\n      target_minutes: 30\n      setup_minutes: 2.5\n    - name: other\n      target_minutes: 30", 1)
	c, err := Parse("ci.yaml", []byte(doc))
	require.NoError(t, err)
	unit, _ := c.Suite("unit")
	other, _ := c.Suite("other")
	assert.Equal(t, 2.5, unit.SetupMinutes)
	assert.Equal(t, 27.5*60, unit.ShardBudget(), "30 minutes less its own 2.5")
	assert.Equal(t, 4.0, other.SetupMinutes)
	assert.Equal(t, 26*60.0, other.ShardBudget(), "30 minutes less the default 4")
	assert.Equal(t, 4.0, c.SuiteDefaults.SetupMinutes)

	// Without either, no setup: the budget is the whole target.
	c, err = Parse("ci.yaml", []byte(strings.Replace(minimal, "shards: 2", "shards: 2\n      target_minutes: 30", 1)))
	require.NoError(t, err)
	unit, _ = c.Suite("unit")
	assert.Zero(t, unit.SetupMinutes)
	assert.Equal(t, 30*60.0, unit.ShardBudget())
	// Exact to the millisecond where floating point is not: 45 − 11.2
	// minutes is 2028 s, which a shard of 2028 s fits.
	assert.Equal(t, 2028.0, Suite{TargetMinutes: 45, SetupMinutes: 11.2}.ShardBudget())
}

func TestParse_ExtendsDefaultSetsTheSetupOfTheBuiltInSuites(t *testing.T) {
	c, err := Parse("ci.yaml", []byte("extends: default\nsuite_defaults:\n  setup_minutes: 6\n"))
	require.NoError(t, err)
	for _, s := range c.Suites {
		assert.Equal(t, 6.0, s.SetupMinutes, s.Name)
	}
	assert.Equal(t, []string{"suite_defaults"}, c.Overlay.Replaced)
	for _, s := range Default().Suites {
		assert.Zero(t, s.SetupMinutes, "the built-in roster counts no setup: %s", s.Name)
	}
}
