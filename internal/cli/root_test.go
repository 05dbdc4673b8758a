package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoot_MistypedRootIsAnErrorNotAnEmptyGreenRun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(file, []byte("# x\n"), 0o644))
	for _, tc := range []struct {
		root, want string
	}{
		{filepath.Join(dir, "nope"), `repository root "` + filepath.Join(dir, "nope") + `": no such file or directory`},
		{file, `repository root "` + file + `" is not a directory`},
	} {
		for _, args := range [][]string{
			{"suites"},
			{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--match-all-labels"},
			{"partition", "--suite", "stage-a-cpu"},
		} {
			f, out, errOut := suitesFactory(tc.root, nil)
			assert.Equal(t, 1, Main(append([]string{"--root", tc.root}, args...), f), "%v", args)
			assert.Contains(t, errOut.String(), tc.want, "%v", args)
			assert.NotContains(t, out.String(), "No tests to run", "%v", args)
		}
	}
}

func TestRoot_NoDiscoveryRootWarnsButPasses(t *testing.T) {
	dir := t.TempDir()
	f, out, errOut := suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "suites", "--json"}, f), errOut.String())
	assert.Contains(t, out.String(), `"registrations": []`)
	assert.Contains(t, errOut.String(), "warning: none of the discovery roots (tests/fast, tests/fast-gpu, tests/e2e, tests/ci) exists below "+dir)

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "tests", "e2e"), 0o755))
	f, _, errOut = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "suites", "--json"}, f))
	assert.Empty(t, errOut.String(), "an existing but empty root is not suspicious")
}

func TestRoot_AnEmptyPathFlagIsAUsageErrorNotTheDefault(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"--config", "", "suites"}, "config"},
		{[]string{"suites", "--config="}, "config"},
		{[]string{"suites", "--timings", ""}, "timings"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only", "--timings", ""}, "timings"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only", "--config", ""}, "config"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--json-report="}, "json-report"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--junit-xml", ""}, "junit-xml"},
		{[]string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--timings-out", ""}, "timings-out"},
		{[]string{"partition", "--suite", "stage-a-cpu", "--timings", ""}, "timings"},
	} {
		f, out, errOut := suitesFactory(dir, nil)
		assert.Equal(t, 2, Main(append([]string{"--root", dir}, tc.args...), f), "%v", tc.args)
		assert.Contains(t, errOut.String(), "--"+tc.flag+" needs a path, got an empty value", "%v", tc.args)
		assert.Empty(t, out.String(), "%v", tc.args)
	}
}
