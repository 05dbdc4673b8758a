package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTimingsMerge_LaterFileWinsAndOutputIsSorted(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	b := filepath.Join(dir, "b.json")
	require.NoError(t, os.WriteFile(a, []byte(`{"version": 1, "timings": {"tests/e2e/test_z.py": 10, "tests/e2e/test_a.py": 1.5}}`), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(`{"version": 1, "timings": {"tests/e2e/test_a.py": 2}}`), 0o644))

	f, out, errOut := suitesFactory(dir, nil)
	code := Main([]string{"timings", "merge", a, b}, f)
	require.Equal(t, 0, code, errOut.String())
	assert.Equal(t, "{\n  \"version\": 1,\n  \"timings\": {\n    \"tests/e2e/test_a.py\": 2,\n    \"tests/e2e/test_z.py\": 10\n  }\n}\n", out.String())

	merged := filepath.Join(dir, "merged.json")
	f, out, errOut = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"timings", "merge", "-o", merged, b, a}, f), errOut.String())
	assert.Empty(t, out.String())
	data, err := os.ReadFile(merged)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"tests/e2e/test_a.py": 1.5`, "a, given last, wins")
}

func TestTimingsMerge_BadFileIsOneLineErrorNamingIt(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"version": 2, "timings": {}}`), 0o644))
	f, out, errOut := suitesFactory(dir, nil)
	assert.Equal(t, 1, Main([]string{"timings", "merge", bad}, f))
	assert.Empty(t, out.String())
	assert.Contains(t, errOut.String(), `read timings "`+bad+`"`)

	f, _, errOut = suitesFactory(dir, nil)
	assert.Equal(t, 2, Main([]string{"timings", "merge"}, f), "no input is a usage error")
	assert.Contains(t, errOut.String(), "error: no input file given; expected the timings files the shards wrote with run --timings-out\n")
}

// -o writes through a link (the link stays), gives a new file the umask's
// mode (0644 under 022, not 0600), keeps an existing file's mode, and
// writes a pipe reached by /proc/self/fd (what /dev/stdout is) in place.
func TestTimingsMerge_OutputThroughLinksAndPipes(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.json")
	require.NoError(t, os.WriteFile(in, []byte(`{"version": 1, "timings": {"a.py": 1}}`), 0o644))

	fresh := filepath.Join(dir, "fresh.json")
	f, _, errOut := suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"timings", "merge", in, "-o", fresh}, f), errOut.String())
	st, err := os.Stat(fresh)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())

	require.NoError(t, os.Chmod(fresh, 0o640))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("fresh.json", link))
	f, _, errOut = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"timings", "merge", in, "-o", link}, f), errOut.String())
	lst, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, lst.Mode()&os.ModeSymlink, "the link must stay a link")
	st, err = os.Stat(fresh)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())

	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	got := make(chan []byte, 1)
	go func() { data, _ := io.ReadAll(r); got <- data }()
	f, _, errOut = suitesFactory(dir, nil)
	code := Main([]string{"timings", "merge", in, "-o", fmt.Sprintf("/proc/self/fd/%d", w.Fd())}, f)
	w.Close()
	require.Equal(t, 0, code, errOut.String())
	select {
	case data := <-got:
		assert.Contains(t, string(data), `"a.py": 1`)
	case <-time.After(10 * time.Second):
		t.Fatal("nothing arrived on the pipe")
	}
}
