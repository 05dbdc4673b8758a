package lint

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The external nightly in the form another repository publishes it (a
// matrix include of suites and runner pools, the runner called through a
// container wrapper), with the names of Miles' own ROCm stage instead of
// the roster's external suites; and the same file with the roster's names.
// The docs run lint on them too.
const (
	nightlyFile      = "../../testdata/docs/external/nightly-mi350.yml"
	nightlyFixedFile = "../../testdata/docs/external/nightly-mi350-fixed.yml"
	sampleRoot       = "../../testdata/sample"
)

func readText(t testing.TB, p string) string {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(data)
}

// external reads workflow texts as lint --external does, each named by
// its key.
func external(t *testing.T, files ...[2]string) []*External {
	t.Helper()
	var out []*External
	for _, f := range files {
		ext, err := ReadExternal(f[0], []byte(f[1]))
		require.NoError(t, err)
		out = append(out, ext)
	}
	return out
}

// externalRules are the rules --external adds, those rule_external.go
// registers.
var externalRules = []string{RuleExternalMissing, RuleExternalUnknown, RuleExternalOwned, RuleExternalHW, RuleExternalEmpty, RuleExternalEntry}

// lintExternal lints root with its configuration (the built-in one when
// it has none) and the external workflows.
func lintExternal(t *testing.T, root string, ext []*External) *Result {
	t.Helper()
	return lintWith(t, root, Options{External: ext})
}

// anchorPlace is "LINE:COL" of the first at after the first from in text,
// the column counted in characters.
func anchorPlace(t *testing.T, text, from, at string) string {
	t.Helper()
	off := anchorOffset(t, text, from, at)
	start := strings.LastIndexByte(text[:off], '\n') + 1
	return fmt.Sprintf("%d:%d", strings.Count(text[:off], "\n")+1, utf8.RuneCountInString(text[start:off])+1)
}

// placeLine is PATH:LINE of the place PATH:LINE:COL, as a message names
// another place.
func placeLine(place string) string { return place[:strings.LastIndexByte(place, ':')] }

// rosterAt is where the built-in roster's entry of a suite stands, as
// findings name it.
func rosterAt(t *testing.T, suite string) string {
	t.Helper()
	return config.BuiltInPath + ":" + anchorPlace(t, string(config.DefaultYAML()), "", "name: "+suite)
}

// The acceptance: the nightly as published runs none of the three
// external suites, two suites the roster lacks (each offered the
// external suite meant) and the one the sample's own ROCm workflow runs.
// Six findings, each where a maintainer edits: the missing suites at
// their roster entries, naming the job to add them to; the wrong ones at
// their matrix entries.
func TestExternal_TheNightlyAsPublishedHasSixFindings(t *testing.T) {
	about(t, externalRules...)
	text := readText(t, nightlyFile)
	const name = "nightly-mi350.yml"
	res := lintExternal(t, sampleRoot, external(t, [2]string{name, text}))
	job := name + ":" + strings.Split(anchorPlace(t, text, "", "  test-miles-mi35x:"), ":")[0]
	missing := func(suite, regs string) string {
		return rosterAt(t, suite) + ": error: external suite " + suite + " is run by no job of " + name + regs +
			": run it in job 'test-miles-mi35x' (" + job + ") with --hw rocm --suite " + suite + ", or drop it from the roster [external-missing]"
	}
	// A matrix-fed suite is reported at its matrix entry's value.
	entry := func(suite string) string { return name + ":" + anchorPlace(t, text, "suite: "+suite, suite) }
	want := []string{
		missing("nightly-stage-c-8-gpu-mi350", ", so its registration never runs"),
		missing("nightly-stage-c-4-gpu-mi350", ""),
		missing("nightly-stage-c-2-gpu-mi350", ""),
		entry("stage-c-2-gpu-mi350") + ": error: suite 'stage-c-2-gpu-mi350' is not in the roster " + builtIn + "; did you mean nightly-stage-c-2-gpu-mi350? [external-unknown]",
		entry("stage-c-4-gpu-mi350") + ": error: suite stage-c-4-gpu-mi350 is not external in the roster " + builtIn +
			": job 'stage-c-4-gpu-mi350' of .github/workflows/pr-test-rocm.yml runs it, and another repository's workflow runs only external suites; did you mean nightly-stage-c-4-gpu-mi350? [external-owned]",
		entry("stage-c-8-gpu-mi350") + ": error: suite 'stage-c-8-gpu-mi350' is not in the roster " + builtIn + "; did you mean nightly-stage-c-8-gpu-mi350? [external-unknown]",
	}
	assert.Equal(t, want, findingLines(res))
	assert.Equal(t, 6, res.Errors)
	assert.Equal(t, 0, res.Warnings)

	fixed := lintExternal(t, sampleRoot, external(t, [2]string{name, readText(t, nightlyFixedFile)}))
	assert.Empty(t, findingLines(fixed), "the roster's names, --hw rocm")
}

// Each way an external workflow can miss, on the sample with the roster's
// built-in external suites, each finding where it is fixed.
func TestExternal_EachCaseOnItsPlace(t *testing.T) {
	about(t, externalRules...)
	fixed := readText(t, nightlyFixedFile)
	const name = "nightly.yml"
	hwCuda := strings.Replace(fixed, "--hw rocm", "--hw cuda", 1)
	hwMatrix := strings.NewReplacer("--hw rocm", "--hw ${{ matrix.hw }}",
		"2-gpu-mi350\n            runner: linux-mi35x-gpu-2\n", "2-gpu-mi350\n            runner: linux-mi35x-gpu-2\n            hw: rocm\n",
		"4-gpu-mi350\n            runner: linux-mi35x-gpu-8\n", "4-gpu-mi350\n            runner: linux-mi35x-gpu-8\n            hw: cuda\n",
		"8-gpu-mi350\n            runner: linux-mi35x-gpu-8\n", "8-gpu-mi350\n            runner: linux-mi35x-gpu-8\n            hw: rocm\n").Replace(fixed)
	noHW := strings.Replace(fixed, "--hw rocm ", "", 1)
	literal := `on: workflow_dispatch
jobs:
  mi350-8gpu:
    runs-on: linux-mi35x-gpu-8
    steps:
      - run: miles-ci run --hw rocm --suite nightly-stage-c-8-gpu-mi350
  mi350-4gpu:
    runs-on: linux-mi35x-gpu-8
    steps:
      - run: timeout 7200 miles-ci run --suite=nightly-stage-c-4-gpu-mi350 --hw rocm
  mi350-2gpu:
    runs-on: linux-mi35x-gpu-2
    steps:
      - run: python3 -m tests.ci.run_suite --hw rocm --suite nightly-stage-c-2-gpu-mi305
`
	inputs := strings.Replace(fixed, "--suite ${{ matrix.suite }}", "--suite ${{ inputs.suite }}", 1)
	exprMatrix := fixed[:strings.Index(fixed, "      matrix:\n")] + "      matrix: ${{ fromJSON(inputs.matrix) }}\n" + fixed[strings.Index(fixed, "    runs-on:"):]
	noSuite := strings.Replace(fixed, "          - suite: nightly-stage-c-4-gpu-mi350\n            runner:", "          - runner:", 1)
	missing2 := rosterAt(t, "nightly-stage-c-2-gpu-mi350") + ": error: external suite nightly-stage-c-2-gpu-mi350 is run by no job of nightly.yml: "
	cases := []struct {
		name, text string
		want       []string
	}{
		{"--hw cuda for every suite of the matrix", hwCuda, []string{
			name + ":" + anchorPlace(t, hwCuda, "run_suite.py", "cuda") + ": error: --hw is 'cuda' but suite nightly-stage-c-2-gpu-mi350 is a rocm suite in the roster " + builtIn + ": write --hw rocm [external-hw]",
			name + ":" + anchorPlace(t, hwCuda, "run_suite.py", "cuda") + ": error: --hw is 'cuda' but suite nightly-stage-c-4-gpu-mi350 is a rocm suite in the roster " + builtIn + ": write --hw rocm [external-hw]",
			name + ":" + anchorPlace(t, hwCuda, "run_suite.py", "cuda") + ": error: --hw is 'cuda' but suite nightly-stage-c-8-gpu-mi350 is a rocm suite in the roster " + builtIn + ": write --hw rocm [external-hw]",
		}},
		{"--hw from the matrix, wrong in one entry", hwMatrix, []string{
			name + ":" + anchorPlace(t, hwMatrix, "hw: cuda", "cuda") + ": error: --hw is 'cuda' but suite nightly-stage-c-4-gpu-mi350 is a rocm suite in the roster " + builtIn + ": write --hw rocm [external-hw]",
		}},
		{"no --hw", noHW, []string{
			name + ":" + anchorPlace(t, noHW, "run: |\n", "bash") + ": error: the command has no --hw; suite nightly-stage-c-2-gpu-mi350 runs on rocm: add --hw rocm [external-hw]",
			name + ":" + anchorPlace(t, noHW, "run: |\n", "bash") + ": error: the command has no --hw; suite nightly-stage-c-4-gpu-mi350 runs on rocm: add --hw rocm [external-hw]",
			name + ":" + anchorPlace(t, noHW, "run: |\n", "bash") + ": error: the command has no --hw; suite nightly-stage-c-8-gpu-mi350 runs on rocm: add --hw rocm [external-hw]",
		}},
		// Suites written out, one job each, in the three command forms;
		// the last one mistyped.
		{"suites given literally", literal, []string{
			missing2 + "run it in job 'mi350-8gpu' (nightly.yml:3) with --hw rocm --suite nightly-stage-c-2-gpu-mi350, or drop it from the roster [external-missing]",
			name + ":" + anchorPlace(t, literal, "", "nightly-stage-c-2-gpu-mi305") + ": error: suite 'nightly-stage-c-2-gpu-mi305' is not in the roster " + builtIn + "; did you mean nightly-stage-c-2-gpu-mi350? [external-unknown]",
		}},
		{"--suite from an input", inputs, []string{
			rosterAt(t, "nightly-stage-c-8-gpu-mi350") + ": error: external suite nightly-stage-c-8-gpu-mi350 is run by no job of nightly.yml, so its registration never runs: run it in job 'test-miles-mi35x' (nightly.yml:" +
				strings.Split(anchorPlace(t, inputs, "", "  test-miles-mi35x:"), ":")[0] + ") with --hw rocm --suite nightly-stage-c-8-gpu-mi350, or drop it from the roster [external-missing]",
			"…",
			"…",
			name + ":" + anchorPlace(t, inputs, "run_suite.py", "${{ inputs.suite }}") + ": error: --suite is the expression ${{ inputs.suite }}; lint reads a name written out, or ${{ matrix.KEY }} of the job's matrix [external-unknown]",
		}},
		{"a matrix lint cannot expand", exprMatrix, []string{
			"…", "…", "…",
			name + ":" + anchorPlace(t, exprMatrix, "", "matrix:") + ": error: the matrix is ${{ fromJSON(inputs.matrix) }}, which lint cannot expand, so the suites the job runs cannot be read from it [external-unknown]",
		}},
		{"a matrix entry without the suite", noSuite, []string{
			rosterAt(t, "nightly-stage-c-4-gpu-mi350") + ": error: external suite nightly-stage-c-4-gpu-mi350 is run by no job of nightly.yml: run it in job 'test-miles-mi35x' (nightly.yml:" +
				strings.Split(anchorPlace(t, noSuite, "", "  test-miles-mi35x:"), ":")[0] + ") with --hw rocm --suite nightly-stage-c-4-gpu-mi350, or drop it from the roster [external-missing]",
			name + ":" + anchorPlace(t, noSuite, "run_suite.py", "${{ matrix.suite }}") + ": error: --suite is ${{ matrix.suite }}, but the matrix gives a job of 'test-miles-mi35x' no suite [external-unknown]",
		}},
		{"a matrix value lint cannot read", strings.Replace(fixed, "- suite: nightly-stage-c-4-gpu-mi350", "- suite: ${{ inputs.suite }}", 1), []string{
			"…",
			name + ":" + anchorPlace(t, fixed, "run_suite.py", "${{ matrix.suite }}") + ": error: --suite is ${{ matrix.suite }}, but the matrix gives a job of 'test-miles-mi35x' suite the scalar '${{ inputs.suite }}' (line " +
				strings.Split(anchorPlace(t, fixed, "", "nightly-stage-c-4-gpu-mi350"), ":")[0] + ") [external-unknown]",
		}},
		// The miles-ci form of the command reads the same.
		{"miles-ci run", strings.Replace(fixed, "python3 tests/ci/run_suite.py", "miles-ci run", 1), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.NotEqual(t, fixed, tc.text)
			got := findingLines(lintExternal(t, sampleRoot, external(t, [2]string{name, tc.text})))
			require.Len(t, got, len(tc.want), "%q", got)
			for i, w := range tc.want {
				if w != "…" {
					assert.Equal(t, w, got[i])
				} else {
					assert.Contains(t, got[i], "[external-missing]")
				}
			}
		})
	}
}

// Several files are one fleet: a suite may be run by any of them, and a
// missing one names them all.
func TestExternal_SeveralFilesAreOneFleet(t *testing.T) {
	about(t, externalRules...)
	fixed := readText(t, nightlyFixedFile)
	eight := "          - suite: nightly-stage-c-8-gpu-mi350\n            runner: linux-mi35x-gpu-8\n"
	require.Contains(t, fixed, eight)
	a := strings.Replace(fixed, eight, "", 1)
	b := strings.NewReplacer("          - suite: nightly-stage-c-2-gpu-mi350\n            runner: linux-mi35x-gpu-2\n", "",
		"          - suite: nightly-stage-c-4-gpu-mi350\n            runner: linux-mi35x-gpu-8\n", "").Replace(fixed)
	require.NotContains(t, b, "nightly-stage-c-4")

	assert.Empty(t, findingLines(lintExternal(t, sampleRoot, external(t, [2]string{"a.yml", a}, [2]string{"b.yml", b}))))

	got := findingLines(lintExternal(t, sampleRoot, external(t, [2]string{"a.yml", a}, [2]string{"c.yml", a})))
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "external suite nightly-stage-c-8-gpu-mi350 is run by no job of a.yml, c.yml, so its registration never runs: run it in job 'test-miles-mi35x' (a.yml:")
}

// A file where no job runs a suite (the wrong file fetched, or the runs
// moved elsewhere) is a warning on its jobs:, and each external suite is
// missing.
func TestExternal_AFileThatRunsNoSuite(t *testing.T) {
	about(t, externalRules...)
	const text = "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo python3 tests/ci/run_suite.py --suite nightly-stage-c-8-gpu-mi350\n"
	got := findingLines(lintExternal(t, sampleRoot, external(t, [2]string{"other.yml", text})))
	require.Len(t, got, 4, "%q", got)
	assert.Equal(t, rosterAt(t, "nightly-stage-c-8-gpu-mi350")+": error: external suite nightly-stage-c-8-gpu-mi350 is run by no job of other.yml, so its registration never runs: add a job running it with --hw rocm --suite nightly-stage-c-8-gpu-mi350, or drop it from the roster [external-missing]", got[0])
	assert.Equal(t, "other.yml:2:1: warning: no job of other.yml runs a suite (python tests/ci/run_suite.py … or miles-ci run …), so it runs none of the roster's external suites [external-empty]", got[3])
}

// A file lint cannot read as a workflow is an error naming the file and
// the line, on one line: nothing of it could be checked.
func TestReadExternal_RefusesWhatIsNotAWorkflow(t *testing.T) {
	about(t, append([]string{RuleYAML}, externalRules...)...)
	for _, tc := range []struct{ name, text, want string }{
		{"invalid YAML", "on: push\njobs:\n  a: [\n", "n.yml:3: the workflow is not valid YAML: did not find expected node content"},
		{"empty", "", "n.yml:1: the workflow is empty; GitHub Actions refuses the workflow"},
		{"no jobs", "on: push\n", "n.yml:1: the workflow has no jobs: key; GitHub Actions refuses the workflow"},
		{"an error page", `{"message": "Not Found", "status": "404"}`, "n.yml:1: the workflow has no jobs: key; GitHub Actions refuses the workflow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadExternal("n.yml", []byte(tc.text))
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
	// What GitHub refuses but leaves the jobs readable is a finding.
	ext, err := ReadExternal("n.yml", []byte(strings.Replace(readText(t, nightlyFixedFile), "on:\n", "triggers:\n", 1)))
	require.NoError(t, err)
	got := findingLines(lintExternal(t, sampleRoot, []*External{ext}))
	assert.Equal(t, []string{"n.yml:3:1: error: the workflow has no on: key, so no event triggers it; GitHub Actions refuses the workflow [yaml]"}, got)
}

// --external adds findings and changes none of the repository's own: on
// the trimmed Miles copy, the findings of plain lint are those of lint
// --external less the external rules' (the nightly's six, and its call of
// the runner the trimmed copy does not hold).
func TestExternal_TheRepositorysOwnFindingsAreUnchanged(t *testing.T) {
	wholeOutput(t, "lint with and without --external compared")
	plain := findingLines(lintTree(t, milesFixture))
	with := lintExternal(t, milesFixture, external(t, [2]string{"n.yml", readText(t, nightlyFile)}))
	var own []string
	ext := 0
	for _, f := range with.Findings {
		if strings.HasPrefix(f.Rule, "external-") {
			ext++
		} else {
			own = append(own, f.String())
		}
	}
	assert.Equal(t, plain, own)
	assert.Equal(t, 7, ext)
}

// On a Miles checkout: plain lint finds no error, --external with the
// nightly as published finds its six, and with the roster's names none.
func TestExternal_OnAMilesCheckout(t *testing.T) {
	wholeOutput(t, "no rule finds an error in a Miles checkout; lint with and without --external compared")
	root := testutil.MilesCheckout(t)
	plain := lintExternal(t, root, nil)
	assert.Equal(t, 0, plain.Errors, "%q", findingLines(plain))
	wrong := lintExternal(t, root, external(t, [2]string{"n.yml", readText(t, nightlyFile)}))
	assert.Equal(t, plain.Warnings, wrong.Warnings)
	rules := map[string]int{}
	for _, f := range wrong.Findings {
		rules[f.Rule]++
	}
	assert.Equal(t, 3, rules[RuleExternalMissing], "%q", findingLines(wrong))
	assert.Equal(t, 2, rules[RuleExternalUnknown])
	assert.Equal(t, 1, rules[RuleExternalOwned])
	assert.Equal(t, 6, wrong.Errors)
	fixed := lintExternal(t, root, external(t, [2]string{"n.yml", readText(t, nightlyFixedFile)}))
	assert.Equal(t, findingLines(plain), findingLines(fixed))
}

// actionlint, the second opinion, finds nothing wrong with the fixtures:
// they are workflows GitHub would run (the runner pools are declared as
// the other repository's self-hosted labels).
func TestExternal_ActionlintAcceptsTheFixtures(t *testing.T) {
	bin := testutil.Actionlint(t)
	dir := t.TempDir()
	cfg := testutil.WriteFile(t, dir, "actionlint.yaml", "self-hosted-runner:\n  labels: [linux-mi35x-gpu-2, linux-mi35x-gpu-8]\n")
	out, err := exec.Command(bin, "-no-color", "-config-file", cfg, nightlyFile, nightlyFixedFile).CombinedOutput()
	assert.NoError(t, err, string(out))
}

// FuzzLintExternal: any file given to --external is an error of one line
// or findings each with a place, a rule and a message; never a panic.
func FuzzLintExternal(f *testing.F) {
	for _, p := range []string{nightlyFile, nightlyFixedFile} {
		f.Add(readText(f, p))
	}
	f.Add("on: push\njobs:\n  j:\n    strategy:\n      matrix:\n        s: [a, b]\n        exclude: [{s: a}]\n        include: [{s: c, hw: rocm}]\n    steps:\n      - run: miles-ci run --hw ${{ matrix.hw }} --suite ${{ matrix.s }}\n")
	f.Add("jobs:\n  j:\n    strategy: {matrix: {include: [&e {suite: ext}, *e]}}\n    with: {execute_command: 'x python3 tests/ci/run_suite.py --suite=${{ matrix.suite }}'}\n")
	cfg, err := config.Parse("c.yaml", []byte(smallConfig))
	require.NoError(f, err)
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		ext, err := ReadExternal("x.yml", []byte(text))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "x.yml:") || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("not one line naming the file: %q", err)
			}
			return
		}
		res, err := RunWith(root, cfg, nil, Options{External: []*External{ext}})
		require.NoError(t, err)
		for _, fd := range res.Findings {
			if fd.Line < 1 || fd.Col < 1 || fd.Rule == "" || fd.Message == "" {
				t.Fatalf("finding without a place, rule or message: %+v", fd)
			}
		}
	})
}

// A command of an external job that calls one of this repository's Python
// entry points, in any form and through any wrapper, is an error at the
// word naming it once the repository no longer has the script; while it
// has it (the compatibility entry point), nothing changes.
func TestExternal_EntryPointsTheRepositoryNoLongerHas(t *testing.T) {
	about(t, externalRules...)
	const text = `on: workflow_dispatch
jobs:
  nightly:
    runs-on: linux-mi35x-gpu-8
    steps:
      - run: bash scripts/ci/amd/amd_ci_exec.sh -w /root/miles python3 tests/ci/run_suite.py --hw rocm --suite nightly-stage-c-8-gpu-mi350
      - run: cd /root/miles && python3 /root/miles/tests/ci/run_suite.py --hw rocm --suite nightly-stage-c-4-gpu-mi350
      - run: docker exec ci python3 -u -m tests.ci.run_suite --hw rocm --suite nightly-stage-c-2-gpu-mi350
      - run: python -m tests.ci.ci_policy
      - run: python3 -S -m tests.ci.file_run
`
	const gone = "which this repository no longer has, so the job fails before it runs a test: "
	const keep = "keep tests/ci/run_suite.py as the compatibility entry point (miles-ci help migrate), or change the external workflow to miles-ci run with the same arguments [external-entry]"
	root := copyTree(t, sampleRoot)
	// The sample keeps the runner as its compatibility entry point.
	require.NoError(t, os.Remove(filepath.Join(root, RunSuitePath)))
	got := findingLines(lintExternal(t, root, external(t, [2]string{"n.yml", text})))
	assert.Equal(t, []string{
		"n.yml:" + anchorPlace(t, text, "amd_ci_exec.sh", "tests/ci/run_suite.py") + ": error: the command runs tests/ci/run_suite.py, " + gone + keep,
		"n.yml:" + anchorPlace(t, text, "cd /root/miles", "/root/miles/tests") + ": error: the command runs /root/miles/tests/ci/run_suite.py, " + gone + keep,
		"n.yml:" + anchorPlace(t, text, "docker exec", "tests.ci.run_suite") + ": error: the command runs tests.ci.run_suite (tests/ci/run_suite.py), " + gone + keep,
		"n.yml:" + anchorPlace(t, text, "", "tests.ci.ci_policy") + ": error: the command runs tests.ci.ci_policy (tests/ci/ci_policy.py), " + gone +
			"change the external workflow to miles-ci policy [external-entry]",
		"n.yml:" + anchorPlace(t, text, "", "tests.ci.file_run") + ": error: the command runs tests.ci.file_run (tests/ci/file_run.py), " + gone +
			"change the external workflow to miles-ci file-run [external-entry]",
	}, got)

	// The compatibility entry point and the other two scripts still there.
	for _, p := range []string{"tests/ci/run_suite.py", "tests/ci/ci_policy.py", "tests/ci/file_run.py"} {
		testutil.WriteFile(t, root, p, "import os, sys\nos.execvp(\"miles-ci\", [\"miles-ci\", \"run\", *sys.argv[1:]])\n")
	}
	assert.Empty(t, findingLines(lintExternal(t, root, external(t, [2]string{"n.yml", text}))))
}
