package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// milesFixture is a trimmed copy of the Miles workflows with a few test
// files, one per suite, and the two disabled Blackwell files' twin.
const milesFixture = "testdata/miles"

// copyTree copies a fixture directory to a fresh temporary one.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

// lintTree collects the registrations of root with the built-in
// configuration and lints its workflows.
func lintTree(t *testing.T, root string) *Result {
	t.Helper()
	return lintWith(t, root, Options{})
}

// lintWith is lintTree with the optional inputs. Like every helper that
// lints, it returns the findings of the rules the test is about
// (scope_test.go).
func lintWith(t *testing.T, root string, opts Options) *Result {
	t.Helper()
	cfg, err := config.Load(root, "")
	require.NoError(t, err)
	reg, err := registry.Collect(root, cfg)
	require.NoError(t, err)
	res, err := RunWith(root, cfg, reg.Registrations, opts)
	require.NoError(t, err)
	requireRegistered(t, res)
	return scoped(t, res)
}

const blackwellOrphan = "tests/e2e/megatron/test_blackwell.py:3:1: warning: suite 'stage-c-8-gpu-b200' is not in the roster and no job runs it, " +
	"so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (the built-in roster; see `miles-ci config --default`) [orphan-registration]"

func findingLines(res *Result) []string {
	out := make([]string, len(res.Findings))
	for i, f := range res.Findings {
		out[i] = f.String()
	}
	return out
}

// No rule finds an error in Miles' own workflows, and the one warning of
// the fixture's own is the Blackwell twin's.
func TestMiles_TheWorkflowsAsTheyAreHaveNoError(t *testing.T) {
	wholeOutput(t, "no rule finds an error in the Miles workflows as they are")
	res := lintTree(t, milesFixture)
	assert.Empty(t, errorLines(res))
	assert.Equal(t, 0, res.Errors)
	assert.Equal(t, []string{blackwellOrphan}, findingsOf(res, RuleOrphan))
}

// The workflows with miles-ci run where they call the Python runner give
// the same findings, whatever the rules find.
func TestMiles_TheMigratedCommandLinesReadTheSame(t *testing.T) {
	wholeOutput(t, "the findings of two forms of the command lines compared")
	root := copyTree(t, milesFixture)
	p := filepath.Join(root, ".github/workflows/pr-test.yml")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	migrated := strings.ReplaceAll(string(data), "python tests/ci/run_suite.py", "miles-ci run")
	require.NotEqual(t, string(data), migrated)
	require.NoError(t, os.WriteFile(p, []byte(migrated), 0o644))
	assert.Equal(t, findingLines(lintTree(t, milesFixture)), findingLines(lintTree(t, root)))
}

// A mutation edits one workflow of the fixture. Each expected finding is a
// rule and the line holding `at`, the first one after `from` in the
// mutated file.
type mutation struct {
	name, file string
	edit       func(t *testing.T, text string) string
	want       []expected
}

// replaceAfter is the edit that replaces the first old after anchor.
func replaceAfter(anchor, old, new string) func(*testing.T, string) string {
	return func(t *testing.T, text string) string {
		t.Helper()
		a := strings.Index(text, anchor)
		require.GreaterOrEqual(t, a, 0, "anchor %q", anchor)
		k := strings.Index(text[a:], old)
		require.GreaterOrEqual(t, k, 0, "%q after %q", old, anchor)
		return text[:a+k] + new + text[a+k+len(old):]
	}
}

type expected struct {
	rule, file, from, at string
}

// stageRules are the rules a mutation of a stage job's wiring could set
// off: a mutation test asserts all their findings, the one its slip is
// caught by and no other.
var stageRules = []string{RuleRunsOn, RuleShards, RuleSkipGuard, RuleMissingJob, RuleUnknownSuite, RuleJobName, RuleDuplicateJob,
	RuleExternalJob, RuleRepeatedFlag, RuleHW, RulePolicyInputs, RuleNeeds, RuleWeeklySerial, RuleCron, RuleOrphan, RuleEmptySuite}

func TestMiles_EachMutationIsCaughtByItsRuleOnItsLine(t *testing.T) {
	about(t, stageRules...)
	const prTest, rocm = ".github/workflows/pr-test.yml", ".github/workflows/pr-test-rocm.yml"
	cases := []mutation{
		{"changed runner label", prTest, replaceAfter("  stage-c-8-gpu-h100:", `runs_on: '["h100", "8gpu"]'`, `runs_on: '["h100", "4gpu"]'`),
			[]expected{{RuleRunsOn, prTest, "  stage-c-8-gpu-h100:", "runs_on:"}}},
		{"changed partition id", prTest, replaceAfter("  stage-c-4-gpu-h200:", "partition_id: [0, 1, 2]", "partition_id: [0, 1, 3]"),
			[]expected{{RuleShards, prTest, "  stage-c-4-gpu-h200:", "partition_id:"}}},
		{"changed shard size", prTest, replaceAfter("  stage-c-8-gpu-h200:", "--auto-partition-size 2", "--auto-partition-size 3"),
			[]expected{{RuleShards, prTest, "  stage-c-8-gpu-h200:", "--auto-partition-size 3"}}},
		{"guard names another stage", prTest, replaceAfter("  stage-c-2-gpu-h200:", "'stage-c-2-gpu-h200')", "'stage-c-4-gpu-h200')"),
			[]expected{{RuleSkipGuard, prTest, "  stage-c-2-gpu-h200:", "if:"}}},
		{"changed suite", prTest, replaceAfter("  stage-b-2-gpu-h200:", "--suite stage-b-2-gpu-h200", "--suite stage-b-2-gpu-h100"),
			[]expected{
				{RuleMissingJob, prTest, "", "jobs:"},
				// No job-name advice to rename the job after the typo.
				{RuleUnknownSuite, prTest, "  stage-b-2-gpu-h200:", "python tests/ci/run_suite.py"},
			}},
		{"guard lost its !", prTest, replaceAfter("  stage-c-8-gpu-h100:", "!contains(fromJSON(needs.resolve-ci-policy.outputs.skipped_stages", "contains(fromJSON(needs.resolve-ci-policy.outputs.skipped_stages"),
			[]expected{{RuleSkipGuard, prTest, "  stage-c-8-gpu-h100:", "if:"}}},
		{"exclude drops a shard", prTest, replaceAfter("  stage-c-4-gpu-h200:", "        partition_id: [0, 1, 2]\n", "        partition_id: [0, 1, 2]\n        exclude:\n          - partition_id: 2\n"),
			[]expected{{RuleShards, prTest, "  stage-c-4-gpu-h200:", "- partition_id: 2"}}},
		{"suite given twice", prTest, replaceAfter("  stage-b-2-gpu-h200:", "--suite stage-b-2-gpu-h200", "--suite stage-c-8-gpu-h100 --suite stage-b-2-gpu-h200"),
			[]expected{{RuleRepeatedFlag, prTest, "  stage-b-2-gpu-h200:", "--suite stage-c-8-gpu-h100"}}},
		{"changed --hw", rocm, replaceAfter("  stage-c-4-gpu-mi350:", "--hw rocm", "--hw cuda"),
			[]expected{{RuleHW, rocm, "  stage-c-4-gpu-mi350:", "--hw cuda"}}},
		{"dropped --cadence", prTest, replaceAfter("  stage-a-cpu:", "        --cadence ${{ needs.resolve-ci-policy.outputs.cadence }}\n", ""),
			[]expected{{RulePolicyInputs, prTest, "  stage-a-cpu:", "python tests/ci/run_suite.py"}}},
		{"removed need", prTest, replaceAfter("  stage-c-8-gpu-h100:", "needs: [resolve-ci-policy, resolve-ci-image, stage-a-cpu]", "needs: [resolve-ci-policy, resolve-ci-image]"),
			[]expected{{RuleNeeds, prTest, "  stage-c-8-gpu-h100:", "needs:"}}},
		{"removed max-parallel", prTest, replaceAfter("  stage-c-4-gpu-h200:", "      max-parallel: ${{ needs.resolve-ci-policy.outputs.cadence == 'weekly' && 1 || 3 }}\n", ""),
			[]expected{{RuleWeeklySerial, prTest, "  stage-c-4-gpu-h200:", "strategy:"}}},
		{"extra cron", rocm, replaceAfter("  schedule:", "    - cron: '0 15 * * 6'\n", "    - cron: '0 15 * * 6'\n    - cron: '30 4 * * *'\n"),
			[]expected{{RuleCron, rocm, "", "'30 4 * * *'"}}},
		{"deleted job", prTest, func(t *testing.T, text string) string { return deleteJob(t, text, "stage-c-2-gpu-h200") },
			[]expected{{RuleMissingJob, prTest, "", "jobs:"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := copyTree(t, milesFixture)
			p := filepath.Join(root, filepath.FromSlash(tc.file))
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			mutated := tc.edit(t, string(data))
			require.NotEqual(t, string(data), mutated)
			require.NoError(t, os.WriteFile(p, []byte(mutated), 0o644))

			res := lintTree(t, root)
			var got []string
			for _, f := range res.Findings {
				if f.String() != blackwellOrphan {
					got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
				}
				r, _ := LookupRule(f.Rule)
				assert.Equal(t, r.Severity, f.Severity, f.String())
			}
			var want []string
			for _, e := range tc.want {
				want = append(want, fmt.Sprintf("%s %s:%d", e.rule, e.file, lineOf(t, mutated, e.from, e.at)))
			}
			assert.ElementsMatch(t, want, got, "findings: %v", findingLines(res))
		})
	}
}

// deleteJob removes a job (its key and indented body) from a workflow.
func deleteJob(t *testing.T, text, id string) string {
	t.Helper()
	start := strings.Index(text, "\n  "+id+":\n")
	require.GreaterOrEqual(t, start, 0)
	end := start + 1
	lines := strings.SplitAfter(text[start+1:], "\n")
	for i, l := range lines {
		if i > 0 && strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "   ") {
			break
		}
		end += len(l)
	}
	return text[:start+1] + text[end:]
}

// lineOf returns the 1-based line of the first at after the first from.
func lineOf(t *testing.T, text, from, at string) int {
	t.Helper()
	return strings.Count(text[:anchorOffset(t, text, from, at)], "\n") + 1
}

// anchorOffset returns the byte offset of the first at after the first
// from.
func anchorOffset(t *testing.T, text, from, at string) int {
	t.Helper()
	a := strings.Index(text, from)
	require.GreaterOrEqual(t, a, 0, "%q", from)
	k := strings.Index(text[a:], at)
	require.GreaterOrEqual(t, k, 0, "%q after %q", at, from)
	return a + k
}
