package view

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/timings"
)

func TestUnrunWarnings_NameRegistrationsNoJobRuns(t *testing.T) {
	regs := []registry.Registration{
		{File: "tests/e2e/test_ok.py", Line: 3, Backend: config.CUDA, Suite: "stage-c-8-gpu-h100"},
		{File: "tests/e2e/test_orphan.py", Line: 4, Backend: config.CUDA, Suite: "stage-z"},
		{File: "tests/e2e/test_cpu_on_gpu.py", Line: 5, Backend: config.CPU, Suite: "stage-c-8-gpu-h100"},
		{File: "tests/fast/test_implicit.py", Backend: config.CPU, Suite: "it's gone", Implicit: true},
	}
	assert.Equal(t, []string{
		"tests/e2e/test_orphan.py:4: suite 'stage-z' is not in the roster; no CI job runs it",
		"tests/e2e/test_cpu_on_gpu.py:5: suite 'stage-c-8-gpu-h100' is a cuda suite but the registration is cpu; no CI job runs it",
		`tests/fast/test_implicit.py: suite "it's gone" is not in the roster; no CI job runs it`,
	}, UnrunWarnings(suite.Unreached(config.Default(), regs)))
}

func TestRegistrationJob_IsTheRosterSuiteOfItsOwnBackend(t *testing.T) {
	cfg := config.Default()
	gpu := registry.Registration{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100"}
	s, ok := gpu.Job(cfg)
	assert.True(t, ok)
	assert.Equal(t, []string{"h100", "8gpu"}, s.RunsOn)
	for _, r := range []registry.Registration{
		{Backend: config.CPU, Suite: "stage-c-8-gpu-h100"},  // another backend's suite
		{Backend: config.CUDA, Suite: "stage-c-8-gpu-b200"}, // not in the roster
	} {
		_, ok := r.Job(cfg)
		assert.False(t, ok, r.Suite)
	}
}

func TestCountSuites_CountsOnlyTheSuitesOwnBackend(t *testing.T) {
	reason := "broken"
	reg := &registry.Registry{Registrations: []registry.Registration{
		{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 100},
		{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 50, Nightly: true},
		{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 70, Disabled: &reason},
		{Backend: config.CPU, Suite: "stage-c-8-gpu-h100", EstTime: 1000},
		{Backend: config.CPU, Suite: "stage-z", EstTime: 1},
	}}
	got := countSuites(config.Default(), reg)
	assert.Equal(t, suiteCounts{enabled: 2, disabled: 1, nightly: 1, estTotal: 150}, *got["stage-c-8-gpu-h100"])
	assert.Equal(t, suiteCounts{}, *got["stage-b-cpu"])
	assert.NotContains(t, got, "stage-z")
}

// With nothing over 1.25 x est_time, the line says so instead of ending on
// a colon with no list after it.
func TestWriteOverBudget_SaysWhenNothingDrifted(t *testing.T) {
	cfg := config.Default()
	regs := []registry.Registration{
		{File: "tests/e2e/test_a.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 100},
		{File: "tests/e2e/test_b.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 100},
	}
	var b strings.Builder
	assert.NoError(t, WriteOverBudget(&b, cfg, regs, timings.Timings{"tests/e2e/test_a.py": 120}))
	assert.Equal(t, "\n1 of 2 enabled registrations measured; none over 1.25 x est_time (the Python timeout rule)\n", b.String())

	b.Reset()
	assert.NoError(t, WriteOverBudget(&b, cfg, regs, timings.Timings{"tests/e2e/test_a.py": 126}))
	assert.Equal(t, "\n1 of 2 enabled registrations measured; 1 over 1.25 x est_time (the Python timeout rule):\n"+
		"  - tests/e2e/test_a.py (stage-c-8-gpu-h100): measured 126s, est_time 100s\n", b.String())
}

// Over budget means past the limit the runner gives: est_time 2 earns
// int(2.5) = 2 seconds, so 2.4 s measured is over it.
func TestWriteOverBudget_IsPastTheRunnersTruncatedLimit(t *testing.T) {
	cfg := config.Default()
	regs := []registry.Registration{{File: "tests/e2e/test_a.py", Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 2}}
	var b strings.Builder
	assert.NoError(t, WriteOverBudget(&b, cfg, regs, timings.Timings{"tests/e2e/test_a.py": 2.4}))
	assert.Contains(t, b.String(), "1 over 1.25 x est_time")
}

// A test file's name holding a tab, a line break, a vertical tab or a form
// feed stays on its own line of the suite's table, in its column: no part
// of it can begin a line (a forged "::error::" among them) or move the
// cursor down.
func TestWriteSuiteDetail_ANameStaysOnItsLineAndInItsColumn(t *testing.T) {
	suites := config.Default().Suites[:1]
	var regs []registry.Registration
	for _, name := range []string{"tests/a\tb.py", "tests/c\n::error::d.py", "tests/e\v::error::f.py", "tests/g\f::error::h.py", "tests/ok.py"} {
		regs = append(regs, registry.Registration{File: name, Backend: suites[0].Backend, Suite: suites[0].Name, EstTime: 1})
	}
	var b strings.Builder
	assert.NoError(t, WriteSuiteDetail(&b, suites[0].Name, suites, regs, nil))
	lines := strings.Split(b.String(), "\n")
	row := func(name string) string {
		return fmt.Sprintf("%-24s  %-7s  1s   -       -        -", name, suites[0].Backend)
	}
	assert.Equal(t, []string{
		row(`tests/a\tb.py`),
		row(`tests/c\n::error::d.py`),
		row(`tests/e\x0b::error::f.py`),
		row(`tests/g\x0c::error::h.py`),
		row(`tests/ok.py`),
	}, lines[3:8])
	for _, l := range lines {
		assert.NotContains(t, l, "\v")
		assert.NotContains(t, l, "\f")
		assert.False(t, strings.HasPrefix(l, "::"), "%q", l)
	}
}
