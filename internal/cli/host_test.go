package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/suiterun"
	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// fakeNvidiaSMI puts an nvidia-smi that runs script (sh) in a new
// directory, which it returns for the run's PATH.
func fakeNvidiaSMI(t *testing.T, script string) string {
	t.Helper()
	dir := t.TempDir()
	path := testutil.WriteFile(t, dir, "nvidia-smi", "#!/bin/sh\n"+script)
	require.NoError(t, os.Chmod(path, 0o755))
	return dir
}

// hostOf runs the report suite with env and returns the "host" object of
// its JSON report, as written. The preflight, which a failing GPU tool
// would turn into a host not ready, is off: the host is recorded either way.
func hostOf(t *testing.T, env map[string]string) map[string]any {
	t.Helper()
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := miles(t, root, env, runArgs("--json-report", jsonPath, "--no-preflight")...)
	require.Equal(t, 0, code, "without the preflight the GPU tool never fails the run: %s", stderr)
	data, err := os.ReadFile(jsonPath)
	require.NoError(t, err)
	var doc struct {
		Host map[string]any `json:"host"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	require.NotNil(t, doc.Host, "every run's report has a host")
	return doc.Host
}

func TestRun_TheReportNamesTheRunnerAndItsGPUs(t *testing.T) {
	dir := fakeNvidiaSMI(t, `case "$*" in
*--query-gpu=index,uuid,name,memory.total,driver_version*--format=csv,noheader*) ;;
*) echo "unexpected arguments: $*" >&2; exit 2 ;;
esac
echo "0, GPU-0b6e, NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15"
echo "1, GPU-77d1, NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15"
`)
	host := hostOf(t, map[string]string{"PATH": dir, "RUNNER_NAME": "novita-host2",
		"GITHUB_SHA": "5f1e", "GITHUB_RUN_ID": "991", "GITHUB_REF": "refs/pull/2542/merge"})
	assert.Equal(t, "novita-host2", host["runner"])
	assert.Equal(t, "5f1e", host["sha"])
	assert.Equal(t, "991", host["run_id"])
	assert.Equal(t, float64(2542), host["pr"])
	assert.Equal(t, "", host["gpus_error"])
	name, _ := os.Hostname()
	assert.Equal(t, name, host["hostname"])
	assert.Equal(t, []any{
		map[string]any{"index": float64(0), "uuid": "GPU-0b6e", "name": "NVIDIA H100 80GB HBM3", "memory_mib": float64(81559), "driver": "550.54.15"},
		map[string]any{"index": float64(1), "uuid": "GPU-77d1", "name": "NVIDIA H100 80GB HBM3", "memory_mib": float64(81559), "driver": "550.54.15"},
	}, host["gpus"])
}

func TestRun_AFailingGPUToolIsRecordedNotFatal(t *testing.T) {
	dir := fakeNvidiaSMI(t, "echo 'Unable to determine the device handle for GPU0000:1B:00.0: Unknown Error' >&2\nexit 9\n")
	host := hostOf(t, map[string]string{"PATH": dir})
	assert.Nil(t, host["gpus"])
	assert.Equal(t, "nvidia-smi exited with status 9: Unable to determine the device handle for GPU0000:1B:00.0: Unknown Error",
		host["gpus_error"])
	assert.Nil(t, host["pr"], "no pull request outside refs/pull/N/merge")
}

// Every key of the host object a run writes is documented in `miles-ci
// help reports`.
func TestRun_HostKeysAreDocumented(t *testing.T) {
	host := hostOf(t, map[string]string{"PATH": fakeNvidiaSMI(t, `echo "0, GPU-1, X, 1 MiB, 1"`+"\n")})
	code, doc, stderr := miles(t, t.TempDir(), nil, "help", "reports")
	require.Equal(t, 0, code, stderr)
	keys := []string{}
	for k := range host {
		keys = append(keys, k)
	}
	gpu := host["gpus"].([]any)[0].(map[string]any)
	for k := range gpu {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Every key the report declares for a host and a GPU is written (a
	// new one, declared in report.Host, needs no count here).
	declared := append(jsonKeys(reflect.TypeFor[report.Host]()), jsonKeys(reflect.TypeFor[report.GPU]())...)
	sort.Strings(declared)
	assert.Equal(t, declared, keys, "the host block of a run's report")
	for _, k := range append(keys, "host", "hosts") {
		assert.True(t, strings.Contains(doc, `"`+k+`"`), "help reports does not document the key %q", k)
	}
	assert.True(t, strings.Contains(doc, "`"+suiterun.EnvImage+"`"), "help reports does not name the image variable")
}

// jsonKeys lists the JSON names of a struct type's fields.
func jsonKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
}

// The step summary's heading names the runner and the machine, as text.
func TestRun_TheStepSummaryHeadingNamesTheHost(t *testing.T) {
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	summary := filepath.Join(t.TempDir(), "summary.md")
	code, stdout, stderr := miles(t, root, map[string]string{"GITHUB_STEP_SUMMARY": summary,
		"RUNNER_NAME": "novita-host2 [x](https://evil.example)"}, runArgs()...)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "novita-host2", "the Python-compatible log is unchanged")
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	heading, _, _ := strings.Cut(string(md), "\n")
	name, _ := os.Hostname()
	assert.True(t, strings.HasPrefix(heading, "### CUDA "+reportSuite+" on novita-host2 "), heading)
	assert.True(t, strings.HasSuffix(heading, " ("+textfmt.Markdown(name)+"): 1/1 passed"), heading)
	assert.NotContains(t, heading, "[x](https://evil.example)", "a runner name is shown as text, never a link")
}
