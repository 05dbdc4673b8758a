package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// make build's -X flags name variables by their package path; a wrong path
// links silently and leaves every binary "dev" with no commit.
func TestMakeBuild_StampsTheVersionAndCommit(t *testing.T) {
	testutil.SkipShort(t, "a make build of the binary")
	t.Parallel()
	testutil.NeedCommand(t, "make")
	bin := filepath.Join(t.TempDir(), "miles-ci")
	build := exec.Command("make", "-s", "-C", filepath.Join("..", ".."), "build", "BIN="+bin, "VERSION=v9.8.7-test")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	out, err = exec.Command(bin, "--version").CombinedOutput()
	require.NoError(t, err, "%s", out)
	head, err := exec.Command("git", "-C", filepath.Join("..", ".."), "rev-parse", "HEAD").Output()
	if err != nil {
		testutil.Skip(t, "the checkout is no git repository, so make build stamps no commit: "+err.Error())
	}
	assert.Regexp(t, `^miles-ci version v9\.8\.7-test \(commit `+strings.TrimSpace(string(head))+`(-dirty)?, go1\.\d+\S* \w+/\w+\)\n$`, string(out))
}
