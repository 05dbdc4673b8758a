package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePytest behaves as pytest does for what the demo must avoid: it writes
// .pytest_cache unless the cache provider is off, and bytecode unless
// PYTHONDONTWRITEBYTECODE is set.
const fakePytest = `#!/bin/sh
case " $PYTEST_ADDOPTS $* " in *" no:cacheprovider "*) ;; *) mkdir -p .pytest_cache ;; esac
[ -n "$PYTHONDONTWRITEBYTECODE" ] || mkdir -p tests/__pycache__
echo "fake pytest ran"
`

// TestDemo_PlainTextAndACleanTestdata runs `make demo`'s script on a copy of
// the sample repository, its output a pipe, without python3 (the GPU stage
// then shows its plan only, which keeps the test fast) and with a fake
// pytest.
func TestDemo_PlainTextAndACleanTestdata(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join("..", "..", "testdata"))))
	bin := filepath.Join(dir, "bin")
	require.NoError(t, os.Mkdir(bin, 0o755))
	self, err := os.Executable()
	require.NoError(t, err)
	require.NoError(t, os.Symlink(self, filepath.Join(bin, "miles-ci")))
	// Every command of PATH but Python and pytest.
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, "python") || name == "pytest" || name == "miles-ci" {
				continue
			}
			_ = os.Symlink(filepath.Join(d, name), filepath.Join(bin, name)) // the first one found wins
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(bin, "pytest"), []byte(fakePytest), 0o755))

	cmd := exec.Command(filepath.Join(dir, "demo.sh"), filepath.Join(bin, "miles-ci"))
	cmd.Env = []string{"PATH=" + bin, "MILES_CI_TEST_MAIN=1", "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "fake pytest ran", "the CPU stage ran")
	assert.NotContains(t, string(out), "\x1b", "no ANSI codes when the output is not a terminal")

	var left []string
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, "sample"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && (d.Name() == ".pytest_cache" || d.Name() == "__pycache__") {
			left = append(left, strings.TrimPrefix(p, dir))
		}
		return err
	}))
	assert.Empty(t, left, "the demo leaves the sample repository as committed")
}
