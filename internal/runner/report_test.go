package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteAtomic_ADirectoryTargetIsAnErrorAndLeavesNoTemporaryFile(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "report.json")
	require.NoError(t, os.Mkdir(target, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(target, "x"), []byte("x"), 0o644))

	require.Error(t, writeAtomic(target, []byte("{}")))
	entries, err := os.ReadDir(parent)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"report.json"}, names, "no temporary file left beside the target")
}
