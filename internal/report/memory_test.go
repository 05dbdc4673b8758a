package report

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// largeReport writes a report of at least size bytes to a file in dir and
// returns its path and size: files of three attempts each, every attempt
// with an output tail of tail bytes (none when 0).
func largeReport(tb testing.TB, dir string, size, tail int) (string, int64) {
	tb.Helper()
	out := strings.Repeat("output <line> & more\n", tail/21+1)[:tail]
	r := &Report{Suite: "stage-c-8-gpu-h100", Backend: "cuda", Partition: &Partition{ID: 0, Size: 1},
		Started: "2026-11-28T02:00:04.512Z", Elapsed: 4724.6, Cadence: "nightly",
		Host: &Host{Runner: "h100-runner-3", Hostname: "gpu-node-17", Repository: "radixark/miles", RunID: "7001", RunAttempt: "1"}}
	entry := func(i int) File {
		var atts []Attempt
		for a := 1; a <= 3; a++ {
			at := fail(a, 12.5, 1)
			at.Timeout, at.Cause = 4500, CauseTest
			if tail > 0 {
				at.OutputTail = &out
			}
			atts = append(atts, at)
		}
		return file(fmt.Sprintf("tests/e2e/dir%d/test_file_%d.py", i%97, i), Fail, atts...)
	}
	// One entry's size, to know how many make size.
	one, err := Marshal(&Report{Suite: "s", Backend: "b", Files: []File{entry(0)}})
	require.NoError(tb, err)
	two, err := Marshal(&Report{Suite: "s", Backend: "b", Files: []File{entry(0), entry(1)}})
	require.NoError(tb, err)
	for i := 0; i < size/(len(two)-len(one))+1; i++ {
		r.Files = append(r.Files, entry(i))
	}
	r.Finish()
	path := filepath.Join(dir, "large.json")
	require.NoError(tb, Write(path, r))
	st, err := os.Stat(path)
	require.NoError(tb, err)
	return path, st.Size()
}

// readCost reads the report at path with read and returns the bytes
// allocated while reading, and those still held by the report read.
func readCost(tb testing.TB, path string, read func(string) (*Report, error)) (allocated, kept uint64) {
	tb.Helper()
	var before, after, held runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	r, err := read(path)
	require.NoError(tb, err)
	runtime.ReadMemStats(&after)
	runtime.GC()
	runtime.ReadMemStats(&held)
	runtime.KeepAlive(r)
	return after.TotalAlloc - before.TotalAlloc, held.HeapAlloc - before.HeapAlloc
}

// Reading a report costs about what it keeps, never a multiple of the
// file: the whole-document reader allocated 17 times a report of many
// small entries (and held about 20 times its size at its peak).
func TestRead_AllocatesAtMostThreeTimesTheReport(t *testing.T) {
	path, size := largeReport(t, t.TempDir(), 8<<20, 0)
	allocated, kept := readCost(t, path, Read)
	t.Logf("a %d-byte report: %d bytes allocated (%.1f×), %d kept (%.2f×)", size, allocated, float64(allocated)/float64(size), kept, float64(kept)/float64(size))
	assert.Less(t, allocated, uint64(3*allocSlack*float64(size)), "bytes allocated reading the report")
	assert.Less(t, kept, uint64(size), "bytes the report read holds")
}

// A reader that never prints an output tail keeps none: reading a report
// of attempts that kept theirs holds a small part of it.
func TestReadWithoutOutput_KeepsNoOutputTail(t *testing.T) {
	path, size := largeReport(t, t.TempDir(), 8<<20, 16<<10)
	allocated, kept := readCost(t, path, ReadWithoutOutput)
	t.Logf("a %d-byte report: %d bytes allocated (%.1f×), %d kept (%.3f×)", size, allocated, float64(allocated)/float64(size), kept, float64(kept)/float64(size))
	assert.Less(t, allocated, uint64(3*allocSlack*float64(size)), "bytes allocated reading the report")
	assert.Less(t, kept, uint64(size/20), "bytes the report read holds")

	r, err := ReadWithoutOutput(path)
	require.NoError(t, err)
	assert.Nil(t, r.Files[0].AttemptsDetail[0].OutputTail)
	_, err = Marshal(r)
	assert.EqualError(t, err, "a report read without its output tails cannot be written")
	whole, err := Read(path)
	require.NoError(t, err)
	require.NotNil(t, whole.Files[0].AttemptsDetail[0].OutputTail)
	assert.Len(t, *whole.Files[0].AttemptsDetail[0].OutputTail, 16<<10)
}

// readWhole is Read as it was before reports were read a piece at a time,
// for comparison.
func readWhole(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseWhole(data)
}

// BenchmarkRead reads a report of 8 MiB: of many small entries, and of
// entries whose attempts kept an output tail of 16 KiB; "-whole" is the
// reader before it read a piece at a time.
func BenchmarkRead(b *testing.B) {
	for _, c := range []struct {
		name string
		tail int
		read func(string) (*Report, error)
	}{
		{"entries", 0, Read}, {"entries-whole", 0, readWhole},
		{"tails", 16 << 10, Read}, {"tails-without-output", 16 << 10, ReadWithoutOutput}, {"tails-whole", 16 << 10, readWhole},
	} {
		b.Run(c.name, func(b *testing.B) {
			path, size := largeReport(b, b.TempDir(), 8<<20, c.tail)
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.read(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
