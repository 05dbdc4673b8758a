package cli

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/radixark/miles-ci/internal/treegen"
)

// BenchmarkPlan measures `miles-ci run --list-only --json` end to end, in
// process: configuration, discovery, reading every file, the rules, the
// policy, selection, sharding and the JSON plan, on a generated Miles-like
// tree (the files in the page cache).
func BenchmarkPlan(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := treegen.Write(dir, n, 1); err != nil {
				b.Fatal(err)
			}
			args := []string{"--root", dir, "run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100",
				"--match-all-labels", "--auto-partition-id", "0", "--auto-partition-size", "2", "--list-only", "--json"}
			var errOut strings.Builder
			f := &Factory{In: strings.NewReader(""), Out: io.Discard, ErrOut: &errOut,
				Getenv: func(string) string { return "" }, LookupEnv: func(string) (string, bool) { return "", false }}
			for b.Loop() {
				if code := Main(args, f); code != 0 {
					b.Fatalf("exit %d: %s", code, errOut.String())
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
		})
	}
}
