package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// probeDoc is minimal with GPU suites, a suite_defaults section and a
// preflight section, each with room for a probe's keys: {TOP}, {DEFAULTS},
// {H100} and {MI300} stand where they go.
const probeDoc = `discovery:
  roots: [tests]
  pattern: "**/test_*.py"
register_functions:
  register_cuda_ci: cuda
labels:
  - core: Core tests
suite_defaults:
  setup_minutes: 1
{DEFAULTS}suites:
  cpu:
    - name: unit
  cuda:
    - name: h100
      runs_on: [h100, 8gpu]
{H100}  rocm:
    - name: mi300
      runs_on: [mi300, 8gpu]
{MI300}preflight:
  timeout: 60s
{TOP}`

func probeConfig(top, defaults, h100, mi300 string) string {
	return strings.NewReplacer("{TOP}", top, "{DEFAULTS}", defaults, "{H100}", h100, "{MI300}", mi300).Replace(probeDoc)
}

func TestParse_NoProbeByDefault(t *testing.T) {
	assert.Equal(t, Probe{}, Default().Preflight.Probe)
	c, err := Parse("ci.yaml", []byte(probeConfig("", "", "", "")))
	require.NoError(t, err)
	h100, _ := c.Suite("h100")
	assert.Equal(t, Probe{}, c.Preflight.ForSuite(h100).Probe)
}

// Each key on its own: the suite's, else suite_defaults', else the
// preflight section's.
func TestParse_AProbeIsTheSuitesElseTheDefaultsElseTheSections(t *testing.T) {
	doc := probeConfig(
		"  probe: [python3, -c, \"import torch; torch.ones(1, device='cuda').sum().item()\"]\n  probe_timeout: 45s\n",
		"  preflight:\n    probe_timeout: 20\n",
		"      preflight:\n        probe: [/opt/probe.sh, --quick]\n",
		"")
	c, err := Parse("ci.yaml", []byte(doc))
	require.NoError(t, err)
	torch := []string{"python3", "-c", "import torch; torch.ones(1, device='cuda').sum().item()"}
	assert.Equal(t, Probe{Argv: torch, Timeout: 45 * time.Second}, c.Preflight.Probe)
	assert.Equal(t, Probe{Timeout: 20 * time.Second}, c.SuiteDefaults.Preflight)
	h100, _ := c.Suite("h100")
	mi300, _ := c.Suite("mi300")
	unit, _ := c.Suite("unit")
	assert.Equal(t, Probe{Argv: []string{"/opt/probe.sh", "--quick"}, Timeout: 20 * time.Second}, c.Preflight.ForSuite(h100).Probe)
	assert.Equal(t, Probe{Argv: torch, Timeout: 20 * time.Second}, c.Preflight.ForSuite(mi300).Probe)
	assert.Equal(t, Probe{}, unit.Probe, "a cpu suite runs no preflight")
	assert.Equal(t, 60*time.Second, c.Preflight.ForSuite(h100).Timeout, "the other keys are the section's")
}

func TestParse_ExtendsDefaultGivesTheBuiltInSuitesTheDefaultsProbe(t *testing.T) {
	c, err := Parse("ci.yaml", []byte("extends: default\nsuite_defaults:\n  preflight:\n    probe: [true]\n"))
	require.NoError(t, err)
	s, ok := c.Suite("stage-c-8-gpu-h100")
	require.True(t, ok)
	assert.Equal(t, []string{"true"}, c.Preflight.ForSuite(s).Probe.Argv)
}

func TestParse_RejectsBadProbesWithFileAndLine(t *testing.T) {
	const torch = "[python3, -c, 'import torch']"
	cases := []struct {
		name, top, defaults, h100, unit string
		anchor, want                    string
	}{
		{name: "empty argv", top: "  probe: []\n", anchor: "probe: []",
			want: `preflight.probe must be a non-empty list of strings, the program first, as [python3, -c, "import torch; torch.ones(1, device='cuda').sum().item()"]`},
		{name: "a string, not a list", top: "  probe: python3 -c 'import torch'\n", anchor: "probe: python3",
			want: "preflight.probe must be a non-empty list of strings"},
		{name: "a list item", top: "  probe:\n    - python3\n    - [-c]\n", anchor: "- [-c]",
			want: "preflight.probe item 2 is not a string; the probe must be a non-empty list of strings"},
		{name: "a null item", top: "  probe:\n    - python3\n    - ~\n", anchor: "- ~",
			want: "preflight.probe item 2 is not a string"},
		{name: "a line break", top: "  probe:\n    - python3\n    - \"import torch\\ntorch.ones(1)\"\n", anchor: "- \"import",
			want: "preflight.probe item 2 holds the control character U+000A; write the command on one line (statements joined by ';') or put it in a script the probe runs"},
		{name: "an escape", top: "  probe: [\"py\\e[2Jthon3\"]\n", anchor: "probe: [",
			want: "preflight.probe item 1 holds the control character U+001B"},
		{name: "no program", top: "  probe: ['', -c, x]\n", anchor: "probe: [''",
			want: "preflight.probe names no program: its first item is empty"},
		{name: "a bad duration", top: "  probe: " + torch + "\n  probe_timeout: soon\n", anchor: "probe_timeout",
			want: `preflight.probe_timeout "soon" must be a positive duration, as 120s, 2m or 1m30s (a bare number is seconds), of at most 2147483647 seconds`},
		{name: "a zero duration", top: "  probe_timeout: 0s\n", anchor: "probe_timeout",
			want: `preflight.probe_timeout "0s" must be a positive duration`},
		{name: "suite_defaults' empty argv", defaults: "  preflight:\n    probe: []\n", anchor: "probe: []",
			want: "suite_defaults.preflight.probe must be a non-empty list of strings"},
		{name: "suite_defaults' bad duration", defaults: "  preflight:\n    probe_timeout: -3s\n", anchor: "probe_timeout",
			want: `suite_defaults.preflight.probe_timeout "-3s" must be a positive duration`},
		{name: "suite_defaults' unknown key", defaults: "  preflight:\n    timeout: 3s\n", anchor: "timeout: 3s",
			want: `unknown key "timeout" in suite_defaults.preflight; expected one of probe, probe_timeout`},
		{name: "a suite's non-string item", h100: "      preflight:\n        probe: [python3, {a: b}]\n", anchor: "probe: [python3, {",
			want: `suite "h100": preflight.probe item 2 is not a string`},
		{name: "a suite's bad duration", h100: "      preflight:\n        probe_timeout: 1h1q\n", anchor: "probe_timeout",
			want: `suite "h100": preflight.probe_timeout "1h1q" must be a positive duration`},
		{name: "a suite's unknown key", h100: "      preflight:\n        interval: 2s\n", anchor: "interval: 2s",
			want: `unknown key "interval" in suite "h100": preflight; expected one of probe, probe_timeout`},
		{name: "a suite's block not a mapping", h100: "      preflight: [python3]\n", anchor: "preflight: [python3]",
			want: `suite "h100": preflight must be a mapping`},
		{name: "a cpu suite's block", unit: "      preflight:\n        probe: [true]\n", anchor: "        probe: [true]",
			want: `suite "unit" is a cpu suite; preflight applies to cuda and rocm suites`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := probeConfig(tc.top, tc.defaults, tc.h100, "")
			if tc.unit != "" {
				doc = strings.Replace(doc, "    - name: unit\n", "    - name: unit\n"+tc.unit, 1)
			}
			_, err := Parse("ci.yaml", []byte(doc))
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("ci.yaml:%d: %s", lineOf(t, doc, tc.anchor), tc.want))
		})
	}
}
