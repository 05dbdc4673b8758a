package registry

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pysrc"
	"github.com/radixark/miles-ci/internal/testutil"
)

// fakeReader stands in for the Python reader: each line "cpu <est> <suite>"
// is a register_cpu_ci call, "nosuite" a call without a suite, and "BAD"
// makes the file a syntax error on that line.
func fakeReader(src []byte, _ map[string]bool) ([]pysrc.Call, error) {
	var calls []pysrc.Call
	for i, line := range strings.Split(string(src), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0:
		case f[0] == "BAD":
			return nil, &pysrc.SyntaxError{Line: i + 1, Msg: "unexpected token"}
		case f[0] == "nosuite":
			calls = append(calls, pysrc.Call{Func: "register_cpu_ci", Line: i + 1, Args: args(pos(intV(1)))})
		case f[0] == "cpu" && len(f) == 3:
			var est int64
			fmt.Sscan(f[1], &est)
			calls = append(calls, pysrc.Call{Func: "register_cpu_ci", Line: i + 1, Args: args(pos(intV(est)), pos(strV(f[2])))})
		}
	}
	return calls, nil
}

func useFakeReader(t *testing.T) {
	t.Helper()
	saved := readCalls
	readCalls = fakeReader
	t.Cleanup(func() { readCalls = saved })
}

func TestCollect_KeepsDiscoveryThenSourceOrder(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/test_b.py":  "cpu 2 stage-b-cpu\ncpu 3 stage-a-cpu\n",
		"tests/e2e/test_a.py":  "cpu 1 stage-b-cpu\n",
		"tests/fast/test_c.py": "",
	})
	reg, err := Collect(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/test_a.py", "tests/e2e/test_b.py", "tests/fast/test_c.py"}, reg.Files)
	var got []string
	for _, r := range reg.Registrations {
		got = append(got, fmt.Sprintf("%s:%d %s %g implicit=%v", r.File, r.Line, r.Suite, r.EstTime, r.Implicit))
	}
	assert.Equal(t, []string{
		"tests/e2e/test_a.py:1 stage-b-cpu 1 implicit=false",
		"tests/e2e/test_b.py:1 stage-b-cpu 2 implicit=false",
		"tests/e2e/test_b.py:2 stage-a-cpu 3 implicit=false",
		"tests/fast/test_c.py:0 stage-a-cpu 1 implicit=true",
	}, got)
}

func TestCollect_ReportsEveryFailingFileFirstInDiscoveryOrder(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/test_b.py":      "cpu 2 stage-b-cpu\nnosuite\nBAD\n",
		"tests/e2e/test_a.py":      "cpu 1 stage-b-cpu\n",
		"tests/ci/test_none.py":    "\n",
		"tests/fast/test_bad.py":   "\n\nBAD\n",
		"tests/fast-gpu/test_m.py": "nosuite\n",
	})
	_, err := Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{
		"No CI registry found in tests/ci/test_none.py",
		"tests/e2e/test_b.py:3: invalid syntax: unexpected token",
		"tests/fast-gpu/test_m.py: suite is required in register_cpu_ci()",
		"tests/fast/test_bad.py:3: invalid syntax: unexpected token",
	}, errs.Lines())
	assert.Equal(t, "No CI registry found in tests/ci/test_none.py (and 3 more failing files)", err.Error())
	assert.Equal(t, 3, errs[1].Line)
}

// TestCollect_KeepsFileNamesWithControlCharacters: a control character in
// a test file's name is escaped where the name is printed, never refused;
// the registration keeps the name as it is on disk.
func TestCollect_KeepsFileNamesWithControlCharacters(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	names := []string{
		"tests/e2e/tab\tdir/test_a.py",
		"tests/e2e/test_\n::error title=X::y.py",
		"tests/e2e/test_\r.py",
		"tests/e2e/test_\x1b[31mred.py",
		"tests/e2e/test_\u0085.py",
		"tests/e2e/test_100%.py",
	}
	tree := map[string]string{}
	for _, n := range names {
		tree[n] = "cpu 1 stage-b-cpu\n"
	}
	testutil.WriteTree(t, dir, tree)
	regs, err := Collect(dir, config.Default())
	require.NoError(t, err)
	var got []string
	for _, r := range regs.Registrations {
		got = append(got, r.File)
	}
	assert.ElementsMatch(t, names, got)
}

// TestCollect_RefusesFileNamesThatAreNotUTF8: such a name cannot survive a
// report (JSON and XML hold UTF-8 only), so it is refused at discovery,
// quoted to show its bytes, and the other files are still read.
func TestCollect_RefusesFileNamesThatAreNotUTF8(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/test_\xff.py":      "cpu 1 stage-b-cpu\n",
		"tests/e2e/lat\xe9/test_a.py": "cpu 1 stage-b-cpu\n",
		"tests/e2e/test_bad.py":       "BAD\n",
		"tests/e2e/test_é_ok.py":      "cpu 1 stage-b-cpu\n",
	})
	_, err := Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	const why = ": the file name is not valid UTF-8, which reports and CI logs cannot hold; rename the file"
	assert.Equal(t, []string{
		`"tests/e2e/lat\xe9/test_a.py"` + why,
		"tests/e2e/test_bad.py:1: invalid syntax: unexpected token",
		`"tests/e2e/test_\xff.py"` + why,
	}, errs.Lines())
}

// TestCollect_ParallelResultIsTheSequentialOne builds a tree with errors in
// many files and checks that every run, on any number of workers, gives
// exactly what reading the files one by one in discovery order gives.
func TestCollect_ParallelResultIsTheSequentialOne(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(7))
	files := map[string]string{}
	roots := []string{"tests/fast", "tests/fast-gpu", "tests/e2e", "tests/ci"}
	for i := range 400 {
		name := fmt.Sprintf("%s/d%d/test_%03d.py", roots[rng.Intn(len(roots))], rng.Intn(7), i)
		var body strings.Builder
		for range rng.Intn(4) {
			switch rng.Intn(10) {
			case 0:
				body.WriteString("BAD\n")
			case 1:
				body.WriteString("nosuite\n")
			default:
				fmt.Fprintf(&body, "cpu %d stage-b-cpu\n", rng.Intn(100))
			}
		}
		files[name] = body.String()
	}
	testutil.WriteTree(t, dir, files)
	cfg := config.Default()

	// The sequential rule, spelled out.
	paths, err := Discover(dir, cfg)
	require.NoError(t, err)
	var wantLines []string
	for _, p := range paths {
		src, err := os.ReadFile(filepath.Join(dir, p))
		require.NoError(t, err)
		if _, ferr := FileRegistrations(p, src, cfg, nil); ferr != nil {
			wantLines = append(wantLines, ferr.Msg)
		}
	}
	require.Greater(t, len(wantLines), 20, "the tree should fail in many files")

	for _, procs := range []int{1, 2, 8, 32} {
		prev := runtime.GOMAXPROCS(procs)
		for range 5 {
			_, err := Collect(dir, cfg)
			var errs Errors
			require.ErrorAs(t, err, &errs)
			assert.Equal(t, wantLines, errs.Lines(), "GOMAXPROCS=%d", procs)
		}
		runtime.GOMAXPROCS(prev)
	}
}

func TestCollect_SuccessfulTreeIsIdenticalAcrossWorkerCounts(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("tests/e2e/d%d/test_%03d.py", i%13, i)] = fmt.Sprintf("cpu %d stage-b-cpu\ncpu %d stage-a-cpu\n", i, i+1)
	}
	testutil.WriteTree(t, dir, files)
	prev := runtime.GOMAXPROCS(1)
	want, err := Collect(dir, config.Default())
	runtime.GOMAXPROCS(prev)
	require.NoError(t, err)
	require.Len(t, want.Registrations, 600)
	for _, procs := range []int{2, 16} {
		prev := runtime.GOMAXPROCS(procs)
		got, err := Collect(dir, config.Default())
		runtime.GOMAXPROCS(prev)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
}

func TestCollect_RefusesAFileOverTheSizeLimit(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/test_small.py": "cpu 1 stage-b-cpu\n"})
	big := filepath.Join(dir, "tests/e2e/test_huge.py")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(50<<20)) // 50 MB, sparse: cheap to make
	require.NoError(t, f.Close())

	_, err = Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{"tests/e2e/test_huge.py: file is 52428800 bytes, larger than the 16 MiB a test file may have"}, errs.Lines())
}

func TestCollect_UnresolvableSymlinkIsAnErrorNamingIt(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	symlink(t, "test_loop.py", filepath.Join(dir, "tests/e2e/test_loop.py"))
	symlink(t, "nowhere.py", filepath.Join(dir, "tests/e2e/test_dangling.py"))
	_, err := Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{
		"tests/e2e/test_dangling.py: cannot read file: no such file or directory",
		"tests/e2e/test_loop.py: cannot read file: too many levels of symbolic links",
	}, errs.Lines())
}

func TestCollect_UnreadableFileIsAnErrorNamingIt(t *testing.T) {
	if !testutil.RunAsNonRoot(t) {
		return // root reads every file
	}
	useFakeReader(t)
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{"tests/e2e/test_locked.py": "cpu 1 stage-b-cpu\n"})
	require.NoError(t, os.Chmod(filepath.Join(dir, "tests/e2e/test_locked.py"), 0o000))
	_, err := Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{"tests/e2e/test_locked.py: cannot read file: permission denied"}, errs.Lines())
}

func TestCollect_ReadsFilesOfEverySizeUpToTheLimit(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	// Sizes around the reuse of a worker's buffer: a big file, then small
	// ones, must not leak the big file's tail into the next.
	big := "cpu 7 stage-b-cpu\n" + strings.Repeat("#\n", 600_000)
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/test_1.py": big,
		"tests/e2e/test_2.py": "cpu 1 stage-b-cpu\n",
		"tests/e2e/test_3.py": "",
	})
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	_, err := Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	assert.Equal(t, []string{"No CI registry found in tests/e2e/test_3.py"}, errs.Lines())
}

func TestReadFile_ReadsExactBytes(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	content := bytes.Repeat([]byte("abc\x00\xff"), 1000)
	require.NoError(t, os.WriteFile(p, content, 0o644))
	for _, buf := range [][]byte{nil, make([]byte, 0, 3), make([]byte, 100, 100_000)} {
		got, _, err := readFile(p, buf, nil)
		require.NoError(t, err)
		assert.Equal(t, content, got)
	}
}

// Overlapping roots list a file twice; it is read while the walk goes on,
// possibly twice, and must still count once.
func TestCollect_OverlappingRootsCountAFileOnce(t *testing.T) {
	useFakeReader(t)
	dir := t.TempDir()
	testutil.WriteTree(t, dir, map[string]string{
		"tests/e2e/test_a.py":     "cpu 1 stage-b-cpu\n",
		"tests/e2e/sub/test_b.py": "cpu 2 stage-b-cpu\n",
	})
	cfg := config.Default()
	cfg.Roots = []string{"tests/e2e", "tests", "tests/e2e/sub"}
	reg, err := Collect(dir, cfg)
	require.NoError(t, err)
	assert.Equal(t, []string{"tests/e2e/sub/test_b.py", "tests/e2e/test_a.py"}, reg.Files)
	require.Len(t, reg.Registrations, 2)
	assert.Equal(t, "tests/e2e/sub/test_b.py", reg.Registrations[0].File)
	assert.Equal(t, "tests/e2e/test_a.py", reg.Registrations[1].File)
}

// The workers' memory does not grow with the number of cores times the file
// size: eight files near the size limit, collected by eight workers, never
// have more than six files' worth of heap in use (eight and more before the
// budget: 129 MiB; one worker: 32 MiB). Heap in use counts garbage the
// collector has not reached yet, so the collector runs often here and the
// bound leaves room for what it has not: 4 files' worth failed now and then
// on a loaded machine (66 MiB).
func TestCollect_BigFilesShareOneMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	body := "register_cpu_ci(1, 'stage-b-cpu')\n" + strings.Repeat("x = 1\n", (MaxFileSize-64)/6)
	for i := range 8 {
		files[fmt.Sprintf("tests/e2e/test_%d.py", i)] = body
	}
	testutil.WriteTree(t, dir, files)
	prev := runtime.GOMAXPROCS(8)
	defer runtime.GOMAXPROCS(prev)
	defer debug.SetGCPercent(debug.SetGCPercent(25))
	runtime.GC()

	var peak uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	reg, err := Collect(dir, config.Default())
	close(stop)
	<-done
	require.NoError(t, err)
	assert.Len(t, reg.Registrations, 8)
	t.Logf("peak heap in use: %d MiB", peak>>20)
	assert.Less(t, peak, uint64(6*MaxFileSize), "peak heap in use: %d MiB", peak>>20)
}
