package registry

import (
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/treegen"
)

// benchTrees holds one generated tree per size for the whole test binary:
// writing 100k files takes longer than collecting them, and the benchmark
// function runs several times while the framework finds b.N.
var benchTrees = struct {
	sync.Mutex
	dirs map[int]string
	sums map[int]treegen.Summary
}{dirs: map[int]string{}, sums: map[int]treegen.Summary{}}

func benchTree(b *testing.B, n int) (string, treegen.Summary) {
	b.Helper()
	benchTrees.Lock()
	defer benchTrees.Unlock()
	if d, ok := benchTrees.dirs[n]; ok {
		return d, benchTrees.sums[n]
	}
	d, err := os.MkdirTemp("", fmt.Sprintf("miles-ci-bench-%d-", n))
	if err != nil {
		b.Fatal(err)
	}
	sum, err := treegen.Write(d, n, 1)
	if err != nil {
		_ = os.RemoveAll(d)
		b.Fatal(err)
	}
	benchTrees.dirs[n], benchTrees.sums[n] = d, sum
	return d, sum
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range benchTrees.dirs {
		_ = os.RemoveAll(d)
	}
	os.Exit(code)
}

// benchSizes are the tree sizes; 100k files (about 500 MB of source) only
// when MILES_CI_BENCH_LARGE=1, so `make bench` stays quick.
func benchSizes() []int {
	if os.Getenv("MILES_CI_BENCH_LARGE") == "1" {
		return []int{1_000, 10_000, 100_000}
	}
	return []int{1_000, 10_000}
}

// BenchmarkCollect measures a whole collection (discovery, reading,
// parsing, rules) of a generated tree, with the files in the page cache.
// Run with -cpu 1,2 to see the scaling.
func BenchmarkCollect(b *testing.B) {
	cfg := config.Default()
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir, sum := benchTree(b, n)
			b.SetBytes(sum.Bytes)
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				reg, err := Collect(dir, cfg)
				if err != nil {
					b.Fatal(err)
				}
				if len(reg.Registrations) != sum.Registrations {
					b.Fatalf("collected %d registrations, the tree holds %d", len(reg.Registrations), sum.Registrations)
				}
			}
			reportRates(b, n, cpuTime()-cpu0)
		})
	}
}

// reportRates reports files per wall-clock second, and the CPU time the
// process spent per file: on a busy machine the wall clock mostly measures
// the neighbours, the CPU time measures us.
func reportRates(b *testing.B, n int, cpu time.Duration) {
	files := float64(n) * float64(b.N)
	b.ReportMetric(files/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(float64(cpu.Microseconds())/files, "cpu-µs/file")
}

// BenchmarkDiscover measures discovery alone.
func BenchmarkDiscover(b *testing.B) {
	cfg := config.Default()
	for _, n := range benchSizes() {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir, _ := benchTree(b, n)
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				files, err := Discover(dir, cfg)
				if err != nil {
					b.Fatal(err)
				}
				if len(files) != n {
					b.Fatalf("discovered %d files of %d", len(files), n)
				}
			}
			reportRates(b, n, cpuTime()-cpu0)
		})
	}
}
