package suiterun

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/testutil"
)

// fakeTool puts an executable sh script called name in a new directory,
// which it returns for a PATH.
func fakeTool(t *testing.T, name, script string) string {
	t.Helper()
	dir := t.TempDir()
	path := testutil.WriteFile(t, dir, name, "#!/bin/sh\n"+script)
	require.NoError(t, os.Chmod(path, 0o755))
	return dir
}

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func runWithHost(t *testing.T, backend config.Backend, env map[string]string, queryTimeout time.Duration) *report.Report {
	t.Helper()
	root := testutil.TempTree(t, map[string]string{"ok.py": "echo ok\n"})
	reportPath := filepath.Join(t.TempDir(), "r.json")
	plan := gpuPlan("ok.py")
	plan.Backend = backend
	var out bytes.Buffer
	got, err := Run(context.Background(), Spec{
		Root: root, Plan: plan, Limits: runner.Limits{TimeoutPerFile: 60, MaxAttempts: 1},
		Outputs: report.Outputs{JSONReport: reportPath}, Out: &out, ErrOut: &out,
		Getenv: envOf(env), Hostname: func() (string, error) { return "gpu-box-7", nil },
		GPUQueryTimeout: queryTimeout, Preflight: PreflightSpec{Off: true},
		Start: (&testutil.Launcher{Shell: true}).Start,
	})
	require.NoError(t, err, out.String())
	assert.Equal(t, Outcome{}, got, "the GPU tool never decides the run: %s", out.String())
	rep, err := report.Read(reportPath)
	require.NoError(t, err)
	require.NotNil(t, rep.Host)
	return rep
}

func TestRun_AHungGPUToolCostsItsBoundAndTheReportSaysSo(t *testing.T) {
	testutil.NeedLinux(t, "process groups and /proc")
	pidFile := filepath.Join(t.TempDir(), "pid")
	dir := fakeTool(t, "nvidia-smi", "echo $$ > "+pidFile+"\nexec sleep 1000\n")
	start := time.Now()
	rep := runWithHost(t, config.CUDA, map[string]string{"PATH": dir}, time.Second)
	assert.Less(t, time.Since(start), 30*time.Second, "the hung tool was not stopped at its bound")
	assert.Nil(t, rep.Host.Gpus)
	assert.Equal(t, "nvidia-smi", rep.Host.GpuTool)
	assert.Equal(t, "nvidia-smi timed out after 1s", rep.Host.GpusError)
	assert.Equal(t, report.Pass, rep.Files[0].Status, "the tests still ran")
	data, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	require.NoError(t, err)
	assert.False(t, testutil.Alive(pid), "the hung tool was left running")
}

func TestRun_TheHostSaysWhereTheRunHappened(t *testing.T) {
	dir := fakeTool(t, "nvidia-smi", `echo "0, GPU-1, NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15"`+"\n")
	rep := runWithHost(t, config.CUDA, map[string]string{
		"PATH": dir, "RUNNER_NAME": "novita-host2", "GITHUB_REPOSITORY": "radixark/miles",
		"GITHUB_RUN_ID": "123", "GITHUB_RUN_ATTEMPT": "2", "GITHUB_JOB": "e2e", "GITHUB_SHA": "abc123",
		"GITHUB_REF": "refs/pull/2542/merge", "MILES_CI_IMAGE": "radixark/miles:dev",
	}, 0)
	pr := 2542
	assert.Equal(t, &report.Host{Runner: "novita-host2", Hostname: "gpu-box-7", Repository: "radixark/miles",
		RunID: "123", RunAttempt: "2", Job: "e2e", SHA: "abc123", PR: &pr, Image: "radixark/miles:dev",
		GpuTool: "nvidia-smi", Gpus: []report.GPU{{Index: 0, UUID: "GPU-1", Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559, Driver: "550.54.15"}}}, rep.Host)
}

func TestRun_ROCmWithoutAGPUToolNamesBothItLookedFor(t *testing.T) {
	rep := runWithHost(t, config.ROCM, map[string]string{"PATH": t.TempDir()}, 0)
	assert.Equal(t, "amd-smi", rep.Host.GpuTool)
	assert.Equal(t, "neither amd-smi nor rocm-smi found on PATH", rep.Host.GpusError)
	assert.Nil(t, rep.Host.Gpus)
	assert.Nil(t, rep.Host.PR)
}

func TestRun_ACPUSuiteAsksNoGPUTool(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "asked")
	dir := fakeTool(t, "nvidia-smi", ": > "+marker+"\n")
	plan := gpuPlan("ok.py")
	plan.Backend = config.CPU
	var out bytes.Buffer
	_, _ = Run(context.Background(), Spec{
		Root: t.TempDir(), Plan: plan, Out: &out, ErrOut: &out, Getenv: envOf(map[string]string{"PATH": dir}),
		Start: func(*exec.Cmd) error { return errors.New("no pytest here") },
	})
	assert.NoFileExists(t, marker, "a CPU suite ran nvidia-smi")
}
