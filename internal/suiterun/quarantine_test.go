package suiterun

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/runner"
)

// A CPU suite is one pytest process, whose status is the run's: a
// quarantine of one of its files cannot apply, and run says so before it
// starts pytest.
func TestRun_AQuarantineOfACPUFileDoesNotApplyAndRunSaysSo(t *testing.T) {
	p := gpuPlan("tests/test_a.py", "tests/test_b.py")
	p.Backend = config.CPU
	p.Quarantine = []config.QuarantineEntry{{File: "tests/test_b.py", Reason: "r", Until: time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)}}
	var out, errOut bytes.Buffer
	_, _ = Run(context.Background(), Spec{
		Root: t.TempDir(), Plan: p, Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1}, Out: &out, ErrOut: &errOut,
		Start: func(*exec.Cmd) error { return errors.New("no pytest in this test") },
	})
	assert.Contains(t, errOut.String(), "warning: the quarantine of tests/test_b.py does not apply: a CPU suite runs as one pytest process, whose status is the run's\n")
	assert.NotContains(t, errOut.String(), "test_a.py")
}
