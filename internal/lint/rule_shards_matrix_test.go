package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	staticMatrix = regexp.MustCompile(`(?m)^      matrix:\n        partition_id: \[[0-9, ]+\]\n`)
	staticSize   = regexp.MustCompile(`--auto-partition-size [0-9]+`)
)

// migrateToDynamic moves every sharded stage job of a Miles pr-test.yml to
// the dynamic matrix, and its policy job to miles-ci policy --shard-matrix
// after the install step, as `miles-ci help migrate` shows.
func migrateToDynamic(t *testing.T, text string) string {
	t.Helper()
	text = strings.Replace(text, "      skipped_stages: ${{ steps.resolve.outputs.skipped_stages }}\n",
		"      skipped_stages: ${{ steps.resolve.outputs.skipped_stages }}\n      shard_matrix: ${{ steps.resolve.outputs.shard_matrix }}\n", 1)
	text = strings.Replace(text, "        run: python -m tests.ci.ci_policy\n", "        run: miles-ci policy --shard-matrix\n", 1)
	text = strings.Replace(text, "      - name: Resolve CI policy inputs\n",
		"      - name: Install miles-ci\n        uses: ./.github/actions/setup-miles-ci\n      - name: Resolve CI policy inputs\n", 1)
	jobs := regexp.MustCompile(`(?m)^  (stage-[a-z0-9-]+):\n`).FindAllStringSubmatchIndex(text, -1)
	var b strings.Builder
	last := 0
	for i, m := range jobs {
		end := len(text)
		if i+1 < len(jobs) {
			end = jobs[i+1][0]
		}
		b.WriteString(text[last:m[0]])
		body := text[m[0]:end]
		stage := text[m[2]:m[3]]
		if staticMatrix.MatchString(body) && !strings.Contains(body, "--hw cpu") {
			body = staticMatrix.ReplaceAllString(body, fmt.Sprintf("      matrix: ${{ fromJSON(needs.resolve-ci-policy.outputs.shard_matrix)['%s'] }}\n", stage))
			body = staticSize.ReplaceAllString(body, "--auto-partition-size ${{ matrix.partition_size }} --expect-plan=${{ matrix.plan }}")
		}
		b.WriteString(body)
		last = end
	}
	b.WriteString(text[last:])
	require.Contains(t, b.String(), "outputs.shard_matrix)['stage-c-4-gpu-h200']")
	return b.String()
}

func TestDynamicMatrix_MilesMigratedLintsClean(t *testing.T) {
	about(t, stageRules...)
	const prTest = ".github/workflows/pr-test.yml"
	root := copyTree(t, milesFixture)
	p := filepath.Join(root, filepath.FromSlash(prTest))
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	migrated := migrateToDynamic(t, string(data))
	require.NoError(t, os.WriteFile(p, []byte(migrated), 0o644))
	res := lintTree(t, root)
	for _, f := range res.Findings {
		assert.NotEqual(t, Error, f.Severity, f.String())
	}
	if dir := os.Getenv("MILES_CI_DYNAMIC_OUT"); dir != "" {
		// For a second opinion by hand: actionlint on the migrated file.
		require.NoError(t, os.WriteFile(filepath.Join(dir, "pr-test.yml"), []byte(migrated), 0o644))
	}
}

func TestDynamicMatrix_ExpectPlanWithASpaceNeedsQuotes(t *testing.T) {
	about(t, stageRules...)
	const prTest = ".github/workflows/pr-test.yml"
	for _, tc := range []struct {
		form   string
		errors int
	}{
		{`--expect-plan ${{ matrix.plan }}`, 1},
		{`--expect-plan "${{ matrix.plan }}"`, 0},
		{`--expect-plan='${{ matrix.plan }}'`, 0},
	} {
		t.Run(tc.form, func(t *testing.T) {
			root := copyTree(t, milesFixture)
			p := filepath.Join(root, filepath.FromSlash(prTest))
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			text := replaceAfter("  stage-c-4-gpu-h200:", "--expect-plan=${{ matrix.plan }}", tc.form)(t, migrateToDynamic(t, string(data)))
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
			var errs []Finding
			for _, f := range lintTree(t, root).Findings {
				if f.Severity == Error {
					errs = append(errs, f)
				}
			}
			require.Len(t, errs, tc.errors)
			if tc.errors > 0 {
				assert.Contains(t, errs[0].Message, "every shard then fails with \"expected one argument\": write --expect-plan=${{ matrix.plan }}")
			}
		})
	}
}

func TestDynamicMatrix_EachMissIsAFindingOnItsLine(t *testing.T) {
	about(t, stageRules...)
	const prTest = ".github/workflows/pr-test.yml"
	cases := []mutation{
		{"wrong stage key", prTest, replaceAfter("  stage-c-4-gpu-h200:", "shard_matrix)['stage-c-4-gpu-h200']", "shard_matrix)['stage-c-8-gpu-h200']"),
			[]expected{{RuleShards, prTest, "  stage-c-4-gpu-h200:", "matrix:"}}},
		{"missing --expect-plan", prTest, replaceAfter("  stage-c-4-gpu-h200:", " --expect-plan=${{ matrix.plan }}", ""),
			[]expected{{RuleShards, prTest, "  stage-c-4-gpu-h200:", "python tests/ci/run_suite.py"}}},
		{"--expect-plan with a space: an empty plan vanishes", prTest, replaceAfter("  stage-c-4-gpu-h200:", "--expect-plan=${{ matrix.plan }}", "--expect-plan ${{ matrix.plan }}"),
			[]expected{{RuleShards, prTest, "  stage-c-4-gpu-h200:", "--expect-plan ${{ matrix.plan }}"}}},
		{"a fixed partition size", prTest, replaceAfter("  stage-c-4-gpu-h200:", "--auto-partition-size ${{ matrix.partition_size }}", "--auto-partition-size 3"),
			[]expected{{RuleShards, prTest, "  stage-c-4-gpu-h200:", "--auto-partition-size 3"}}},
		{"missing --shard-matrix", prTest, replaceAfter("  resolve-ci-policy:", "run: miles-ci policy --shard-matrix", "run: miles-ci policy"),
			[]expected{{RuleShards, prTest, "  resolve-ci-policy:", "miles-ci policy"}}},
		{"unpublished shard_matrix", prTest, replaceAfter("  resolve-ci-policy:", "      shard_matrix: ${{ steps.resolve.outputs.shard_matrix }}\n", ""),
			[]expected{{RuleShards, prTest, "  resolve-ci-policy:", "outputs:"}}},
		{"a CPU stage", prTest, replaceAfter("  stage-a-cpu:", "      matrix:\n        partition_id: [0, 1, 2, 3]\n", "      matrix: ${{ fromJSON(needs.resolve-ci-policy.outputs.shard_matrix)['stage-a-cpu'] }}\n"),
			[]expected{{RuleShards, prTest, "  stage-a-cpu:", "matrix:"}}},
		{"another job's outputs", prTest, replaceAfter("  stage-c-4-gpu-h200:", "needs.resolve-ci-policy.outputs.shard_matrix", "needs.resolve-ci-image.outputs.shard_matrix"),
			[]expected{{RuleShards, prTest, "  stage-c-4-gpu-h200:", "matrix:"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			root := copyTree(t, milesFixture)
			p := filepath.Join(root, filepath.FromSlash(tc.file))
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			migrated := migrateToDynamic(t, string(data))
			mutated := tc.edit(t, migrated)
			require.NotEqual(t, migrated, mutated)
			require.NoError(t, os.WriteFile(p, []byte(mutated), 0o644))

			res := lintTree(t, root)
			var got []string
			for _, f := range res.Findings {
				if f.Severity == Error {
					got = append(got, fmt.Sprintf("%s %s:%d", f.Rule, f.Path, f.Line))
				}
			}
			var want []string
			for _, e := range tc.want {
				want = append(want, fmt.Sprintf("%s %s:%d", e.rule, e.file, lineOf(t, mutated, e.from, e.at)))
			}
			assert.ElementsMatch(t, want, got, "findings: %v", findingLines(res))
		})
	}
}
