package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// meaningOf is what a configuration says, without where it says it: two
// configurations of the same meaning select, shard and run alike. Every
// field counts but those naming the file and the places in it.
func meaningOf(c *Config) Config {
	m := *c
	m.Source, m.shownAs, m.Overlay, m.tree, m.header = "", "", nil, nil, ""
	m.labelsFileLine, m.labelsBuiltIn = 0, false
	m.Suites = append([]Suite(nil), c.Suites...)
	for i := range m.Suites {
		m.Suites[i].RunsOnAt, m.Suites[i].At = Pos{}, Pos{}
	}
	if !c.LabelsFromFile {
		m.LabelsFile = "" // a labels_file that is not there says nothing
	}
	return m
}

// labelsPy is a labels file of the Miles form, written for these tests.
const labelsPy = `"""Labels of the tests (a fixture)."""

KNOWN_LABELS: dict[str, str] = {
    "megatron": "Megatron tests",
    "amd": "ROCm tests",
}
`

// overlay extends the default: a suite added, one replaced, a section
// replaced through an anchor and its alias, comments of its own.
const overlay = `# Our CI: the built-in one and Blackwell.
extends: default

# Blackwell runs nightly only, for now.
suites:
  cuda:
    - name: stage-c-8-gpu-b200  # the new one
      runs_on: &b200 [b200, 8gpu]
      shards: 1
    - name: stage-b-2-gpu-h200
      runs_on: *b200
      shards: 3
no_gpu_paths: [docs/, "**/*.md"]
`

// whole is a configuration without extends, its labels a list only.
const whole = `discovery:
  roots: [tests]
  pattern: "**/test_*.py"
register_functions: {register_cpu_ci: cpu, register_cuda_ci: cuda}
labels: [fast, slow]
suites:
  cpu:
    - {name: unit, runs_on: [ubuntu-latest], shards: 2}
  cuda:
    - name: gpu   # one GPU box
      runs_on: [h100]
`

func TestComplete_ReadsBackAsTheSameConfigurationWithoutExtends(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string // the repository
		config string            // --config, "" for the file found at the root
		// has and hasNot are lines the written document holds, and not.
		has, hasNot []string
	}{
		{name: "the built-in one, no labels file", files: map[string]string{"tests/fast/test_a.py": ""},
			has:    []string{"labels:", "  - megatron: Megatron-LM training tests", "  # Searched in this order; a missing root is not an error."},
			hasNot: []string{"labels_file: tests/ci/labels.py", "# .miles-ci.yaml of its own. It describes radixark/miles as it is today."}},
		{name: "the built-in one, with the labels file", files: map[string]string{"tests/ci/labels.py": labelsPy},
			has:    []string{"labels_file: tests/ci/labels.py", "# Domain labels: the KNOWN_LABELS dict of tests/ci/labels.py, their one source."},
			hasNot: []string{"labels:", "  - megatron: Megatron-LM training tests"}},
		{name: "an overlay", files: map[string]string{"ci.yaml": overlay, "tests/ci/labels.py": labelsPy}, config: "ci.yaml",
			has:    []string{"# Our CI: the built-in one and Blackwell.", "# Blackwell runs nightly only, for now.", "    - name: stage-c-8-gpu-b200 # the new one", "      runs_on: [b200, 8gpu]", "labels_file: tests/ci/labels.py"},
			hasNot: []string{"extends: default", "      runs_on: &b200 [b200, 8gpu]", "      runs_on: *b200", "labels:"}},
		{name: "a whole file", files: map[string]string{"ci.yaml": whole}, config: "ci.yaml",
			has: []string{"labels: [fast, slow]", "    - name: gpu # one GPU box", "    - {name: unit, runs_on: [ubuntu-latest], shards: 2}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := testutil.TempTree(t, tt.files)
			explicit := ""
			if tt.config != "" {
				explicit = filepath.Join(root, tt.config)
			}
			before, err := Load(root, explicit)
			require.NoError(t, err)
			out, err := before.Complete("a test")
			require.NoError(t, err)
			text := string(out)
			assert.True(t, strings.HasPrefix(text, "# The miles-ci configuration of this repository, written by\n# `miles-ci config --init` from a test.\n"), text)
			lines := strings.Split(text, "\n")
			for _, l := range tt.has {
				assert.Contains(t, lines, l)
			}
			for _, l := range tt.hasNot {
				assert.NotContains(t, lines, l)
			}
			require.NoError(t, os.WriteFile(filepath.Join(root, FileName), out, 0o644))
			after, err := Load(root, "")
			require.NoError(t, err)
			assert.Nil(t, after.Overlay, "the written file extends nothing")
			assert.Equal(t, meaningOf(before), meaningOf(after))
			if tt.config == "" {
				assert.NotEqual(t, "default", after.Source, "the file is the configuration in effect now")
			}
		})
	}
}

// The sections come in the built-in order, each after a blank line, the
// overlay's own first no more.
func TestComplete_WritesTheSectionsInTheBuiltInOrder(t *testing.T) {
	c, err := Parse("ci.yaml", []byte(overlay))
	require.NoError(t, err)
	out, err := c.Complete("x")
	require.NoError(t, err)
	var keys []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && l[0] != ' ' && l[0] != '#' {
			keys = append(keys, l)
		}
	}
	assert.Equal(t, []string{"discovery:", "register_functions:", "labels:", "suites:", "schedules:",
		"scope_subtractions:", "no_gpu_paths: [docs/, \"**/*.md\"]", "file_run:", "gate:", "infra_fingerprints:", "preflight:"}, keys,
		"without a root the labels file was not read: the list holds the labels in effect")
	assert.Contains(t, string(out), "  register_rocm_ci: rocm\n\n# Domain labels, in order.")
}
