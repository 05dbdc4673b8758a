package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

// allLabels is every default known label, sorted.
func allLabels() []string {
	l := config.Default().KnownLabels()
	slices.Sort(l)
	return l
}

func allBut(drop ...string) []string {
	var out []string
	for _, l := range allLabels() {
		if !slices.Contains(drop, l) {
			out = append(out, l)
		}
	}
	return out
}

func TestResolve_ScopeTable(t *testing.T) {
	cfg := config.Default()
	tests := []struct {
		name    string
		cadence string
		raw     []string
		want    []string
	}{
		{"regular with no labels includes nothing", Regular, nil, []string{}},
		{"run-ci-all includes every known label", Regular, []string{"run-ci-all"}, allLabels()},
		{"run-ci-all wins over the nightly subtraction", Nightly, []string{"nightly", "run-ci-all"}, allLabels()},
		{"run-ci-all wins over run-ci-image", Regular, []string{"run-ci-image", "run-ci-all"}, allLabels()},
		{"weekly includes every known label", Weekly, nil, allLabels()},
		{"release includes every known label", Release, nil, allLabels()},
		{"weekly wins over run-ci-image", Weekly, []string{"run-ci-image"}, allLabels()},
		{"nightly subtracts long and ft-long", Nightly, nil, allBut("long", "ft-long")},
		{"nightly with its label subtracts long and ft-long", Nightly, []string{"nightly"}, allBut("long", "ft-long")},
		{"nightly wins over run-ci-image, keeping ft-short", Nightly, []string{"run-ci-image"}, allBut("long", "ft-long")},
		{"run-ci-image subtracts long, ft-short and ft-long", Regular, []string{"run-ci-image"}, allBut("long", "ft-short", "ft-long")},
		{"an explicit request wins over the image subtraction", Regular, []string{"run-ci-image", "run-ci-long"}, allBut("ft-short", "ft-long")},
		{"an explicit request wins over the nightly subtraction", Nightly, []string{"nightly", "run-ci-ft-long"}, allBut("long")},
		{"requested labels alone are the include set", Regular, []string{"run-ci-megatron", "run-ci-fsdp"}, []string{"fsdp", "megatron"}},
		{"a typo adds nothing", Regular, []string{"run-ci-fsdpp"}, []string{}},
		{"a bare prefix adds nothing", Regular, []string{"run-ci-"}, []string{}},
		{"an unprefixed label adds nothing", Regular, []string{"megatron"}, []string{}},
		{"workflow-only and empty labels add nothing", Regular, []string{"", "bypass-fastfail"}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := Resolve(cfg, tt.cadence, tt.raw)
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.IncludeLabels)
			assert.Equal(t, tt.cadence, p.Cadence)
		})
	}
}

func TestResolve_FlagsFollowTheCadence(t *testing.T) {
	cfg := config.Default()
	tests := []struct {
		cadence              string
		raw                  []string
		admit, bypass, write bool
	}{
		{Regular, nil, false, false, false},
		{Regular, []string{"bypass-fastfail"}, false, true, false},
		{Regular, []string{"run-ci-all"}, false, false, false},
		{Nightly, nil, true, true, true},
		{Nightly, []string{"nightly"}, true, true, true},
		{Weekly, nil, true, true, true},
		{Release, nil, true, true, false},
		{Release, []string{"bypass-fastfail"}, true, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.cadence+"/"+slicesString(tt.raw), func(t *testing.T) {
			p, _, err := Resolve(cfg, tt.cadence, tt.raw)
			require.NoError(t, err)
			assert.Equal(t, tt.admit, p.AdmitNightly, "admit_nightly_tests")
			assert.Equal(t, tt.bypass, p.Bypass, "bypass_fastfail")
			assert.Equal(t, tt.write, p.WriteBaseline, "write_baseline")
		})
	}
}

func slicesString(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	out := s[0]
	for _, x := range s[1:] {
		out += "+" + x
	}
	return out
}

func TestResolve_Errors(t *testing.T) {
	cfg := config.Default()
	tests := []struct {
		name    string
		cadence string
		raw     []string
		want    string
	}{
		{"unknown cadence", "monthly", nil,
			"Unknown CI cadence 'monthly'; expected one of ['nightly', 'regular', 'release', 'weekly']"},
		{"empty cadence", "", nil,
			"Unknown CI cadence ''; expected one of ['nightly', 'regular', 'release', 'weekly']"},
		{"cadence is case-sensitive", "Nightly", nil,
			"Unknown CI cadence 'Nightly'; expected one of ['nightly', 'regular', 'release', 'weekly']"},
		{"a quote in the cadence is written as Python's repr", "it's", nil,
			`Unknown CI cadence "it's"; expected one of ['nightly', 'regular', 'release', 'weekly']`},
		{"unknown cadence is reported before the nightly label", "x", []string{"nightly"},
			"Unknown CI cadence 'x'; expected one of ['nightly', 'regular', 'release', 'weekly']"},
		{"nightly label on regular", Regular, []string{"nightly"}, "The nightly workflow label requires cadence='nightly'"},
		{"nightly label on weekly", Weekly, []string{"run-ci-all", "nightly"}, "The nightly workflow label requires cadence='nightly'"},
		{"nightly label on release", Release, []string{"nightly"}, "The nightly workflow label requires cadence='nightly'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Resolve(cfg, tt.cadence, tt.raw)
			var pe *Error
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.want, pe.Msg)
		})
	}
}

func TestStrip_WarnsOnceForEachUnprefixedLabel(t *testing.T) {
	stripped, warnings := Strip([]string{"run-ci-b", "megatron", "", "nightly", "bypass-fastfail", "run-ci-a", "megatron", "it's", "run-ci-b"})
	assert.Equal(t, []string{"a", "b"}, stripped)
	require.Len(t, warnings, 2)
	assert.Equal(t, "megatron", warnings[0].Label)
	assert.Equal(t, "--labels entry 'megatron' is missing the expected 'run-ci-' prefix; ignoring. Domain labels must be raw `run-ci-<X>` strings.", warnings[0].Msg)
	assert.Equal(t, "it's", warnings[1].Label)
	assert.Contains(t, warnings[1].Msg, `"it's"`)
}

func TestResolve_ReturnsTheStripWarnings(t *testing.T) {
	_, warnings, err := Resolve(config.Default(), Regular, []string{"fsdp", "run-ci-fsdp"})
	require.NoError(t, err)
	require.Len(t, warnings, 1)
	assert.Equal(t, "fsdp", warnings[0].Label)
}

func TestRequested_KeepsOnlyKnownLabels(t *testing.T) {
	got, _ := Requested(config.Default(), []string{"run-ci-megatron", "run-ci-all", "run-ci-image", "run-ci-typo", "run-ci-amd", "run-ci-megatron"})
	assert.Equal(t, []string{"amd", "megatron"}, got)
}

func TestSelects(t *testing.T) {
	regular := Policy{IncludeLabels: []string{"fsdp", "megatron"}}
	nightly := Policy{IncludeLabels: []string{"fsdp"}, AdmitNightly: true}
	tests := []struct {
		name    string
		p       Policy
		labels  []string
		nightly bool
		want    bool
	}{
		{"unlabeled runs always", regular, nil, false, true},
		{"a shared label selects", regular, []string{"long", "megatron"}, false, true},
		{"no shared label", regular, []string{"long"}, false, false},
		{"nightly-only is gated on a regular cadence", regular, []string{"fsdp"}, true, false},
		{"unlabeled nightly-only is gated too", regular, nil, true, false},
		{"nightly-only admitted on a full cadence", nightly, []string{"fsdp"}, true, true},
		{"admitted but no shared label", nightly, []string{"megatron"}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.p.Selects(tt.labels, tt.nightly))
		})
	}
}

func TestWithAllLabels_IncludesEveryKnownLabel(t *testing.T) {
	cfg := config.Default()
	p, _, err := Resolve(cfg, Regular, nil)
	require.NoError(t, err)
	assert.Equal(t, allLabels(), p.WithAllLabels(cfg).IncludeLabels)
	assert.Empty(t, p.IncludeLabels, "the receiver is not changed")
}

func TestExplainLabels(t *testing.T) {
	cfg := config.Default()
	got := ExplainLabels(cfg, Nightly, []string{"nightly", "run-ci-long", "run-ci-fsdpp", "run-ci-image"})
	byLabel := map[string]LabelReason{}
	for _, r := range got {
		byLabel[r.Label] = r
	}
	assert.Equal(t, LabelReason{Label: "long", Included: true, Reason: "requested by run-ci-long"}, byLabel["long"])
	assert.Equal(t, LabelReason{Label: "fsdp", Included: true, Reason: "in the nightly cadence scope"}, byLabel["fsdp"])
	assert.False(t, byLabel["ft-long"].Included)
	assert.Contains(t, byLabel["ft-long"].Reason, "left out by the nightly cadence scope")
	assert.Equal(t, "run-ci-fsdpp names no known domain label; did you mean run-ci-fsdp?", byLabel["run-ci-fsdpp"].Reason)
	assert.Equal(t, "run-ci-image is a broad scope label, not a domain label", byLabel["run-ci-image"].Reason)
}

func TestUnknownLabels_NameTheClosestKnownLabel(t *testing.T) {
	cfg := config.Default()
	var got []string
	for _, w := range UnknownLabels(cfg, []string{"run-ci-megatorn", "run-ci-fsdp", "run-ci-all", "run-ci-image",
		"megatron", "run-ci-fsdp,run-ci-lora", "run-ci-zzzzzz", ""}) {
		got = append(got, w.Msg)
	}
	assert.Equal(t, []string{
		"--labels entry 'run-ci-megatorn' names no known domain label; did you mean 'run-ci-megatron'?",
		"--labels entry 'run-ci-fsdp,run-ci-lora' names no known domain label; --labels takes labels separated by spaces, not commas: run-ci-fsdp run-ci-lora",
		"--labels entry 'run-ci-zzzzzz' names no known domain label (the known ones, each passed as run-ci-<label>: " +
			strings.Join(sorted(cfg.KnownLabels()), ", ") + ")",
	}, got, "known labels, broad scopes and unprefixed entries (Strip warns about those) get no warning")
}

// The policy job computes the shard matrices with its workflow's policy;
// each test job resolves the same cadence and labels again with ForRun.
// They must agree, repeated labels included, or a matrix would list shards
// the test jobs split otherwise.
func TestForRun_AgreesWithTheWorkflowsPolicy(t *testing.T) {
	cfg := config.Default()
	for _, tc := range []struct {
		cadence string
		raw     []string
	}{
		{"regular", nil},
		{"regular", []string{"run-ci-megatron", "run-ci-megatron", "run-ci-fsdp"}},
		{"regular", []string{"run-ci-all", "run-ci-nosuch"}},
		{"regular", []string{"run-ci-image", "run-ci-fsdp", "run-ci-image"}},
		{"nightly", []string{"run-ci-nightly", "run-ci-long"}},
		{"weekly", nil},
	} {
		want, _, err := Resolve(cfg, tc.cadence, tc.raw)
		require.NoError(t, err)
		got, _, err := ForRun(cfg, tc.cadence, tc.raw, false)
		require.NoError(t, err)
		assert.Equal(t, want, got, "%s %v", tc.cadence, tc.raw)
	}
}
