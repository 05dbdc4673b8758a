package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// forgedLines returns the lines of out that the Actions runner would read
// as workflow commands.
func forgedLines(out string) []string {
	var forged []string
	for _, line := range strings.Split(out, "\n") {
		if textfmt.StartsCommand(line) {
			forged = append(forged, line)
		}
	}
	return forged
}

// A suite named like a workflow command is a configuration error at its
// line, before suites or policy --explain prints it at the start of a line.
func TestSuiteNamedLikeAWorkflowCommand_IsRefusedAtLoad(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		".miles-ci.yaml":      "extends: default\nsuites:\n  cuda:\n    - name: \"::error title=forged::stage\"\n      runs_on: [h100]\n",
		"tests/e2e/test_a.py": cudaTest(60, "stage-c-8-gpu-h100", "megatron"),
	})
	env := map[string]string{"EVENT_NAME": "workflow_dispatch"}
	for _, args := range [][]string{{"suites"}, {"policy", "--explain"}, {"config"}} {
		code, out, errOut := miles(t, root, env, args...)
		assert.Equal(t, 1, code, "%v: %s", args, out)
		assert.Contains(t, errOut, `.miles-ci.yaml:4: suite name "::error title=forged::stage" may hold only letters, digits, '-' and '_', starting with a letter or '_' (a GitHub job id)`, "%v", args)
		assert.Empty(t, forgedLines(out), "%v", args)
	}
}

// A label of tests/ci/labels.py, which Python accepts whatever it holds,
// is quoted where policy --explain starts a line with it.
func TestLabelNamedLikeAWorkflowCommand_NeverStartsALine(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"tests/ci/labels.py":  "KNOWN_LABELS = {\n    \"megatron\": \"m\",\n    \"::error title=forged::label\": \"x\",\n}\n",
		"tests/e2e/test_a.py": cudaTest(60, "stage-c-8-gpu-h100", "megatron"),
	})
	code, out, errOut := miles(t, root, map[string]string{"EVENT_NAME": "workflow_dispatch", "CADENCE_OVERRIDE": "weekly"}, "policy", "--explain")
	assert.Equal(t, 0, code, errOut)
	assert.Empty(t, forgedLines(out))
	assert.Contains(t, out, "\n  \"::error title=forged::label\"  included: ")
	assert.Contains(t, out, "\n  megatron                       included: ", "an ordinary label as it is")
}
