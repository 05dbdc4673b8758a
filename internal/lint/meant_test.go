package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

// renamedSample is a copy of the sample whose roster and workflow renamed
// a suite, with the registrations of the files given left on the old name.
func renamedSample(t *testing.T, from, to string, left ...string) string {
	t.Helper()
	root := copyTree(t, sampleRoot)
	roster := strings.Replace(string(config.DefaultYAML()), "name: "+from+"\n", "name: "+to+"\n", 1)
	require.NotEqual(t, string(config.DefaultYAML()), roster)
	require.NoError(t, os.WriteFile(filepath.Join(root, config.FileName), []byte(roster), 0o644))
	rewrite := func(rel string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, []byte(strings.ReplaceAll(string(data), `"`+from+`"`, `"`+to+`"`)), 0o644))
	}
	wf := filepath.Join(root, ".github/workflows/pr-test.yml")
	data, err := os.ReadFile(wf)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(wf, []byte(strings.ReplaceAll(string(data), from, to)), 0o644))
	matches, err := filepath.Glob(filepath.Join(root, "tests/e2e/megatron/*.py"))
	require.NoError(t, err)
	for _, m := range matches {
		rel, _ := filepath.Rel(root, m)
		keep := false
		for _, l := range left {
			keep = keep || filepath.ToSlash(rel) == l
		}
		if !keep {
			rewrite(rel)
		}
	}
	return root
}

// The rename case: a registration left on a renamed suite's old name is
// offered the new name, as an error (its test never runs), and not the
// suite one letter away on other runners (stage-c-8-gpu-h200).
func TestMeant_ARegistrationLeftOnARenamedSuite(t *testing.T) {
	about(t, RuleOrphan)
	const left = "tests/e2e/megatron/test_megatron_pp4.py"
	at := left + ":" + anchorPlace(t, readText(t, filepath.Join(sampleRoot, left)), "", "register_cuda_ci(")
	root := renamedSample(t, "stage-c-8-gpu-h100", "stage-c-8-gpu-h100x", left)
	assert.Equal(t, []string{
		at + ": error: suite 'stage-c-8-gpu-h100' is not in the roster (.miles-ci.yaml) and no job runs it, so this registration never runs: did you mean stage-c-8-gpu-h100x? [orphan-registration]",
	}, findingLines(lintTree(t, root)))

	// A rename that shares less of the old name is found by the runners:
	// the one 8-GPU H100 suite.
	root = renamedSample(t, "stage-c-8-gpu-h100", "megatron-h100-large", left)
	assert.Equal(t, []string{
		at + ": error: suite 'stage-c-8-gpu-h100' is not in the roster (.miles-ci.yaml) and no job runs it, so this registration never runs: did you mean megatron-h100-large? [orphan-registration]",
	}, findingLines(lintTree(t, root)))
}

// What a suggestion never crosses: the backend, the GPU count, the GPU
// model; inside them, the file's other registrations go first.
func TestMeant_NeverAnotherBackendCountOrModel(t *testing.T) {
	cfg, err := config.Parse("c.yaml", config.DefaultYAML())
	require.NoError(t, err)
	c := &checker{cfg: cfg}
	for _, tc := range []struct {
		name     string
		backends []config.Backend
		prefer   []string
		want     string
	}{
		{"stage-c-8-gpu-h10", []config.Backend{config.CUDA}, nil, "stage-c-8-gpu-h100"},
		{"stage-c-8-gpu-h100y", []config.Backend{config.CUDA}, nil, "stage-c-8-gpu-h100"},
		// b200 is one letter from h200, on other runners: nothing.
		{"stage-c-8-gpu-b200", []config.Backend{config.CUDA}, nil, ""},
		// The 2-GPU H200 suites are near, but not of 8 GPUs.
		{"stage-c-8-gpu-h200x", []config.Backend{config.CUDA}, nil, "stage-c-8-gpu-h200"},
		{"stage-d-2-gpu-h200", []config.Backend{config.CUDA}, nil, "stage-b-2-gpu-h200"},
		{"stage-d-2-gpu-h200", []config.Backend{config.CUDA}, []string{"stage-c-2-gpu-h200"}, "stage-c-2-gpu-h200"},
		// A ROCm name under --hw cuda: no CUDA suite runs on MI350.
		{"stage-c-4-gpu-mi35", []config.Backend{config.CUDA}, nil, ""},
		{"stage-c-4-gpu-mi35", []config.Backend{config.ROCM}, nil, "stage-c-4-gpu-mi350"},
		{"stage-c-4-gpu-mi35", nil, nil, "stage-c-4-gpu-mi350"},
		{"stage-a-cpus", []config.Backend{config.CPU}, nil, "stage-a-cpu"},
		{"stage-a-cpus", []config.Backend{config.CUDA}, nil, ""},
	} {
		assert.Equal(t, tc.want, c.suiteMeantAmong(tc.name, tc.backends, tc.prefer), "%s %v %v", tc.name, tc.backends, tc.prefer)
	}
}
