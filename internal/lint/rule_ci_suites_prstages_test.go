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
	"github.com/radixark/miles-ci/internal/testutil"
)

// stageSelectionText is a stage selection in the form lint reads: a
// PR_GPU_STAGES frozenset of the roster's GPU stages, one a line (so it
// agrees with cfg).
func stageSelectionText(cfg *config.Config) string {
	var sb strings.Builder
	sb.WriteString("\"\"\"Stage selection (a fixture of miles-ci's lint tests).\"\"\"\n\nPR_GPU_STAGES = frozenset(\n    {\n")
	for _, s := range cfg.PRGPUStages() {
		fmt.Fprintf(&sb, "        %q,\n", s)
	}
	sb.WriteString("    }\n)\n\n\ndef select():\n    return PR_GPU_STAGES\n")
	return sb.String()
}

// prStagesFindings lints a tree holding only the stage selection text and
// returns its ci-suites findings as PATH:LINE:COL: SEVERITY: MESSAGE.
func prStagesFindings(t *testing.T, cfg *config.Config, text string) []string {
	t.Helper()
	root := testutil.TempTree(t, map[string]string{StageSelectionPath: text})
	res, err := Run(root, cfg, nil)
	require.NoError(t, err)
	var out []string
	for _, f := range res.Findings {
		if f.Rule != RuleCISuites {
			continue // no workflow: every suite's job is missing
		}
		out = append(out, fmt.Sprintf("%s:%d:%d: %s: %s", f.Path, f.Line, f.Col, f.Severity, f.Message))
	}
	return out
}

// stagePlace is where anchor first stands in the stage selection text.
func stagePlace(t *testing.T, text, anchor string) string {
	t.Helper()
	return StageSelectionPath + ":" + anchorPlace(t, text, "", anchor)
}

func TestPRStages_EachNameThatIsNoGPUStageOfTheRoster(t *testing.T) {
	cfg := config.Default()
	base := stageSelectionText(cfg)
	assert.Empty(t, prStagesFindings(t, cfg, base))

	// The rename case: the roster's stage-c-8-gpu-h100 renamed, the set
	// left on the old name. The old name is an error offered the new
	// one, the new one missing a warning.
	renamed, err := config.Parse("c.yaml", []byte(strings.Replace(string(config.DefaultYAML()), "name: stage-c-8-gpu-h100\n", "name: stage-c-8-gpu-h100x\n", 1)))
	require.NoError(t, err)
	assert.Equal(t, []string{
		stagePlace(t, base, "PR_GPU_STAGES") + ": warning: suite 'stage-c-8-gpu-h100x' is a GPU stage of the roster (c.yaml) that miles-ci policy may skip, but it is not in PR_GPU_STAGES, so the Python policy runs it on every pull request: add it there",
		stagePlace(t, base, `"stage-c-8-gpu-h100"`) + ": error: suite 'stage-c-8-gpu-h100' is in PR_GPU_STAGES but not in the roster (c.yaml), so the Python policy skips a stage no job runs; did you mean stage-c-8-gpu-h100x?",
	}, prStagesFindings(t, renamed, base))

	for _, tc := range []struct {
		name, edit, anchor, want string
	}{
		{"a CPU suite", `"stage-c-8-gpu-h200",`, `"stage-a-cpu"`,
			"error: suite 'stage-a-cpu' is in PR_GPU_STAGES but is a cpu suite in the roster " + builtIn + ": a pull request skips only GPU stages, so take it out"},
		{"an external suite", `"stage-c-8-gpu-h200",`, `"nightly-stage-c-8-gpu-mi350"`,
			"error: suite 'nightly-stage-c-8-gpu-mi350' is in PR_GPU_STAGES but is external in the roster " + builtIn + ": another repository's workflow runs it and a pull request here cannot skip it, so take it out"},
		{"a name on other runners", `"stage-c-8-gpu-h200",`, `"stage-c-8-gpu-b200"`,
			"error: suite 'stage-c-8-gpu-b200' is in PR_GPU_STAGES but not in the roster " + builtIn + ", so the Python policy skips a stage no job runs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(base, tc.edit, tc.edit+"\n        "+tc.anchor+",", 1)
			require.NotEqual(t, base, text)
			assert.Equal(t, []string{stagePlace(t, text, tc.anchor) + ": " + tc.want}, prStagesFindings(t, cfg, text))
		})
	}
}

// A PR_GPU_STAGES lint cannot read as a literal is a finding, never a
// pass; a file without one has nothing to compare.
func TestPRStages_WhatCannotBeReadIsAFinding(t *testing.T) {
	cfg := config.Default()
	base := stageSelectionText(cfg)
	assert.Empty(t, prStagesFindings(t, cfg, "import re\n"))
	built := "PR_GPU_STAGES = frozenset(s for s in STAGES)\n"
	assert.Equal(t, []string{
		StageSelectionPath + ":1:1: error: PR_GPU_STAGES cannot be read without running Python (PR_GPU_STAGES must be a set, list or tuple of literals), so it cannot be compared with the roster: write it as frozenset({\"suite\", …})",
	}, prStagesFindings(t, cfg, built))
	computed := strings.Replace(base, `"stage-c-8-gpu-h200",`, `"stage-c-8-gpu-" + SIZE,`, 1)
	assert.Equal(t, []string{
		stagePlace(t, computed, `"stage-c-8-gpu-" + SIZE`) + ": error: PR_GPU_STAGES holds a BinOp, not a suite name in quotes, so it cannot be compared with the roster",
	}, prStagesFindings(t, cfg, computed))
	changed := base + "PR_GPU_STAGES |= {\"stage-x\"}\n"
	assert.Equal(t, []string{
		stagePlace(t, changed, "PR_GPU_STAGES |=") + ": error: PR_GPU_STAGES is changed here after its literal, and lint compares only the literal with the roster: write the suites into the literal",
	}, prStagesFindings(t, cfg, changed))
	assert.Equal(t, []string{
		StageSelectionPath + ":1:1: error: Python cannot parse the stage selection ('{' was never closed), so its PR_GPU_STAGES cannot be compared with the roster",
	}, prStagesFindings(t, cfg, "PR_GPU_STAGES = frozenset({\n"))
}

// Miles' own stage selection, as pinned, agrees with the built-in roster.
func TestPRStages_MilesAsPinnedAgrees(t *testing.T) {
	ref := testutil.MilesRef(t)
	src, err := os.ReadFile(filepath.Join(ref, filepath.FromSlash(StageSelectionPath)))
	require.NoError(t, err)
	assert.Empty(t, prStagesFindings(t, config.Default(), string(src)))
}

// The suite meant for a name in PR_GPU_STAGES is a GPU stage of this
// repository: never an external suite, however near.
func TestPRStages_TheSuiteMeantIsNeverExternal(t *testing.T) {
	cfg := config.Default()
	base := stageSelectionText(cfg)
	text := strings.Replace(base, `"stage-c-8-gpu-h200",`, `"stage-c-8-gpu-h200",`+"\n        \"nightly-stage-c-8-gpu-mi35\",", 1)
	assert.Equal(t, []string{
		stagePlace(t, text, `"nightly-stage-c-8-gpu-mi35"`) + ": error: suite 'nightly-stage-c-8-gpu-mi35' is in PR_GPU_STAGES but not in the roster " + builtIn + ", so the Python policy skips a stage no job runs",
	}, prStagesFindings(t, cfg, text))
}
