package view

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/report"
)

func TestStepSummary_FlakyStatusAndList(t *testing.T) {
	zero, one := 0, 1
	r := &report.Report{Suite: "stage-x", Backend: "cuda", Elapsed: 1, Files: []report.File{
		{File: "flaky.py", Status: report.Pass, Attempts: 2, Elapsed: 8, EstTime: 10, ExitCode: &zero, Reason: "",
			AttemptsDetail: []report.Attempt{
				{Attempt: 1, Status: report.Fail, Elapsed: 5, ExitCode: &one, Reason: "exit code 1"},
				{Attempt: 2, Status: report.Pass, Elapsed: 3, ExitCode: &zero},
			}},
		{File: "ok.py", Status: report.Pass, Attempts: 1, Elapsed: 2, EstTime: 10, ExitCode: &zero,
			AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Pass, Elapsed: 2, ExitCode: &zero}}},
	}}
	r.Finish()
	assert.Equal(t, "### CUDA stage-x: 2/2 passed (1 flaky)\n\n"+
		"| File | Status | Attempts | Elapsed / est. | Exit code or timeout |\n"+
		"|---|---|---:|---:|---|\n"+
		"| `flaky.py` | FLAKY (passed on attempt 2) | 2 | 8s / 10s |  |\n"+
		"| `ok.py` | PASS | 1 | 2s / 10s |  |\n"+
		"\n**Flaky 1 test(s)** (failed, then passed on a later attempt):\n"+
		"- `flaky.py`: passed on attempt 2; attempt 1: exit code 1\n"+
		"\n**Retried 1 test(s):**\n- Passed on retry: flaky.py\n\n", StepSummary(r))
}
