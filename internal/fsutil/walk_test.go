package fsutil

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A link named as the directory is followed and its files are named under
// the link; the links found inside are listed apart and never followed,
// so a link back up the tree cannot loop.
func TestFilesBelow_FollowsTheNamedLinkOnly(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, f := range []string{"real/a/r.json", "real/b.json", "real/notes.txt", "elsewhere/x.json"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		require.NoError(t, os.WriteFile(f, []byte("{}"), 0o644))
	}
	for link, target := range map[string]string{
		"link":        "real",
		"real/c":      "../elsewhere",        // a directory
		"real/d.json": "../elsewhere/x.json", // a report
		"real/up":     "..",                  // a loop
		"real/e.txt":  "notes.txt",           // neither: ignored
	} {
		require.NoError(t, os.Symlink(target, link))
	}

	for _, root := range []string{"real", "link", "link/"} {
		got, err := FilesBelow(root, ".json")
		require.NoError(t, err, root)
		base := filepath.Clean(root)
		assert.Equal(t, []string{base + "/a/r.json", base + "/b.json"}, got.Files, root)
		assert.Equal(t, []string{base + "/c", base + "/d.json", base + "/up"}, got.Links, root)
	}
}
