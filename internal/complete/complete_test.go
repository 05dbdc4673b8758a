package complete

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/config"
)

func TestScan_FindsTheFlagTheNextWordBelongsTo(t *testing.T) {
	for _, tc := range []struct {
		args string
		want Line
	}{
		{"", Line{}},
		{"--hw", Line{Flag: "hw"}},
		{"--hw cuda --suite", Line{Flag: "suite", HW: "cuda"}},
		{"--hw=rocm --suite", Line{Flag: "suite", HW: "rocm"}},
		{"--root /r --config=/c.yaml --cadence", Line{Flag: "cadence", Root: "/r", Config: "/c.yaml"}},
		{"--labels", Line{Flag: "labels"}},
		{"--labels run-ci-a run-ci-b", Line{Flag: "labels"}}, // zero or more values
		{"--labels run-ci-a --list-only", Line{}},
		{"--suite s", Line{}}, // the value is given; the next word is free
		{"--timings", Line{Flag: "timings"}},
	} {
		assert.Equal(t, tc.want, Scan(strings.Fields(tc.args)), tc.args)
	}
}

func TestValues(t *testing.T) {
	cfg := config.Default()
	assert.Equal(t, []string{"cpu", "cuda", "rocm"}, Values(cfg, "hw", "", ""))
	assert.Equal(t, []string{"cuda"}, Values(cfg, "hw", "", "cu"))
	assert.Equal(t, []string{"stage-a-cpu", "stage-b-cpu"}, Values(cfg, "suite", "cpu", ""), "the suites of --hw")
	assert.Contains(t, Values(cfg, "suite", "", "stage-"), "stage-c-8-gpu-h100", "every suite without --hw")
	assert.Equal(t, []string{"regular", "release"}, Values(cfg, "cadence", "", "re"))
	assert.Equal(t, []string{"run-ci-megatron", "run-ci-miles-plugin", "run-ci-model-scripts", "run-ci-mooncake"},
		slices.Sorted(slices.Values(Values(cfg, "labels", "", "run-ci-m"))))
	assert.Contains(t, Values(cfg, "labels", "", ""), "bypass-fastfail")
	assert.Nil(t, Values(cfg, "timings", "", ""), "a path is the shell's to complete")
}

func TestSelection_SaysWhatTheShellCompletes(t *testing.T) {
	values, files := Selection([]string{"--hw"}, "--x", "", "")
	assert.Nil(t, values, "a flag name is cobra's")
	assert.False(t, files)
	_, files = Selection([]string{"--timings"}, "", "", "")
	assert.True(t, files, "a path is the shell's")
	values, _ = Selection(nil, "--hw=r", t.TempDir(), "")
	assert.Equal(t, []string{"--hw=rocm"}, values)
	values, _ = Selection([]string{"--config", "/nonexistent.yaml", "--hw"}, "c", "", "")
	assert.Equal(t, []string{"cpu", "cuda"}, values, "an unloadable configuration completes as the built-in one")
}
