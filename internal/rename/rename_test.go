package rename

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

const rosterYAML = `# the roster; stage-x runs on H100
discovery:
  roots: [tests]
  pattern: "**/test_*.py"
register_functions:
  register_cpu_ci: cpu
  register_cuda_ci: cuda
labels:
  - megatron: Megatron tests
suites:
  cpu:
    - name: stage-a-cpu
      needs: [resolve-ci-policy]
  cuda:
    - name: stage-x
      runs_on: [h100, 8gpu]
      needs: [resolve-ci-policy, stage-a-cpu]
    - name: nightly-stage-x
      runs_on: [h100, 8gpu]
      external: true
    - name: stage-y
      runs_on: [h100, 8gpu]
      needs: [stage-x]
`

const workflowYAML = `on: [pull_request]
jobs:
  stage-x:
    if: ${{ !contains(fromJSON(needs.policy.outputs.skipped_stages || '[]'), 'stage-x') }}
    runs-on: ubuntu-latest
    steps:
      - run: miles-ci run --hw cuda --suite stage-x  # stage-x's shard
  nightly-stage-x:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        suite: [stage-x, nightly-stage-x]
    steps:
      - run: miles-ci run --hw cuda --suite ${{ matrix.suite }}
  stage-y:
    needs: [stage-x]
    if: needs.stage-x.result == 'success'
    runs-on: ubuntu-latest
    steps:
      - run: "miles-ci run --hw cuda --suite stage-y"
`

func testConfig(t testing.TB, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse(".miles-ci.yaml", []byte(text))
	require.NoError(t, err)
	return cfg
}

func decide(t *testing.T, old, new string, files ...File) *Plan {
	t.Helper()
	return Decide(testConfig(t, rosterYAML), old, new, files)
}

func roster() File { return File{Path: ".miles-ci.yaml", Role: Roster, Src: []byte(rosterYAML)} }

func workflow(text string) File {
	return File{Path: ".github/workflows/pr.yml", Role: Workflow, Src: []byte(text)}
}

// newText is the new text of path in the plan, or "" when it is unchanged.
func newText(p *Plan, path string) string {
	for _, c := range p.Changes {
		if c.Path == path {
			return string(c.New)
		}
	}
	return ""
}

func refusals(p *Plan) []string {
	var out []string
	for _, r := range p.Refused {
		out = append(out, r.String())
	}
	return out
}

func TestDecide_RenamesEveryWholeWordOfTheRosterAndTheWorkflows(t *testing.T) {
	p := decide(t, "stage-x", "stage-z", roster(), workflow(workflowYAML))
	require.Empty(t, refusals(p))
	assert.Equal(t, strings.NewReplacer(
		"# the roster; stage-x", "# the roster; stage-z",
		"- name: stage-x\n", "- name: stage-z\n",
		"needs: [stage-x]", "needs: [stage-z]",
	).Replace(rosterYAML), newText(p, ".miles-ci.yaml"))
	assert.Equal(t, strings.NewReplacer(
		"  stage-x:\n", "  stage-z:\n",
		"'stage-x'", "'stage-z'",
		"--suite stage-x  # stage-x's", "--suite stage-z  # stage-z's",
		"[stage-x, nightly-stage-x]", "[stage-z, nightly-stage-x]",
		"needs: [stage-x]", "needs: [stage-z]",
		"needs.stage-x.result", "needs.stage-z.result",
	).Replace(workflowYAML), newText(p, ".github/workflows/pr.yml"))
	assert.Equal(t, 3+7, p.Edits())
	assert.Empty(t, p.Left)
}

func TestDecide_RenamesTheRegisterCallsAndThePythonLists(t *testing.T) {
	test := File{Path: "tests/test_a.py", Role: TestFile, Src: []byte(`"""Runs in stage-x."""
register_cuda_ci(600, 'stage-x', labels=["megatron"])
register_cuda_ci(est_time=60, suite=r"stage-x", labels=["megatron"])
register_cuda_ci(est_time=60, suite="nightly-stage-x", labels=["megatron"])
CASES = ["stage-x"]
`)}
	runner := File{Path: "tests/ci/run_suite.py", Role: PythonCI, Src: []byte(`CI_SUITES = {
    HWBackend.CUDA: [
        "stage-x",  # stage-x: H100
        "nightly-stage-x",
    ],
}
PR_GPU_STAGES = frozenset({"stage-x", 'stage-y'})
`)}
	p := decide(t, "stage-x", "stage-z", roster(), test, runner)
	require.Empty(t, refusals(p))
	assert.Equal(t, strings.Replace(strings.Replace(string(test.Src), "600, 'stage-x'", "600, 'stage-z'", 1),
		`suite=r"stage-x"`, `suite=r"stage-z"`, 1), newText(p, "tests/test_a.py"))
	assert.Equal(t, strings.NewReplacer(`"stage-x",  #`, `"stage-z",  #`, `{"stage-x"`, `{"stage-z"`).Replace(string(runner.Src)),
		newText(p, "tests/ci/run_suite.py"))
	// What no suite field holds is named for the user to check.
	assert.Equal(t, []Mention{{Path: "tests/ci/run_suite.py", Lines: []int{3}}, {Path: "tests/test_a.py", Lines: []int{1, 5}}}, p.Left)
}

func TestDecide_RefusesWhatItCannotRenameSafelyAndChangesNothing(t *testing.T) {
	ok := File{Path: "tests/test_ok.py", Role: TestFile, Src: []byte(`register_cuda_ci(60, "stage-x", labels=["megatron"])` + "\n")}
	cases := []struct {
		name string
		file File
		want string
	}{
		{"an f-string suite", File{Path: "tests/test_f.py", Role: TestFile,
			Src: []byte("n = 8\nregister_cuda_ci(60, f\"stage-{n}\", labels=[\"megatron\"])\n")},
			"tests/test_f.py:2: cannot rename stage-x: the suite of register_cuda_ci() is an f-string, which may name the suite but cannot be renamed in place; write it as a string literal"},
		{"a sum", File{Path: "tests/test_f.py", Role: TestFile,
			Src: []byte("register_cuda_ci(60, suite='stage-' + 'x', labels=[\"megatron\"])\n")},
			"tests/test_f.py:1: cannot rename stage-x: the suite of register_cuda_ci() is an expression (BinOp), which may name the suite but cannot be renamed in place; write it as a string literal"},
		{"adjacent strings", File{Path: "tests/test_f.py", Role: TestFile,
			Src: []byte("register_cuda_ci(60, suite='stage-' 'x', labels=[\"megatron\"])\n")},
			"tests/test_f.py:1: cannot rename stage-x: the suite of register_cuda_ci() is made of 2 adjacent string literals; write it as one"},
		{"an escape", File{Path: "tests/test_f.py", Role: TestFile,
			Src: []byte("register_cuda_ci(60, suite='stage\\x2dx', labels=[\"megatron\"])\n")},
			`tests/test_f.py:1: cannot rename stage-x: the suite of register_cuda_ci() is written 'stage\x2dx', with an escape sequence; write the name plainly`},
		{"kwargs", File{Path: "tests/test_f.py", Role: TestFile,
			Src: []byte("register_cuda_ci(60, **ARGS)\n")},
			"tests/test_f.py:1: cannot rename stage-x: register_cuda_ci() takes its arguments from *args or **kwargs, which may name the suite; write suite= as a string literal"},
		{"a test file Python cannot read", File{Path: "tests/test_f.py", Role: TestFile,
			Src: []byte("register_cuda_ci(60, 'stage-x'\n")},
			"tests/test_f.py:1: cannot rename stage-x: Python cannot read the file ('(' was never closed), so its register calls cannot be renamed"},
		{"adjacent strings in a list", File{Path: "tests/ci/run_suite.py", Role: PythonCI,
			Src: []byte("CI_SUITES = {HWBackend.CUDA: [\"stage-\"\n  \"x\"]}\n")},
			"tests/ci/run_suite.py:1: cannot rename stage-x: the string is made of 2 adjacent string literals; write it as one"},
		{"a longer word", workflow("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: upload stage-x-logs\n"),
			`.github/workflows/pr.yml:6: cannot rename stage-x: it stands inside "stage-x-logs", which is no suite of the roster, no job id and no shard name of the suite, so whether it names the suite is unclear: rename that word by hand, or set the name apart`},
		{"an anchor", workflow("on: push\njobs:\n  a:\n    runs-on: x\n    steps: &stage-x\n      - run: echo\n  b:\n    runs-on: x\n    steps: *stage-x\n"),
			`.github/workflows/pr.yml:5: cannot rename stage-x: the YAML anchor &stage-x holds it; rename the anchor and its aliases by hand first`},
		{"an escape in YAML", workflow("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: \"miles-ci run --suite stage\\x2Dx\"\n"),
			`.github/workflows/pr.yml:6: cannot rename stage-x: here the text and the YAML value would not change alike (the value "miles-ci run --suite stage-x" would not become "miles-ci run --suite stage-z"; an escape sequence?); rename it by hand`},
		{"the new job exists", workflow("on: push\njobs:\n  stage-z:\n    runs-on: x\n    steps: [{run: echo}]\n"),
			`.github/workflows/pr.yml:3: cannot rename stage-x: the job stage-z exists already; renaming stage-x's job to it would define it twice`},
		{"a key the new name holds already", workflow("on: push\nenv: {stage-x: 1, stage-z: 2}\njobs:\n  a:\n    runs-on: x\n    steps: [{run: echo}]\n"),
			`.github/workflows/pr.yml:2: cannot rename stage-x: here the text and the YAML value would not change alike (the mapping would hold the key stage-z twice); rename it by hand`},
		{"a workflow that is no YAML", workflow("jobs: [stage-x\n"),
			`.github/workflows/pr.yml:1: cannot rename stage-x: the file is not valid YAML (yaml: line 1: did not find expected ',' or ']'), so its mentions of the name cannot be read`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := decide(t, "stage-x", "stage-z", roster(), ok, tc.file)
			assert.Equal(t, []string{tc.want}, refusals(p))
			assert.Empty(t, p.Changes, "nothing is written when anything is refused")
		})
	}
}

// An anchor named after another suite, whose name holds this one, is no
// mention of it.
func TestDecide_LeavesAnAnchorOfAnotherName(t *testing.T) {
	wf := "on: push\njobs:\n  a:\n    runs-on: x\n    steps: &nightly-stage-x\n      - run: miles-ci run --suite stage-x\n  b:\n    runs-on: x\n    steps: *nightly-stage-x\n"
	p := decide(t, "stage-x", "stage-z", roster(), workflow(wf))
	require.Empty(t, refusals(p))
	assert.Equal(t, strings.Replace(wf, "--suite stage-x", "--suite stage-z", 1), newText(p, ".github/workflows/pr.yml"))
}

func TestDecide_RefusesANewNameThatReadsAsAnotherYAMLValue(t *testing.T) {
	p := decide(t, "stage-y", "true", roster())
	assert.Equal(t, []string{`.miles-ci.yaml:21: cannot rename stage-y: here the text and the YAML value would not change alike ("true" would read as !!bool, not !!str); rename it by hand`}, refusals(p))
}

func TestDecide_RefusesWithoutTheRosterFile(t *testing.T) {
	p := decide(t, "stage-x", "stage-z", workflow(workflowYAML))
	assert.Equal(t, []string{".miles-ci.yaml: cannot rename stage-x: the configuration file is not among the files read, so the roster would keep the old name"}, refusals(p))
	assert.Empty(t, p.Changes)
}

func TestDecide_RefusesANameThatIsAlsoALabel(t *testing.T) {
	text := strings.Replace(rosterYAML, "  - megatron: Megatron tests\n", "  - megatron: Megatron tests\n  - stage-x: a label of the same name\n", 1)
	p := Decide(testConfig(t, text), "stage-x", "stage-z", []File{{Path: ".miles-ci.yaml", Role: Roster, Src: []byte(text)}})
	assert.Equal(t, []string{".miles-ci.yaml: cannot rename stage-x: the name is also a value of the configuration that is no suite (a label, a path, a pattern), which must not change; rename the suite by hand"}, refusals(p))
}

func TestDecide_RefusesARosterThatKeepsTheSuiteFromTheBuiltInOne(t *testing.T) {
	overlay := "extends: default\nsuites:\n  cuda:\n    - name: stage-q\n      runs_on: [h100]\n"
	cfg := testConfig(t, overlay)
	p := Decide(cfg, "stage-c-8-gpu-h100", "stage-h100", []File{{Path: ".miles-ci.yaml", Role: Roster, Src: []byte(overlay)}})
	require.Len(t, p.Refused, 1)
	assert.Contains(t, p.Refused[0].String(), ".miles-ci.yaml: cannot rename stage-c-8-gpu-h100: the file extends the built-in configuration, whose roster holds stage-c-8-gpu-h100: write the whole configuration into the file first")
}

func TestCheck_ValidatesTheNames(t *testing.T) {
	cfg := testConfig(t, rosterYAML)
	cases := []struct{ old, new, want string }{
		{"stage-x", "stage-z", ""},
		{"stage-x", "stage-x", `OLD and NEW are both "stage-x"; nothing to rename`},
		{"stage-x", "9lives", `new suite name "9lives" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)`},
		{"stage-x", "::error::x", `new suite name "::error::x" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)`},
		{"stage-x", "stage-y", "suite stage-y is in the roster (.miles-ci.yaml) already; choose another name"},
		{"stage-xx", "stage-z", "Unknown suite stage-xx; known suites: stage-a-cpu, stage-x, nightly-stage-x, stage-y"},
	}
	for _, tc := range cases {
		err := Check(cfg, tc.old, tc.new)
		if tc.want == "" {
			assert.NoError(t, err)
			continue
		}
		assert.EqualError(t, err, tc.want)
	}
	var unknown *config.UnknownSuiteError
	require.ErrorAs(t, Check(cfg, "stage-xx", "stage-z"), &unknown)
	assert.Equal(t, "did you mean stage-x?", unknown.HintLine())
	assert.EqualError(t, Check(config.Default(), "stage-a-cpu", "stage-z"),
		"the roster in effect is miles-ci's built-in one, which a rename cannot edit: run `miles-ci config --init` to write it into .miles-ci.yaml, commit it, then rename")
}

// The names a workflow builds on a suite's for its shards (an artifact
// per shard, a download pattern, an example shard in a description) are
// renamed with it; those of a suite whose name ends with this one's, and
// words that merely begin with it, are not.
func TestDecide_ShardNamesBuiltOnTheSuiteAreRenamed(t *testing.T) {
	wf := workflow(`on: [pull_request]
jobs:
  stage-x:
    runs-on: ubuntu-latest
    steps:
      - run: miles-ci run --hw cuda --suite stage-x
      - uses: actions/upload-artifact@v4
        with: {name: "report-stage-x-${{ matrix.partition_id }}", path: r}
      - uses: actions/download-artifact@v4
        with: {pattern: report-stage-x-*, path: r}
      - run: echo "a shard, as stage-x-1, or of the nightly, as nightly-stage-x-1 and report-nightly-stage-x-${{ matrix.id }}"
`)
	p := decide(t, "stage-x", "stage-z", roster(), wf)
	require.Empty(t, refusals(p))
	want := strings.NewReplacer(
		"  stage-x:", "  stage-z:",
		"--suite stage-x", "--suite stage-z",
		`"report-stage-x-$`, `"report-stage-z-$`,
		"report-stage-x-*", "report-stage-z-*",
		"as stage-x-1", "as stage-z-1",
	).Replace(string(wf.Src))
	assert.Equal(t, want, newText(p, wf.Path))

	for _, word := range []string{"stage-x-logs", "stage-x-1a", "prestage-x-1"} {
		p := decide(t, "stage-x", "stage-z", roster(), workflow("on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: upload "+word+"\n"))
		assert.Len(t, refusals(p), 1, "%s is no shard name of stage-x", word)
	}
}
