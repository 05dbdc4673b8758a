//go:build unix

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
)

// The project's own workflows (ci.yml runs .ci/run; release.yml builds,
// attests and publishes make dist on a v* tag) are what GitHub runs with
// write permissions: actionlint, with shellcheck when it is installed, finds
// nothing in any of them.
func TestWorkflows_OwnWorkflowsAreActionlintClean(t *testing.T) {
	bin := testutil.Actionlint(t)
	root := testutil.ModuleRoot(t)
	var files []string
	for _, pattern := range []string{"*.yml", "*.yaml"} {
		m, err := filepath.Glob(filepath.Join(root, ".github", "workflows", pattern))
		require.NoError(t, err)
		files = append(files, m...)
	}
	for _, want := range []string{"ci.yml", "release.yml"} {
		require.Contains(t, files, filepath.Join(root, ".github", "workflows", want))
	}
	cmd := exec.Command(bin, append([]string{"-no-color"}, files...)...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "actionlint finds:\n%s", out)
	assert.Empty(t, string(out))
}

// The sample repository's workflows, which `make demo` and the docs show,
// pass actionlint too, given the roster's runner labels as the labels of
// self-hosted runners (as a repository with GPU runners configures it).
func TestWorkflows_SampleWorkflowsAreActionlintClean(t *testing.T) {
	bin := testutil.Actionlint(t)
	sample := filepath.Join(testutil.ModuleRoot(t), "testdata", "sample")
	var labels []string
	for _, s := range config.Default().Suites {
		for _, l := range s.RunsOn {
			if l != "self-hosted" && !strings.HasPrefix(l, "ubuntu-") && !slices.Contains(labels, l) {
				labels = append(labels, l)
			}
		}
	}
	require.NotEmpty(t, labels)
	cfg := testutil.WriteFile(t, t.TempDir(), "actionlint.yaml",
		"self-hosted-runner:\n  labels: ["+strings.Join(labels, ", ")+"]\n")
	// actionlint resolves ./.github/workflows/… from the repository root it
	// finds by its .git, which for the sample would be this checkout's: the
	// workflows are linted in a copy that is a root of its own.
	repo := t.TempDir()
	require.NoError(t, os.CopyFS(filepath.Join(repo, ".github"), os.DirFS(filepath.Join(sample, ".github"))))
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	files, err := filepath.Glob(filepath.Join(repo, ".github", "workflows", "*.yml"))
	require.NoError(t, err)
	require.Len(t, files, 3)
	cmd := exec.Command(bin, append([]string{"-no-color", "-config-file", cfg}, files...)...)
	cmd.Dir = repo
	out, err := cmd.CombinedOutput()
	assert.NoError(t, err, "actionlint finds:\n%s", out)
	assert.Empty(t, string(out))
}
