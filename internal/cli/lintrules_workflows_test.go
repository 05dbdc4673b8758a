//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/lint"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The scheduled workflows `miles-ci help lint-rules` shows (the fleet and
// the external nightly checks) are what a repository pastes: put into a
// repository with the sample's install action, each passes actionlint and
// installs miles-ci before it runs it; without the action, lint reports
// each one's miles-ci, so the install they use is the action's.
func TestLintRulesTopic_ScheduledWorkflowsInstallThePinnedMilesCI(t *testing.T) {
	tp, ok := docs.Lookup("lint-rules")
	require.True(t, ok)
	bs, _ := blocks(tp.Text)
	repo := t.TempDir()
	var names []string
	for _, b := range bs {
		text := strings.Join(b.lines, "\n") + "\n"
		if b.lang != "yaml" || !strings.HasPrefix(text, "name: ") {
			continue
		}
		var wf struct{ Name string }
		require.NoError(t, yaml.Unmarshal([]byte(text), &wf))
		testutil.WriteFile(t, repo, ".github/workflows/"+wf.Name+".yml", text)
		names = append(names, wf.Name)
	}
	require.Equal(t, []string{"runner-fleet", "external-nightly"}, names)
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	sample := filepath.Join(testutil.ModuleRoot(t), "testdata", "sample", ".github", "actions")
	require.NoError(t, os.CopyFS(filepath.Join(repo, ".github", "actions"), os.DirFS(sample)))

	noInstall := func() []string {
		t.Helper()
		res, err := lint.Run(repo, config.Default(), nil)
		require.NoError(t, err)
		var out []string
		for _, f := range res.Findings {
			if f.Rule == lint.RuleNoInstall || f.Rule == lint.RuleInstallVersion {
				out = append(out, f.String())
			}
		}
		return out
	}
	assert.Empty(t, noInstall())
	files, err := filepath.Glob(filepath.Join(repo, ".github", "workflows", "*.yml"))
	require.NoError(t, err)
	cmd := exec.Command(testutil.Actionlint(t), append([]string{"-no-color"}, files...)...)
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "actionlint finds:\n%s", out)

	require.NoError(t, os.RemoveAll(filepath.Join(repo, ".github", "actions")))
	got := noInstall()
	require.Len(t, got, 2, "%q", got)
	for _, name := range names {
		assert.Contains(t, strings.Join(got, "\n"), ".github/workflows/"+name+".yml:")
		assert.Contains(t, strings.Join(got, "\n"), "error: job '"+name+"' runs miles-ci with no install step before it")
	}
}
