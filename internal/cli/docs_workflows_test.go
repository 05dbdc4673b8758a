//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The history topic's workflow steps (the recipe that writes the history
// in a step after the tests, and the live write) pass actionlint, each
// placed in a job of a workflow of its own; so does its whole workflow
// (history site's, which publishes the page), as it is.
func TestDocs_HistoryWorkflowStepsAreActionlintClean(t *testing.T) {
	bin := testutil.Actionlint(t)
	tp, ok := docs.Lookup("history")
	require.True(t, ok)
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".github", "workflows"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	var files []string
	bs, _ := blocks(tp.Text)
	for _, b := range bs {
		if b.lang != "yaml" {
			continue
		}
		name := filepath.Join(repo, ".github", "workflows", "history-"+strconv.Itoa(b.line)+".yml")
		text := strings.Join(b.lines, "\n") + "\n"
		if !strings.HasPrefix(text, "name:") {
			text = "name: history\non: pull_request\njobs:\n  gpu:\n    runs-on: ubuntu-latest\n    steps:\n" + text
		}
		require.NoError(t, os.WriteFile(name, []byte(text), 0o644))
		files = append(files, name)
	}
	require.Len(t, files, 3, "the recipe, the live write and the page's workflow")
	cmd := exec.Command(bin, append([]string{"-no-color"}, files...)...)
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "actionlint finds:\n%s", out)
	assert.Empty(t, string(out))
}

// The hosts topic's whole workflows (the drain after the nightly) pass
// actionlint, each as a workflow file of a repository whose local action
// installs miles-ci, as the sample's does.
func TestDocs_HostsWorkflowsAreActionlintClean(t *testing.T) {
	bin := testutil.Actionlint(t)
	tp, ok := docs.Lookup("hosts")
	require.True(t, ok)
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	action, err := os.ReadFile("../../testdata/sample/.github/actions/setup-miles-ci/action.yml")
	require.NoError(t, err)
	testutil.WriteFile(t, repo, ".github/actions/setup-miles-ci/action.yml", string(action))
	var files []string
	bs, _ := blocks(tp.Text)
	for _, b := range bs {
		if b.lang != "yaml" || !slices.Contains(b.lines, "jobs:") {
			continue
		}
		files = append(files, testutil.WriteFile(t, repo, ".github/workflows/hosts-"+strconv.Itoa(b.line)+".yml", strings.Join(b.lines, "\n")+"\n"))
	}
	require.NotEmpty(t, files, "the drain's workflow")
	cmd := exec.Command(bin, append([]string{"-no-color"}, files...)...)
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "actionlint finds:\n%s", out)
	assert.Empty(t, string(out))
	for _, f := range files {
		text, err := os.ReadFile(f)
		require.NoError(t, err)
		assert.Contains(t, string(text), "if: vars.MILES_CI_DRAIN == 'apply'", "--apply waits for the repository variable")
		assert.Contains(t, string(text), "--apply --drain-log", "an applied drain keeps its log")
	}
}
