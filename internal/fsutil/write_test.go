//go:build unix

package fsutil

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// withUmask runs the test under umask u; tests of this package do not run
// in parallel, so the process-wide umask is theirs.
func withUmask(t *testing.T, u int) {
	t.Helper()
	old := syscall.Umask(u)
	t.Cleanup(func() { syscall.Umask(old) })
}

func mode(t *testing.T, path string) fs.FileMode {
	t.Helper()
	st, err := os.Lstat(path)
	require.NoError(t, err)
	return st.Mode()
}

// entries lists dir, to show that no temporary file was left behind.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFile_NewFileHonoursTheUmask(t *testing.T) {
	for _, tc := range []struct {
		umask int
		want  fs.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o002, 0o664}} {
		t.Run(fmt.Sprintf("%04o", tc.umask), func(t *testing.T) {
			withUmask(t, tc.umask)
			path := filepath.Join(t.TempDir(), "out.json")
			require.NoError(t, WriteFile(path, []byte("x\n")))
			assert.Equal(t, tc.want, mode(t, path))
			assert.Equal(t, []string{"out.json"}, entries(t, filepath.Dir(path)))
		})
	}
}

func TestWriteFile_ExistingFileKeepsItsMode(t *testing.T) {
	withUmask(t, 0o022)
	for _, perm := range []fs.FileMode{0o600, 0o640, 0o664, 0o755} {
		t.Run(perm.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.json")
			require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o600))
			require.NoError(t, os.Chmod(path, perm))
			require.NoError(t, WriteFile(path, []byte("new\n")))
			assert.Equal(t, perm, mode(t, path))
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "new\n", string(got))
		})
	}
}

func TestWriteFile_WritesThroughLinks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "real"), 0o755))
	real := filepath.Join(dir, "real", "timings.json")
	require.NoError(t, os.WriteFile(real, []byte("old\n"), 0o640))
	// A chain: a relative link to a link in another directory.
	require.NoError(t, os.Symlink("real/timings.json", filepath.Join(dir, "hop")))
	link := filepath.Join(dir, "sub", "link.json")
	require.NoError(t, os.Mkdir(filepath.Dir(link), 0o755))
	require.NoError(t, os.Symlink("../hop", link))

	require.NoError(t, WriteFile(link, []byte("new\n")))

	assert.Equal(t, fs.ModeSymlink, mode(t, link)&fs.ModeSymlink, "the link must stay a link")
	assert.Equal(t, fs.ModeSymlink, mode(t, filepath.Join(dir, "hop"))&fs.ModeSymlink)
	got, err := os.ReadFile(real)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(got))
	assert.Equal(t, fs.FileMode(0o640), mode(t, real))
	assert.Equal(t, []string{"timings.json"}, entries(t, filepath.Join(dir, "real")))
	assert.Equal(t, []string{"link.json"}, entries(t, filepath.Dir(link)))
}

func TestWriteFile_DanglingLinkCreatesItsTarget(t *testing.T) {
	withUmask(t, 0o022)
	dir := t.TempDir()
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("target.json", link))
	require.NoError(t, WriteFile(link, []byte("new\n")))
	assert.Equal(t, fs.ModeSymlink, mode(t, link)&fs.ModeSymlink)
	got, err := os.ReadFile(filepath.Join(dir, "target.json"))
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(got))
	assert.Equal(t, fs.FileMode(0o644), mode(t, filepath.Join(dir, "target.json")))
}

func TestWriteFile_LinkLoopIsAnError(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.Symlink("b", a))
	require.NoError(t, os.Symlink("a", b))
	err := WriteFile(a, []byte("x"))
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.ELOOP)
	assert.ElementsMatch(t, []string{"a", "b"}, entries(t, dir))
}

// A pipe reached by a /proc/self/fd link is what /dev/stdout is when
// stdout is piped: the data must come out of the pipe.
func TestWriteFile_PipeLinkIsWrittenInPlace(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	path := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	done := make(chan []byte)
	go func() {
		buf := make([]byte, 64)
		n, _ := r.Read(buf)
		done <- buf[:n]
	}()
	require.NoError(t, WriteFile(path, []byte("to the pipe\n")))
	select {
	case got := <-done:
		assert.Equal(t, "to the pipe\n", string(got))
	case <-time.After(10 * time.Second):
		t.Fatal("nothing arrived on the pipe within 10 s")
	}
}

func TestWriteFile_FIFOWithReaderIsWrittenInPlace(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	require.NoError(t, err)
	defer r.Close()
	require.NoError(t, WriteFile(fifo, []byte("through the fifo\n")))
	got, err := io.ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, "through the fifo\n", string(got))
	assert.NotZero(t, mode(t, fifo)&fs.ModeNamedPipe, "the FIFO must stay a FIFO")
}

func TestWriteFile_FIFOWithoutReaderFailsAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	done := make(chan error, 1)
	go func() { done <- WriteFile(fifo, []byte("x")) }()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, syscall.ENXIO)
	case <-time.After(10 * time.Second):
		t.Fatal("WriteFile waited for a reader of the FIFO")
	}
	assert.NotZero(t, mode(t, fifo)&fs.ModeNamedPipe)
	assert.Equal(t, []string{"fifo"}, entries(t, filepath.Dir(fifo)))
}

// /dev/null and /dev/full must be written, not replaced by a regular file.
// As root the test makes device nodes of its own, which a wrong rename
// would replace; otherwise it writes the system's, which a wrong rename
// would fail to replace (the user may not write /dev), with an error.
func TestWriteFile_DeviceIsWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	var want []string
	for _, tc := range []struct {
		name  string
		minor int
		err   error
	}{{"null", 3, nil}, {"full", 7, syscall.ENOSPC}} {
		t.Run(tc.name, func(t *testing.T) {
			dev := filepath.Join(dir, tc.name)
			if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|tc.minor); err == nil {
				want = append(want, tc.name)
			} else if os.Geteuid() != 0 {
				dev = "/dev/" + tc.name
				if _, err := os.Stat(dev); err != nil {
					testutil.Skip(t, dev+" does not exist")
				}
			} else {
				testutil.Skip(t, fmt.Sprintf("root cannot create a device node: %v", err))
			}
			want = append(want, tc.name+"-link")
			link := filepath.Join(dir, tc.name+"-link")
			require.NoError(t, os.Symlink(dev, link))
			for _, path := range []string{dev, link} {
				err := WriteFile(path, []byte("data\n"))
				if tc.err == nil {
					assert.NoError(t, err)
				} else {
					assert.ErrorIs(t, err, tc.err)
				}
				assert.NotZero(t, mode(t, dev)&fs.ModeCharDevice, "%s must stay a device", dev)
			}
		})
	}
	assert.ElementsMatch(t, want, entries(t, dir))
}

func TestWriteFile_DirectoryIsAnErrorAndLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	require.NoError(t, os.Mkdir(target, 0o755))
	require.Error(t, WriteFile(target, []byte("x")))
	assert.Equal(t, []string{"out.json"}, entries(t, dir))
}

func TestWriteFile_FailedRenameLeavesNoTemporaryFile(t *testing.T) {
	// A dangling link to a path whose parent is a file: the temporary file
	// cannot even be created there; and a link to a directory's place.
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d", "x"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "d", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d", "sub", "keep"), nil, 0o644))
	link := filepath.Join(dir, "d", "link")
	require.NoError(t, os.Symlink("sub", link))
	// Stat follows the link to a directory: written in place, EISDIR.
	require.Error(t, WriteFile(link, []byte("x")))
	assert.ElementsMatch(t, []string{"x", "sub", "link"}, entries(t, filepath.Join(dir, "d")))
	require.Error(t, WriteFile(filepath.Join(dir, "d", "x", "y"), []byte("x")))
	assert.ElementsMatch(t, []string{"x", "sub", "link"}, entries(t, filepath.Join(dir, "d")))
}

// The rename itself failing (the target turned into a directory between
// the check and the rename) must remove the temporary file too.
func TestReplace_FailedRenameRemovesTheTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.json")
	require.NoError(t, os.Mkdir(target, 0o755))
	err := replace(target, []byte("x"), nil)
	require.Error(t, err)
	assert.Equal(t, []string{"out.json"}, entries(t, dir))
}

// A step log redirected with `>> log` is the stdout of `report merge -o
// /dev/stdout`: the data must be appended to it through the descriptor,
// not written to a new file that replaces the log.
func TestWriteFile_ADescriptorNameWritesThroughTheOpenDescriptor(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		testutil.Skip(t, "there is no /proc/self/fd")
	}
	dir := t.TempDir()
	for _, name := range []func(fd uintptr) string{
		func(fd uintptr) string { return fmt.Sprintf("/dev/fd/%d", fd) },
		func(fd uintptr) string { return fmt.Sprintf("/proc/self/fd/%d", fd) },
		func(fd uintptr) string {
			link := filepath.Join(dir, fmt.Sprintf("link-%d", fd))
			require.NoError(t, os.Symlink(fmt.Sprintf("/dev/fd/%d", fd), link))
			return link
		},
	} {
		logPath := filepath.Join(dir, "log")
		require.NoError(t, os.WriteFile(logPath, []byte("before\n"), 0o644))
		before, err := os.Stat(logPath)
		require.NoError(t, err)
		log, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
		require.NoError(t, err)
		path := name(log.Fd())
		require.NoError(t, WriteFile(path, []byte("report\n")), path)
		_, err = log.WriteString("after\n")
		require.NoError(t, err)
		require.NoError(t, log.Close())

		got, err := os.ReadFile(logPath)
		require.NoError(t, err)
		assert.Equal(t, "before\nreport\nafter\n", string(got), path)
		after, err := os.Stat(logPath)
		require.NoError(t, err)
		assert.True(t, os.SameFile(before, after), "%s: the log must not be replaced", path)
	}
}

// "link/.." is the parent of the link's target, as the system reads the
// path, not the directory the text "link/.." cleans to. (The paths are
// written out: filepath.Join would clean them.)
func TestWriteFile_DotDotAfterALinkIsWhereTheSystemGoes(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.MkdirAll(filepath.Join("real", "deep"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join("real", "deep"), "deeplink"))
	require.NoError(t, os.Symlink("out.json", filepath.Join("real", "rel.json")))

	require.NoError(t, WriteFile("deeplink/../r.json", []byte("a")))
	got, err := os.ReadFile(filepath.Join("real", "r.json"))
	require.NoError(t, err)
	assert.Equal(t, "a", string(got))
	assert.NoFileExists(t, "r.json")

	// A relative link reached that way points from its own directory.
	require.NoError(t, WriteFile("deeplink/../rel.json", []byte("b")))
	got, err = os.ReadFile(filepath.Join("real", "out.json"))
	require.NoError(t, err)
	assert.Equal(t, "b", string(got))
	assert.NoFileExists(t, "out.json")

	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	assert.Len(t, entries, 2, "no temporary file left beside the working directory")
}

// A descriptor name borrows a descriptor: WriteFile must leave it open, also
// after garbage collections have run every finalizer. An *os.File made over
// the borrowed number and dropped would close it in its finalizer, and the
// number, reused by a later open, would then be closed under its new owner.
func TestWriteFile_ADescriptorNameLeavesTheDescriptorOpen(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		testutil.Skip(t, "there is no /proc/self/fd")
	}
	log, err := os.Create(filepath.Join(t.TempDir(), "log"))
	require.NoError(t, err)
	defer log.Close()
	var want syscall.Stat_t
	require.NoError(t, syscall.Fstat(int(log.Fd()), &want))
	for _, path := range []string{fmt.Sprintf("/dev/fd/%d", log.Fd()), fmt.Sprintf("/proc/self/fd/%d", log.Fd())} {
		require.NoError(t, WriteFile(path, []byte("x\n")), path)
	}
	collectGarbage()
	var got syscall.Stat_t
	require.NoError(t, syscall.Fstat(int(log.Fd()), &got), "the descriptor was closed")
	assert.Equal(t, [2]uint64{uint64(want.Dev), want.Ino}, [2]uint64{uint64(got.Dev), got.Ino}, "the descriptor names another file")
	_, err = log.WriteString("after\n")
	require.NoError(t, err)
}

// collectGarbage runs garbage collections until the finalizers of what was
// unreachable before the call have run: each round waits for the finalizer
// of an object dropped in that round.
func collectGarbage() {
	for range 5 {
		done := make(chan struct{})
		dropWithFinalizer(func() { close(done) })
		runtime.GC()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			return
		}
	}
}

// dropWithFinalizer allocates an object (with a pointer, so the tiny
// allocator, whose objects may never be finalized, does not take it) that
// calls f when it is collected, and drops it.
func dropWithFinalizer(f func()) {
	obj := &struct {
		p   *int
		pad [64]byte
	}{}
	runtime.SetFinalizer(obj, func(any) { f() })
}
