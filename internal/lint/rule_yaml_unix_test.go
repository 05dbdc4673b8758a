//go:build unix

package lint

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

// An entry lint cannot read is a finding, never a hang or a crash.
func TestRules_UnreadableWorkflowEntries(t *testing.T) {
	about(t, RuleYAML)
	root := t.TempDir()
	dir := filepath.Join(root, ".github", "workflows")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "a-dir.yml"), 0o755))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "b-fifo.yml"), 0o644))
	require.NoError(t, os.Symlink("missing.yml", filepath.Join(dir, "c-broken.yaml")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a workflow"), 0o644))
	cfg, err := config.Parse("c.yaml", []byte(smallConfig))
	require.NoError(t, err)
	res, err := Run(root, cfg, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{
		".github/workflows/a-dir.yml:1:1: error: cannot read the workflow: is a directory, not a regular file [yaml]",
		".github/workflows/b-fifo.yml:1:1: error: cannot read the workflow: is a FIFO, not a regular file [yaml]",
		".github/workflows/c-broken.yaml:1:1: error: cannot read the workflow: open: no such file or directory [yaml]",
	}, findingLines(scoped(t, res)))
}
