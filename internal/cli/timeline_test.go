package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
)

// ganttOf returns the lines of the one Mermaid chart of a step summary.
func ganttOf(t *testing.T, md string) []string {
	t.Helper()
	require.Equal(t, 1, strings.Count(md, "```mermaid\n"), "one chart in:\n%s", md)
	_, after, _ := strings.Cut(md, "```mermaid\n")
	body, _, ok := strings.Cut(after, "\n```\n")
	require.True(t, ok, "the chart ends")
	return strings.Split(body, "\n")
}

// Each shard's run draws its attempts in its step summary; the merge of
// the shards and of a rerun, through report summary, draws them side by
// side, a section per shard, the rerun in its shard's; the keys that
// place them are documented.
func TestReportSummary_AMergeDrawsTheShardsSideBySide(t *testing.T) {
	root := execRepo(t, map[string]string{
		"tests/e2e/test_a.py": gpuTest("a", ""),
		"tests/e2e/test_b.py": gpuTest("b", passOnceFixed),
		"tests/e2e/test_c.py": gpuTest("c", ""),
	})
	out := t.TempDir()
	shard := func(id, summary string, extra ...string) (int, string) {
		code, _, stderr := miles(t, root, map[string]string{"GITHUB_STEP_SUMMARY": filepath.Join(out, summary)},
			runArgs(append([]string{"--auto-partition-id", id, "--auto-partition-size", "2"}, extra...)...)...)
		md, err := os.ReadFile(filepath.Join(out, summary))
		require.NoError(t, err, stderr)
		return code, string(md)
	}
	r0, r1, rerun := filepath.Join(out, "0.json"), filepath.Join(out, "1.json"), filepath.Join(out, "1-rerun.json")
	code, md := shard("0", "0.md", "--json-report", r0)
	require.Equal(t, 0, code)
	assert.Equal(t, []string{"gantt", "    dateFormat x", "    axisFormat %s", "    todayMarker off", "    section shard 1/2"}, ganttOf(t, md)[:5])
	assert.Len(t, ganttOf(t, md), 5+2, "shard 0 runs a and c")
	code, md = shard("1", "1.md", "--json-report", r1)
	require.Equal(t, 1, code)
	assert.Regexp(t, `^    "tests/e2e/test_b.py" FAIL : crit, [0-9]+, [0-9]+$`, ganttOf(t, md)[5])
	require.NoError(t, os.WriteFile(filepath.Join(root, "fixed.marker"), nil, 0o644))
	code, _ = shard("1", "1-rerun.md", "--json-report", rerun, "--rerun-failed", r1)
	require.Equal(t, 0, code)

	suite := filepath.Join(out, "suite.json")
	code, _, stderr := miles(t, root, nil, "report", "merge", r0, r1, rerun, "-o", suite)
	require.Equal(t, 0, code, stderr)
	code, stdout, stderr := miles(t, root, nil, "report", "summary", suite)
	require.Equal(t, 0, code, stderr)
	chart := ganttOf(t, stdout)
	var sections []string
	bars := map[string]int{}
	for _, l := range chart[4:] {
		if name, ok := strings.CutPrefix(l, "    section "); ok {
			sections = append(sections, name)
			continue
		}
		bars[sections[len(sections)-1]]++
	}
	assert.Equal(t, []string{"shard 1/2", "shard 2/2"}, sections)
	assert.Equal(t, map[string]int{"shard 1/2": 2, "shard 2/2": 2}, bars, "b failed, then passed in the rerun")
	assert.Regexp(t, `\n    "tests/e2e/test_b.py" attempt 1 FAIL : crit, [0-9]+, [0-9]+\n    "tests/e2e/test_b.py" attempt 2 : [0-9]+, [0-9]+$`, strings.Join(chart, "\n"))

	merged, err := report.Read(suite)
	require.NoError(t, err)
	for _, f := range merged.Files {
		for _, a := range f.AttemptsDetail {
			assert.NotNil(t, a.Offset, f.File)
			assert.NotNil(t, a.Shard, f.File)
		}
	}
	code, doc, stderr := miles(t, t.TempDir(), nil, "help", "reports")
	require.Equal(t, 0, code, stderr)
	for _, k := range []string{"offset", "shard"} {
		assert.Contains(t, doc, `"`+k+`"`, "help reports documents the key")
	}
}
