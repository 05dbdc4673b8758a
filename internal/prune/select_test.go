package prune

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

const (
	b2  = "stage-b-2-gpu-h200"
	c2  = "stage-c-2-gpu-h200"
	c4  = "stage-c-4-gpu-h200"
	mi  = "stage-c-4-gpu-mi350"
	h1  = "stage-c-8-gpu-h100"
	c8  = "stage-c-8-gpu-h200"
	ext = "nightly-stage-c-8-gpu-mi350"
)

var allStages = []string{b2, c2, c4, mi, h1, c8}

type regOpt func(*registry.Registration)

func nightlyOnly(r *registry.Registration) { r.Nightly = true }
func disabled(r *registry.Registration)    { s := "flaky"; r.Disabled = &s }
func backend(b config.Backend) regOpt      { return func(r *registry.Registration) { r.Backend = b } }

func reg(file, suite string, labels []string, opts ...regOpt) registry.Registration {
	r := registry.Registration{File: file, Backend: config.CUDA, Suite: suite, EstTime: 60, Labels: labels}
	if r.Labels == nil {
		r.Labels = []string{}
	}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func l(labels ...string) []string { return labels }

// fixture mirrors the conformance kit's sample repository.
var fixture = []registry.Registration{
	reg("tests/ci/test_ci_helpers.py", "stage-b-cpu", nil, backend(config.CPU)),
	reg("tests/e2e/amd/test_amd_external.py", ext, l("amd", "precision"), backend(config.ROCM)),
	reg("tests/e2e/amd/test_amd_smoke.py", mi, l("amd"), backend(config.ROCM)),
	reg("tests/e2e/eval/test_eval_disabled.py", c2, l("eval"), disabled),
	reg("tests/e2e/ft/test_ft_compare.py", c4, l("ft-short")),
	reg("tests/e2e/long/test_soak.py", c8, l("long")),
	reg("tests/e2e/lora/test_lora_nightly.py", c2, l("lora"), nightlyOnly),
	reg("tests/e2e/megatron/test_megatron_long.py", c8, l("megatron", "long")),
	reg("tests/e2e/megatron/test_megatron_tp.py", h1, l("megatron")),
	reg("tests/e2e/test_multi_stage.py", h1, l("short")),
	reg("tests/e2e/test_multi_stage.py", c4, l("sglang")),
	reg("tests/fast-gpu/test_fsdp_small.py", b2, l("fsdp")),
	reg("tests/fast/test_cpu_unit.py", "stage-a-cpu", nil, backend(config.CPU)),
}

func diff(entries ...Entry) []Entry { return entries }
func m(path string) Entry           { return Entry{Status: "M", Paths: []string{path}} }

func selectFor(t *testing.T, regs []registry.Registration, cadence string, raw []string, d []Entry) Result {
	t.Helper()
	cfg := config.Default()
	p, _, err := policy.Resolve(cfg, cadence, raw)
	require.NoError(t, err)
	return Stages(Input{Config: cfg, Registrations: regs, Policy: p, RawLabels: raw, Diff: d})
}

func without(drop ...string) []string {
	var out []string
	for _, s := range allStages {
		if !slices.Contains(drop, s) {
			out = append(out, s)
		}
	}
	if out == nil {
		return []string{}
	}
	return out
}

func TestSelect_SkippedStages(t *testing.T) {
	code := m("miles/backends/engine.py")
	docs := diff(m("docs/guide/setup.rst"), m("README.md"))
	tests := []struct {
		name    string
		regs    []registry.Registration
		cadence string
		raw     []string
		diff    []Entry
		want    []string
	}{
		{"a code change with no labels runs nothing: no labeled GPU test is selected", fixture, "regular", nil, diff(code), without()},
		{"a code change with one domain label runs that label's stages", fixture, "regular", l("run-ci-fsdp"), diff(code), without(b2)},
		{"several domain labels", fixture, "regular", l("run-ci-megatron", "run-ci-amd"), diff(code), without(h1, c8, mi)},
		{"a typo label selects nothing", fixture, "regular", l("run-ci-fsdpp"), diff(code), without()},
		{"bypass-fastfail selects nothing", fixture, "regular", l("bypass-fastfail"), diff(code), without()},
		{"run-ci-all runs every runnable stage", fixture, "regular", l("run-ci-all"), diff(code), without(b2, c4, mi, h1, c8)},
		{"run-ci-image leaves the long-only stage runnable through megatron", fixture, "regular", l("run-ci-image"), diff(code), without(b2, c4, mi, h1, c8)},
		{"image plus long", fixture, "regular", l("run-ci-image", "run-ci-long"), diff(code), without(b2, c4, mi, h1, c8)},
		{"nightly admits the nightly-only test", fixture, "nightly", l("nightly"), diff(code), []string{}},
		{"docs only with no labels skips everything", fixture, "regular", nil, docs, without()},
		{"docs only on release skips everything: nothing is affected", fixture, "release", nil, docs, without()},
		{"docs only with a domain label runs that label's stages", fixture, "regular", l("run-ci-megatron"), docs, without(h1, c8)},
		{"docs only with run-ci-all runs every runnable stage", fixture, "regular", l("run-ci-all"), docs, without(b2, c4, mi, h1, c8)},
		{"docs only with nightly runs every runnable stage", fixture, "nightly", l("nightly"), docs, []string{}},
		{"a changed GPU test affects its own stage", fixture, "release", nil, diff(m("tests/fast-gpu/test_fsdp_small.py")), without(b2)},
		{"a label-only request and its test file agree", fixture, "regular", l("run-ci-fsdp"), diff(m("tests/fast-gpu/test_fsdp_small.py")), without(b2)},
		{"a multi-stage test affects each of its stages", fixture, "release", nil, diff(m("tests/e2e/test_multi_stage.py")), without(h1, c4)},
		{"a deleted test still affects its stage", fixture, "release", nil, diff(Entry{"D", l("tests/e2e/long/test_soak.py")}), without(c8)},
		{"a CPU test affects no GPU stage", fixture, "release", nil, diff(m("tests/fast/test_cpu_unit.py")), without()},
		{"an external suite's test affects no PR stage", fixture, "release", nil, diff(m("tests/e2e/amd/test_amd_external.py")), without()},
		{"a copy between tests affects both", fixture, "release", nil,
			diff(Entry{"C75", l("tests/fast-gpu/test_fsdp_small.py", "tests/e2e/amd/test_amd_smoke.py")}), without(b2, mi)},
		{"a rename from an unknown path affects every stage", fixture, "release", nil,
			diff(Entry{"R100", l("tests/e2e/megatron/old_name.py", "tests/e2e/megatron/test_megatron_tp.py")}), []string{}},
		{"a rename between docs affects nothing", fixture, "release", nil, diff(Entry{"R087", l("docs/old.md", "docs/new.md")}), without()},
		{"a test plus a code change affects every stage", fixture, "release", nil,
			diff(m("tests/e2e/ft/test_ft_compare.py"), code), []string{}},
		{"the known no-GPU files affect nothing", fixture, "release", nil,
			diff(m(".pre-commit-config.yaml"), m("scripts/tools/sync_example_docs.py"), m("a/b.mdx")), without()},
		{"a path is compared as given", fixture, "release", nil, diff(m("./docs/x.png")), []string{}},
		{"the .md suffix is case-sensitive", fixture, "release", nil, diff(m("README.MD")), []string{}},
		{"a plain file named docs is not under docs/", fixture, "release", nil, diff(m("docs")), []string{}},
		{"a disabled test's stage is affected but not runnable",
			[]registry.Registration{reg("tests/e2e/eval/test_eval_disabled.py", c2, l("eval"), disabled)}, "release", nil,
			diff(m("tests/e2e/eval/test_eval_disabled.py")), without()},
		{"a disabled test is not selected by its label", fixture, "regular", l("run-ci-eval"), diff(code), without()},
		{"a nightly-only test is not selected by its label on a regular cadence", fixture, "regular", l("run-ci-lora"), diff(code), without()},
		{"a nightly-only test is affected by its label on a full cadence", fixture, "release", l("run-ci-lora"), docs, without(c2)},
		{"the suite decides, not the backend", []registry.Registration{reg("tests/x/test_odd.py", h1, l("fsdp"), backend(config.CPU))},
			"regular", l("run-ci-fsdp"), docs, without(h1)},
		{"an empty registry skips every stage", nil, "release", nil, diff(code), without()},
		{"an unknown suite is neither runnable nor affected", []registry.Registration{reg("tests/e2e/test_lost.py", "stage-z", l("fsdp"))},
			"release", nil, diff(m("tests/e2e/test_lost.py")), without()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := selectFor(t, tt.regs, tt.cadence, tt.raw, tt.diff)
			assert.Equal(t, tt.want, got.Skipped)
			require.Len(t, got.Stages, len(allStages))
			for i, s := range got.Stages {
				assert.Equal(t, allStages[i], s.Name, "stages are sorted")
				assert.Equal(t, !slices.Contains(tt.want, s.Name), s.Runs, s.Name)
				assert.Equal(t, s.Runnable && s.Affected, s.Runs, s.Name)
			}
		})
	}
}

func stageNamed(t *testing.T, r Result, name string) Stage {
	t.Helper()
	for _, s := range r.Stages {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no stage %s", name)
	return Stage{}
}

func TestSelect_ExplainsEachStage(t *testing.T) {
	t.Run("the first changed path is named", func(t *testing.T) {
		r := selectFor(t, fixture, "release", nil, diff(m("tests/fast-gpu/test_fsdp_small.py"), m("miles/x.py"), m("miles/y.py")))
		b := stageNamed(t, r, b2)
		assert.Equal(t, Stage{Name: b2, Runs: true, Runnable: true, Affected: true, Cause: CauseTestFile,
			Path:   "tests/fast-gpu/test_fsdp_small.py",
			Reason: "runs: affected by tests/fast-gpu/test_fsdp_small.py (a changed test file registered in it)"}, b)
		h := stageNamed(t, r, h1)
		assert.Equal(t, CauseUnknownPath, h.Cause)
		assert.Equal(t, "runs: affected by miles/x.py (a changed path not known to spare GPU stages)", h.Reason)
	})
	t.Run("a requested label is named", func(t *testing.T) {
		r := selectFor(t, fixture, "regular", l("run-ci-megatron", "run-ci-short"), diff(m("docs/a.md")))
		h := stageNamed(t, r, h1)
		assert.Equal(t, []string{"run-ci-megatron", "run-ci-short"}, h.Labels)
		assert.Equal(t, "runs: selected by run-ci-megatron, run-ci-short", h.Reason)
	})
	t.Run("a broad label is named", func(t *testing.T) {
		r := selectFor(t, fixture, "nightly", l("run-ci-image", "nightly"), diff(m("docs/a.md")))
		assert.Equal(t, "runs: broad scope label nightly, run-ci-image", stageNamed(t, r, c8).Reason)
	})
	t.Run("not runnable", func(t *testing.T) {
		r := selectFor(t, fixture, "regular", l("run-ci-fsdp"), diff(m("miles/x.py")))
		h := stageNamed(t, r, h1)
		assert.False(t, h.Runnable)
		assert.True(t, h.Affected)
		assert.Equal(t, "skipped: not runnable under this policy (its tests carry megatron, short, none included; run-ci-megatron or run-ci-short would select it)", h.Reason)
		c2s := stageNamed(t, r, c2)
		assert.Equal(t, "skipped: not runnable under this policy (no enabled test in it is eligible at this cadence)", c2s.Reason,
			"the stage holds only a disabled and a nightly-only test")
	})
	t.Run("not affected", func(t *testing.T) {
		r := selectFor(t, fixture, "release", nil, diff(m("docs/a.md")))
		h := stageNamed(t, r, h1)
		assert.True(t, h.Runnable)
		assert.False(t, h.Affected)
		assert.Equal(t, "skipped: no changed path affects it and no requested label selects it", h.Reason)
	})
	t.Run("a path with a line break is quoted", func(t *testing.T) {
		r := selectFor(t, fixture, "release", nil, diff(m("miles/a\nb.py")))
		assert.Equal(t, `runs: affected by "miles/a\nb.py" (a changed path not known to spare GPU stages)`, stageNamed(t, r, h1).Reason)
	})
}

func TestNoPruning_RunsEveryStage(t *testing.T) {
	r := NoPruning(config.Default(), "why not")
	assert.Equal(t, []string{}, r.Skipped)
	require.Len(t, r.Stages, len(allStages))
	for i, s := range r.Stages {
		assert.Equal(t, Stage{Name: allStages[i], Runs: true, Reason: "runs: why not", Cause: CauseNoPruning}, s)
	}
}

func TestClassifyPaths_AccountsForEveryChangedPath(t *testing.T) {
	regs := []registry.Registration{
		reg("tests/e2e/test_a.py", "stage-c-8-gpu-h100", l("megatron")),
		reg("tests/e2e/test_a.py", "stage-b-2-gpu-h200", l("fsdp")),
		reg("tests/fast/test_cpu.py", "stage-a-cpu", nil, backend(config.CPU)),
	}
	got := ClassifyPaths(config.Default(), regs, diff(
		m("docs/guide.md"),
		m("miles/core.py"), // Select stops here; the classes go on
		Entry{Status: "R100", Paths: []string{"tests/old.py", "tests/e2e/test_a.py"}},
		m("tests/fast/test_cpu.py"),
	))
	assert.Equal(t, []PathClass{
		{Path: "docs/guide.md", Class: PathSpared, Rule: "docs/*/**"},
		{Path: "miles/core.py", Class: PathUnknown},
		{Path: "tests/old.py", Class: PathUnknown},
		{Path: "tests/e2e/test_a.py", Class: PathTest, Suites: []string{"stage-b-2-gpu-h200", "stage-c-8-gpu-h100"}},
		{Path: "tests/fast/test_cpu.py", Class: PathTest, Suites: []string{"stage-a-cpu"}},
	}, got)
}
