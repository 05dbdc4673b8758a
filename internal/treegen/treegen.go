// Package treegen writes synthetic Miles-like test trees for tests and
// benchmarks: N Python test files spread over the discovery roots, each
// 2–8 KB of plausible source with its register calls, reproducible from a
// seed. Every generated tree collects without errors under the default
// configuration.
package treegen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/radixark/miles-ci/internal/config"
)

// Summary describes a written tree.
type Summary struct {
	Files         []string // repository-relative paths, sorted by bytes
	Registrations int      // how many registrations collecting the tree yields
	Implicit      int      // of which implicit (tests/fast files without a call)
	Bytes         int64    // total size of the files
}

// Write creates n test files below dir (which need not exist), the same
// files for the same n and seed.
func Write(dir string, n int, seed int64) (Summary, error) {
	plan := layout(n, seed)
	cfg := config.Default()
	sum := Summary{Files: make([]string, n)}
	regs := make([]int, n)
	sizes := make([]int64, n)
	implicit := make([]bool, n)

	made := map[string]bool{}
	for _, f := range plan {
		d := path.Dir(f.path)
		if !made[d] {
			if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(d)), 0o755); err != nil {
				return Summary{}, fmt.Errorf("create %s: %w", d, err)
			}
			made[d] = true
		}
	}

	var next atomic.Int64
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := &gen{cfg: cfg}
			for {
				i := int(next.Add(1)) - 1
				if i >= len(plan) {
					return
				}
				f := plan[i]
				g.rng = rand.New(rand.NewPCG(uint64(seed), uint64(i)+1))
				g.b.Reset()
				nregs := g.file(f)
				if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f.path)), []byte(g.b.String()), 0o644); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("write %s: %w", f.path, err)
					}
					mu.Unlock()
					return
				}
				sum.Files[i], sizes[i], regs[i] = f.path, int64(g.b.Len()), nregs
				implicit[i] = f.kind == implicitCPU
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return Summary{}, firstErr
	}
	for i := range plan {
		sum.Registrations += regs[i]
		sum.Bytes += sizes[i]
		if implicit[i] {
			sum.Implicit++
		}
	}
	sort.Strings(sum.Files)
	return sum, nil
}

// fileKind is what a generated file registers.
type fileKind int

const (
	implicitCPU fileKind = iota // tests/fast, no register call
	explicitCPU                 // register_cpu_ci
	gpuCUDA                     // register_cuda_ci
	gpuROCM                     // register_rocm_ci
)

type planned struct {
	path string
	kind fileKind
}

var (
	topics = []string{"rollout", "trainer", "megatron", "fsdp", "sglang", "ckpt", "lora", "eval",
		"precision", "replay", "weight_update", "async", "mooncake", "plugins", "utils", "data",
		"tokenizer", "router", "reward", "buffer", "models", "qwen", "deepseek", "glm"}
	words = []string{"basic", "parity", "smoke", "roundtrip", "small", "large", "tp2", "pp4", "ep8",
		"resume", "bf16", "fp8", "merge", "sync", "overlap", "colocate", "offload", "mtp", "spec",
		"compare", "soak", "shards", "stream", "batch", "padding", "mask", "loss", "grad"}
)

// layout decides every file's path and kind: roots weighted like Miles
// (most tests under tests/e2e, many CPU tests under tests/fast), nested
// 0–3 directories deep, a few dozen files per directory.
func layout(n int, seed int64) []planned {
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	out := make([]planned, 0, n)
	dirs := map[string][]string{} // root → directories made so far
	for i := range n {
		var root string
		var kind fileKind
		switch r := rng.IntN(100); {
		case r < 15:
			root, kind = "tests/fast", implicitCPU
		case r < 30:
			root, kind = "tests/fast", explicitCPU
		case r < 45:
			root, kind = "tests/fast-gpu", gpuCUDA
		case r < 85:
			root, kind = "tests/e2e", gpuCUDA
			if rng.IntN(5) == 0 {
				kind = gpuROCM
			}
			if rng.IntN(10) == 0 {
				kind = explicitCPU
			}
		default:
			root, kind = "tests/ci", explicitCPU
		}
		// Reuse a directory most of the time, so they fill up to a few
		// dozen files; open a new one now and then.
		ds := dirs[root]
		var d string
		if len(ds) == 0 || rng.IntN(30) == 0 {
			d = root
			for range rng.IntN(4) {
				d += "/" + topics[rng.IntN(len(topics))]
			}
			dirs[root] = append(ds, d)
		} else {
			d = ds[rng.IntN(len(ds))]
		}
		name := fmt.Sprintf("test_%s_%s_%d.py", topics[rng.IntN(len(topics))], words[rng.IntN(len(words))], i)
		out = append(out, planned{path: d + "/" + name, kind: kind})
	}
	return out
}

// gen writes one file's source.
type gen struct {
	cfg *config.Config
	rng *rand.Rand
	b   strings.Builder
}

func (g *gen) pick(s []string) string { return s[g.rng.IntN(len(s))] }

func (g *gen) printf(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

// file writes the source of f and returns how many registrations it holds.
func (g *gen) file(f planned) int {
	// Filler chunks are under 800 bytes and the footer about 100, so the
	// file ends between 2 and 8 KiB.
	target := 2200 + g.rng.IntN(5000)
	g.header(f)
	n := g.registrations(f)
	for g.b.Len() < target {
		g.body()
	}
	g.printf("\n\nif __name__ == \"__main__\":\n    import pytest\n\n    raise SystemExit(pytest.main([__file__, \"-v\"]))\n")
	if n == 0 {
		return 1 // the implicit registration
	}
	return n
}

func (g *gen) header(f planned) {
	topic := g.pick(topics)
	if f.kind == implicitCPU {
		// An implicit file must not name the register functions at all.
		g.printf("\"\"\"Unit tests for miles.%s: fast, CPU only, no GPU required.\n\nRun with pytest.\n\"\"\"\n\n", topic)
	} else {
		g.printf("\"\"\"End-to-end test for miles.%s.\n\nThe CI registration below is read from the source text; a call such as\nregister_cuda_ci(est_time=1, suite=\"x\") inside this docstring is not one.\n\"\"\"\n\n", topic)
	}
	g.printf("import json\nimport os\nimport time\nfrom dataclasses import dataclass, field\n\nimport pytest\n\n")
	switch f.kind {
	case explicitCPU:
		g.printf("from tests.ci.ci_register import register_cpu_ci\n")
	case gpuCUDA:
		g.printf("from tests.ci.ci_register import register_cuda_ci\n")
	case gpuROCM:
		g.printf("from tests.ci.ci_register import register_rocm_ci\n")
	}
	g.printf("from miles.%s import %s_%s as subject  # noqa: F401\n\n", topic, g.pick(words), g.pick(words))
}

// registrations writes the register calls of f in one of several shapes.
func (g *gen) registrations(f planned) int {
	var fn string
	var suites []config.Suite
	switch f.kind {
	case implicitCPU:
		return 0
	case explicitCPU:
		fn, suites = "register_cpu_ci", g.cfg.SuitesFor(config.CPU)
	case gpuCUDA:
		fn, suites = "register_cuda_ci", g.cfg.SuitesFor(config.CUDA)
	case gpuROCM:
		fn, suites = "register_rocm_ci", g.cfg.SuitesFor(config.ROCM)
	}
	labels := g.cfg.KnownLabels()
	n := 1
	if g.rng.IntN(8) == 0 {
		n = 2
	}
	for range n {
		suite := suites[g.rng.IntN(len(suites))].Name
		est := 30 + g.rng.IntN(3600)
		var lab []string
		if f.kind != explicitCPU || g.rng.IntN(4) == 0 {
			for range 1 + g.rng.IntN(3) {
				lab = append(lab, fmt.Sprintf("%q", labels[g.rng.IntN(len(labels))]))
			}
		}
		var extra []string
		if g.rng.IntN(10) == 0 {
			extra = append(extra, "nightly=True")
		}
		if g.rng.IntN(20) == 0 {
			extra = append(extra, fmt.Sprintf("disabled=%q", "flaky: see issue #"+fmt.Sprint(100+g.rng.IntN(900))))
		}
		switch g.rng.IntN(3) {
		case 0: // one line
			args := []string{fmt.Sprint(est), fmt.Sprintf("%q", suite)}
			if lab != nil {
				args = append(args, "labels=["+strings.Join(lab, ", ")+"]")
			}
			g.printf("%s(%s)\n", fn, strings.Join(append(args, extra...), ", "))
		case 1: // keywords, one per line, comments, trailing comma
			g.printf("%s(\n    est_time=%d,  # measured on the CI runner\n    suite=%q,\n", fn, est, suite)
			if lab != nil {
				g.printf("    labels=[\n")
				for _, l := range lab {
					g.printf("        %s,\n", l)
				}
				g.printf("    ],\n")
			}
			for _, e := range extra {
				g.printf("    %s,\n", e)
			}
			g.printf(")\n")
		default: // positional with a float and a parenthesized suite
			g.printf("%s(%d.5, (\n    %q\n)", fn, est, suite)
			if lab != nil {
				g.printf(", labels=[%s]", strings.Join(lab, ", "))
			}
			for _, e := range extra {
				g.printf(", %s", e)
			}
			g.printf(")  # trailing comment\n")
		}
	}
	g.printf("\n")
	return n
}

// body writes one class or function of filler that looks like a test.
func (g *gen) body() {
	w1, w2 := g.pick(words), g.pick(words)
	switch g.rng.IntN(3) {
	case 0:
		g.printf(`

@dataclass
class %sConfig:
    """Settings for the %s %s scenario."""

    steps: int = %d
    batch_size: int = %d
    name: str = "%s-%s"
    tags: list = field(default_factory=lambda: ["ci", %q])

    def describe(self) -> str:
        return f"{self.name}: {self.steps} steps x {self.batch_size}"
`, strings.ToUpper(w1[:1])+w1[1:], w1, w2, 1+g.rng.IntN(500), 1<<g.rng.IntN(8), w1, w2, w2)
	case 1:
		g.printf(`

def test_%s_%s_%d(tmp_path):
    # Writes a small record and reads it back; the numbers are arbitrary.
    record = {"step": %d, "loss": %d.%03d, "tag": '%s'}
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    loaded = json.loads(path.read_text())
    assert loaded == record, (loaded, record)
    assert os.path.getsize(path) > 0
`, w1, w2, g.rng.IntN(1000), g.rng.IntN(10000), g.rng.IntN(10), g.rng.IntN(1000), w1)
	default:
		g.printf(`

class Test%s:
    def setup_method(self):
        self.started = time.monotonic()
        self.values = [%d, %d, %d]

    def test_%s(self):
        total = sum(self.values)
        assert total == %d

    @pytest.mark.parametrize("scale", [1, 2, 4])
    def test_%s_scaled(self, scale):
        scaled = [v * scale for v in self.values]
        assert len(scaled) == 3 and scaled[0] == self.values[0] * scale
`, strings.ToUpper(w1[:1])+w1[1:], 1, 2, 3, w2, 6, w1)
	}
}
