package pysrc

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkReadCalls reads a realistic 4 KB test file: imports, a module
// docstring, a multi-line register call with comments, classes and
// functions. b.SetBytes makes the MB/s figure; files/s is 1e9 / ns/op.
func BenchmarkReadCalls(b *testing.B) {
	src, err := os.ReadFile("testdata/bench_test_file.py")
	require.NoError(b, err)
	calls, err := ReadCalls(src, registerNames)
	require.NoError(b, err)
	require.Len(b, calls, 1)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadCalls(src, registerNames); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
