//go:build unix

package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
)

// A runner that is a dangling link is a mistake to report, not a runner
// that is gone.
func TestCISuites_ADanglingLinkIsAFinding(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{"tests/ci/x": ""})
	require.NoError(t, os.Symlink("gone.py", filepath.Join(root, filepath.FromSlash(RunSuitePath))))
	res, err := Run(root, config.Default(), nil)
	require.NoError(t, err)
	assert.Contains(t, findingLines(res), "tests/ci/run_suite.py:1:1: error: cannot read the runner, so its CI_SUITES cannot be compared with the roster: open: no such file or directory [ci-suites]")
}
