//go:build unix

package cli

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
