package fsutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSameOutput(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.Mkdir("sub", 0o755))
	require.NoError(t, os.WriteFile("r.json", nil, 0o644))
	require.NoError(t, os.Symlink("r.json", "link.json"))
	require.NoError(t, os.Symlink("later.json", "dangling.json"))
	require.NoError(t, os.Symlink("dangling.json", "chain.json"))
	require.NoError(t, os.Symlink("sub/other.json", "elsewhere.json"))
	require.NoError(t, os.Mkdir(filepath.Join("sub", "deep"), 0o755))
	require.NoError(t, os.Symlink("sub", "dirlink"))
	require.NoError(t, os.Symlink(filepath.Join("sub", "deep"), "deeplink"))
	require.NoError(t, os.Symlink(filepath.Join("dirlink", "zz.json"), "viadir.json"))
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"r.json", "r.json", true},
		{"r.json", "./sub/../r.json", true},
		{"r.json", filepath.Join(dir, "r.json"), true},
		{"new.json", "sub/../new.json", true},
		{"r.json", "link.json", true},
		{"r.json", "sub/r.json", false},
		{"a.json", "b.json", false},
		{"/dev/null", "/dev/null", false},
		{"later.json", "dangling.json", true}, // the link creates later.json
		{"chain.json", "later.json", true},
		{"dangling.json", "elsewhere.json", false},
		// Directories reached through links are the same directories, and
		// ".." leaves the directory a link leads to, as the system has it.
		{"dirlink/a.json", "sub/a.json", true},
		{"viadir.json", "sub/zz.json", true},
		{"deeplink/../a.json", "sub/a.json", true},
		{"deeplink/../a.json", "a.json", false},
	} {
		assert.Equal(t, tc.want, SameOutput(tc.a, tc.b), "%s vs %s", tc.a, tc.b)
	}
}
