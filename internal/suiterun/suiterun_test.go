package suiterun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/testutil"
)

func gpuPlan(files ...string) *suite.Plan {
	p := &suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, ContinueOnError: true}
	for _, f := range files {
		p.Tests = append(p.Tests, registry.Registration{File: f, Backend: config.CUDA, Suite: "s", EstTime: 1})
	}
	return p
}

func TestRun_AFailedFileFailsTheRunAndTheReportSaysWhich(t *testing.T) {
	// The files are shell scripts, which the launcher runs with sh.
	root := testutil.TempTree(t, map[string]string{"ok.py": "echo ok\n", "bad.py": "exit 4\n"})
	reportPath := filepath.Join(t.TempDir(), "r.json")
	var out bytes.Buffer
	got, err := Run(context.Background(), Spec{
		Root: root, Plan: gpuPlan("ok.py", "bad.py"), Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1},
		Outputs: report.Outputs{JSONReport: reportPath}, Out: &out, ErrOut: &out,
		Start: (&testutil.Launcher{Shell: true}).Start,
	})
	require.NoError(t, err)
	assert.Equal(t, Outcome{Code: 1}, got)
	var doc struct {
		Passed bool `json:"passed"`
		Files  []struct {
			File   string `json:"file"`
			Status string `json:"status"`
		} `json:"files"`
	}
	data, err := os.ReadFile(reportPath)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.False(t, doc.Passed)
	require.Len(t, doc.Files, 2)
	assert.Equal(t, "PASS", doc.Files[0].Status)
	assert.Equal(t, "FAIL", doc.Files[1].Status)
}

func TestRun_ABadOutputPathStopsTheRunBeforeAnyTest(t *testing.T) {
	started := 0
	var out bytes.Buffer
	_, err := Run(context.Background(), Spec{
		Root: t.TempDir(), Plan: gpuPlan("x.py"), Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1},
		Outputs: report.Outputs{JSONReport: filepath.Join(t.TempDir(), "missing", "r.json")},
		Out:     &out, ErrOut: &out,
		Start: func(*exec.Cmd) error { started++; return nil },
	})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--json-report")
	assert.Zero(t, started, "no test may start")
}

// The gate decision, made once per run: what calls the gate, the line
// that says so, where the records go, and the runner's adapter.
func TestDecideGate(t *testing.T) {
	miles := config.Default().Gate
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	neon := env("NEON_DATABASE_URL", "postgres://x")
	base := env("MILES_CI_GATE_RECORD_DIR", "/records")
	none := env()
	adapter := &runner.GateAdapter{
		Python: "python3", Hook: "tests.ci.ci_utils:run_gate_hook", Store: "tests.ci.ci_utils:build_store_from_env",
		Provenance: "tests.ci.ci_utils:gate_provenance_from_env", Registry: "tests.ci.ci_register:ut_parse_one_file",
		Timeout: 600 * time.Second, Backend: "cuda", Suite: "s",
	}
	tests := []struct {
		name    string
		backend config.Backend
		getenv  func(string) string
		hook    string
		noGate  bool
		gate    config.Gate
		want    Gate
	}{
		{"the configured gate", config.CUDA, neon, "", false, miles, Gate{Mode: GateAdapter, FreshRecordBase: true, Adapter: adapter,
			Line: "[CI Gate] on: NEON_DATABASE_URL is set; python3 calls tests.ci.ci_utils:run_gate_hook after each passed file"}},
		{"the configured gate, records below a named base", config.CUDA, env("NEON_DATABASE_URL", "x", "MILES_CI_GATE_RECORD_DIR", "/records"), "", false, miles,
			Gate{Mode: GateAdapter, RecordBase: "/records", Adapter: adapter,
				Line: "[CI Gate] on: NEON_DATABASE_URL is set; python3 calls tests.ci.ci_utils:run_gate_hook after each passed file"}},
		{"no variable", config.CUDA, none, "", false, miles, Gate{}},
		{"not cuda", config.ROCM, neon, "", false, miles, Gate{}},
		{"a cpu suite has no gate, nor records", config.CPU, base, "h", false, miles, Gate{}},
		{"--gate-hook wins", config.CUDA, neon, "h", false, miles, Gate{Mode: GateHook, Hook: "h", FreshRecordBase: true,
			Line: "[CI Gate] on: NEON_DATABASE_URL is set; --gate-hook runs after each passed file"}},
		{"--gate-hook runs wherever records are made", config.ROCM, base, "h", false, miles, Gate{Mode: GateHook, Hook: "h", RecordBase: "/records",
			Line: "[CI Gate] on: MILES_CI_GATE_RECORD_DIR is set; --gate-hook runs after each passed file"}},
		{"--gate-hook without records never runs", config.CUDA, none, "h", false, miles, Gate{}},
		{"--no-gate", config.CUDA, neon, "", true, miles, Gate{Line: "[CI Gate] off: --no-gate"}},
		{"--no-gate keeps the records of a named base", config.CUDA, base, "", true, miles, Gate{RecordBase: "/records", Line: "[CI Gate] off: --no-gate"}},
		{"no gate section", config.CUDA, neon, "", false, config.Gate{}, Gate{FreshRecordBase: true,
			Line: "[CI Gate] off: NEON_DATABASE_URL is set, but the configuration has no gate section (give --gate-hook COMMAND)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, DecideGate(tt.backend, "s", tt.getenv, tt.hook, tt.noGate, tt.gate))
		})
	}
}

// A GPU suite reads its files' output for the configuration's
// fingerprints of its backend: a test that prints CUDA error 802 fails
// with cause infra and that line in the JSON report on a cuda suite; a
// rocm suite has no CUDA fingerprints, and the same failure is the test's.
func TestRun_TheReportNamesAnInfraFailureWithItsLine(t *testing.T) {
	const line = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"
	for _, b := range []config.Backend{config.CUDA, config.ROCM} {
		t.Run(string(b), func(t *testing.T) {
			root := testutil.TempTree(t, map[string]string{"gpu.py": "echo 'Traceback (most recent call last):' >&2\necho '" + line + "' >&2\nexit 1\n"})
			reportPath := filepath.Join(t.TempDir(), "r.json")
			plan := gpuPlan("gpu.py")
			plan.Backend = b
			var out bytes.Buffer
			got, err := Run(context.Background(), Spec{
				Root: root, Plan: plan, Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1},
				Outputs: report.Outputs{JSONReport: reportPath}, Out: &out, ErrOut: &out,
				InfraFingerprints: config.Default().InfraFingerprints,
				Getenv:            func(k string) string { return map[string]string{"RUNNER_NAME": "h100-runner-7"}[k] },
				Start:             (&testutil.Launcher{Shell: true}).Start,
			})
			require.NoError(t, err)
			assert.Equal(t, Outcome{Code: 1}, got)
			data, err := os.ReadFile(reportPath)
			require.NoError(t, err)
			doc, err := report.Parse(data)
			require.NoError(t, err)
			f := doc.Files[0]
			a := f.AttemptsDetail[0]
			if b == config.ROCM {
				assert.Equal(t, report.CauseTest, f.Cause)
				assert.Equal(t, report.CauseTest, a.Cause)
				assert.Empty(t, a.CauseLine)
				assert.NotContains(t, out.String(), "[CI Infra]")
				return
			}
			assert.Equal(t, report.CauseInfra, f.Cause)
			assert.Equal(t, report.CauseInfra, a.Cause)
			assert.Equal(t, line, a.CauseLine)
			assert.Equal(t, "cuda-802", a.Fingerprint)
			assert.Contains(t, out.String(), "[CI Infra] gpu.py: cuda-802 matched: "+line+"\n")
			assert.Contains(t, out.String(), "  gpu.py (exit code 1, infra: cuda-802)\n")
		})
	}
}
