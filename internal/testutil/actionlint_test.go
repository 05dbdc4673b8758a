//go:build unix

package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestActionlint_FlagsABrokenWorkflowAndPassesAGoodOne(t *testing.T) {
	bin := Actionlint(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yml")
	bad := filepath.Join(dir, "bad.yml")
	require.NoError(t, os.WriteFile(good, []byte("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo hi\n"), 0o644))
	require.NoError(t, os.WriteFile(bad, []byte("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nosuchkey.x }}\n"), 0o644))
	out, err := exec.Command(bin, "-no-color", good).CombinedOutput()
	assert.NoError(t, err, string(out))
	out, err = exec.Command(bin, "-no-color", bad).CombinedOutput()
	assert.Error(t, err)
	assert.True(t, strings.Contains(string(out), "bad.yml:6:"), string(out))
}
