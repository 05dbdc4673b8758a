package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// make build's -X flag names a variable by its package path; a wrong path
// links silently and leaves every binary "dev".
func TestMakeBuild_StampsTheVersion(t *testing.T) {
	t.Parallel()
	testutil.NeedCommand(t, "make")
	bin := filepath.Join(t.TempDir(), "miles-ci")
	build := exec.Command("make", "-s", "-C", filepath.Join("..", ".."), "build", "BIN="+bin, "VERSION=v9.8.7-test")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "miles-ci version v9.8.7-test\n", string(out))
}
