package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

// A label added to tests/ci/labels.py, the file Miles edits, works in every
// command with no .miles-ci.yaml, as it does for the Python scripts.
func TestLabelsPy_ANewLabelWorksWithoutAConfigFile(t *testing.T) {
	var labels strings.Builder
	labels.WriteString("KNOWN_LABELS: dict[str, str] = {\n")
	for _, l := range config.Default().KnownLabels() {
		labels.WriteString("    \"" + l + "\": \"x\",\n")
	}
	labels.WriteString("    \"b200\": \"Blackwell tests\",\n}\n")
	dir := execRepo(t, map[string]string{
		"tests/ci/labels.py":          labels.String(),
		"tests/e2e/test_blackwell.py": "register_cuda_ci(est_time=60, suite=\"stage-c-8-gpu-h100\", labels=[\"b200\"])\n",
	})

	f, out, errOut := suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "suites", "--suite", "stage-c-8-gpu-h100"}, f), errOut.String())
	assert.Contains(t, out.String(), "b200")

	f, out, errOut = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100",
		"--labels", "run-ci-b200", "--list-only"}, f), errOut.String())
	assert.Contains(t, out.String(), "include_labels=['b200']")
	assert.Contains(t, out.String(), "tests/e2e/test_blackwell.py (est_time=60.0s)")

	diff := filepath.Join(t.TempDir(), "diff")
	require.NoError(t, os.WriteFile(diff, []byte("M\x00miles/trainer.py\x00"), 0o644))
	f, out, errOut = suitesFactory(dir, map[string]string{
		"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-b200"]`, "CHANGED_FILES_PATH": diff,
	})
	require.Equal(t, 0, Main([]string{"--root", dir, "policy"}, f), errOut.String())
	assert.Contains(t, out.String(), "labels=[run-ci-b200]")
	assert.NotContains(t, out.String(), `"stage-c-8-gpu-h100"`, "the b200 test makes its stage runnable")

	f, out, errOut = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "config"}, f), errOut.String())
	assert.Equal(t, "configuration OK: default; 20 labels from tests/ci/labels.py\n", out.String())

	// Without labels.py the built-in list rejects the label, and says why.
	require.NoError(t, os.Remove(filepath.Join(dir, "tests/ci/labels.py")))
	f, _, errOut = suitesFactory(dir, nil)
	require.Equal(t, 1, Main([]string{"--root", dir, "suites"}, f))
	assert.Contains(t, errOut.String(), "unknown labels ['b200']")
	assert.Contains(t, errOut.String(), "(this repository has no tests/ci/labels.py; the labels above are miles-ci's built-in list)")
	f, out, _ = suitesFactory(dir, nil)
	require.Equal(t, 0, Main([]string{"--root", dir, "config"}, f))
	assert.Equal(t, "configuration OK: default; 19 labels from miles-ci's built-in list\n", out.String())
}
