package filerun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestResolveSourceRoot_ResolvesLinksToAnAbsoluteDirectory(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(base, "real/src"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(base, "real/x"), 0o755))
	require.NoError(t, os.Symlink("real", filepath.Join(base, "link")))

	for _, in := range []string{base + "/link/src", base + "/link/src/", base + "//link/./src", base + "/real/x/../src"} {
		got, err := ResolveSourceRoot(in)
		require.NoError(t, err, in)
		assert.Equal(t, base+"/real/src", got, in)
	}
}

func TestResolveSourceRoot_ErrorsQuoteTheOSErrorAsPythonDoes(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(base, "afile"), nil, 0o644))
	require.NoError(t, os.Symlink("loop2", filepath.Join(base, "loop1")))
	require.NoError(t, os.Symlink("loop1", filepath.Join(base, "loop2")))
	t.Chdir(base)

	cases := map[string]string{
		"missing":        "cannot resolve CI source root missing: [Errno 2] No such file or directory: 'missing'",
		"./missing/deep": "cannot resolve CI source root ./missing/deep: [Errno 2] No such file or directory: 'missing'",
		"/nonexistent/x": "cannot resolve CI source root /nonexistent/x: [Errno 2] No such file or directory: '/nonexistent'",
		"afile/sub":      "cannot resolve CI source root afile/sub: [Errno 20] Not a directory: 'afile/sub'",
		"afile":          "CI source root is not a directory: " + base + "/afile",
		"loop1":          "cannot resolve CI source root loop1: [Errno 40] Too many levels of symbolic links: 'loop1'",
	}
	for in, want := range cases {
		_, err := ResolveSourceRoot(in)
		assert.EqualError(t, err, want, in)
	}
	got, err := ResolveSourceRoot(".")
	require.NoError(t, err)
	assert.Equal(t, base, got)
}

func TestPathHelpers_FollowPosixpath(t *testing.T) {
	for in, want := range map[string]string{"": ".", ".": ".", "a//b/./c/": "a/b/c", "//x": "//x", "///x": "/x", "./..": ".."} {
		assert.Equal(t, want, pathlibNormalize(in), "Path(%q)", in)
	}
	for in, want := range map[string]string{"/a/./b/../c": "/a/c", "//a//b": "//a/b", "///a": "/a", "/..": "/"} {
		assert.Equal(t, want, normpath(in), "normpath(%q)", in)
	}
	h, tl := split("/a/b//c")
	assert.Equal(t, []string{"/a/b", "c"}, []string{h, tl})
	assert.Equal(t, "/x", join("a", "/x"))
	assert.Equal(t, "a/x", join("a", "x"))
}
