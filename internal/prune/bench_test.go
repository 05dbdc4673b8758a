package prune

import (
	"fmt"
	"testing"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

// benchInput builds a Miles-sized registry of nRegs registrations and a
// pull request diff of nPaths entries: mostly docs and registered test
// files, so selection has to look at every path before it can prune.
func benchInput(b *testing.B, nRegs, nPaths int) (Input, []byte) {
	b.Helper()
	cfg := config.Default()
	stages := cfg.PRGPUStages()
	labels := cfg.KnownLabels()
	regs := make([]registry.Registration, nRegs)
	for i := range regs {
		regs[i] = registry.Registration{
			File:    fmt.Sprintf("tests/e2e/d%02d/test_%05d.py", i%50, i),
			Backend: config.CUDA,
			Suite:   stages[i%len(stages)],
			EstTime: float64(60 + i%900),
			Labels:  []string{labels[i%len(labels)]},
		}
	}
	var entries []Entry
	for i := 0; i < nPaths; i++ {
		switch i % 4 {
		case 0:
			entries = append(entries, Entry{Status: "M", Paths: []string{fmt.Sprintf("docs/part%d/page%d.md", i%40, i)}})
		case 1:
			entries = append(entries, Entry{Status: "R100", Paths: []string{fmt.Sprintf("notes/old%d.md", i), fmt.Sprintf("notes/new%d.mdx", i)}})
		default:
			entries = append(entries, Entry{Status: "M", Paths: []string{regs[i%nRegs].File}})
		}
	}
	pol, _, err := policy.Resolve(cfg, policy.Regular, []string{"run-ci-megatron"})
	if err != nil {
		b.Fatal(err)
	}
	return Input{Config: cfg, Registrations: regs, Policy: pol, RawLabels: []string{"run-ci-megatron"}}, WriteDiff(entries)
}

// BenchmarkPolicy measures the stage-selection half of `miles-ci policy`:
// reading a 10,000-path `git diff --name-status -z -M` and deciding every
// PR GPU stage against a 1,000-registration registry.
func BenchmarkPolicy(b *testing.B) {
	in, raw := benchInput(b, 1_000, 10_000)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		diff, err := ParseDiff(raw)
		if err != nil {
			b.Fatal(err)
		}
		in.Diff = diff
		if res := Stages(in); len(res.Stages) == 0 {
			b.Fatal("no stages decided")
		}
	}
}
