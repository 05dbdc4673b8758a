package suite

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

// sizingInput is a stage of tests registrations of 1 s to an hour and a
// roster of shards shards whose target_minutes is minutes.
func sizingInput(tests, shards int, minutes float64) (*config.Config, []registry.Registration, config.Suite) {
	rng := rand.New(rand.NewPCG(5, 6))
	rs := make([]registry.Registration, tests)
	for i := range rs {
		rs[i] = registry.Registration{File: fmt.Sprintf("tests/e2e/test_%06d.py", i), Backend: config.CUDA,
			Suite: "stage-c-8-gpu-h100", EstTime: float64(1 + rng.IntN(3600)), Labels: []string{"megatron"}}
	}
	cfg := config.Default()
	var s config.Suite
	for i := range cfg.Suites {
		if cfg.Suites[i].Name == "stage-c-8-gpu-h100" {
			cfg.Suites[i].Shards, cfg.Suites[i].TargetMinutes = shards, minutes
			s = cfg.Suites[i]
		}
	}
	return cfg, rs, s
}

// BenchmarkSized measures the choice of a target_minutes stage's shard
// count for `policy --shard-matrix`: where no count fits (a test longer
// than the target) every count up to the roster's is a candidate, and
// where one fits late most of them are.
func BenchmarkSized(b *testing.B) {
	pol := policy.Policy{IncludeLabels: []string{"megatron"}}
	for _, bc := range []struct {
		name          string
		tests, shards int
		minutes       float64
	}{
		{"256 shards, none fits", 2_000, 256, 30},
		{"256 shards, fits at about 200", 2_000, 256, 310},
		{"10000 shards, none fits", 100, 10_000, 30},
		{"10000 shards, fits at 4870", 10_000, 10_000, 62},
	} {
		cfg, rs, s := sizingInput(bc.tests, bc.shards, bc.minutes)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := sized(cfg, rs, s, pol, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
