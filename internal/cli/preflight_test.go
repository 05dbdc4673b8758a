package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/report"
)

// probeConfig is a configuration extending the default whose preflight
// runs the fake probe (testdata/gpu/fake-probe) with args.
func probeConfig(args ...string) string {
	return "extends: default\npreflight:\n  probe: [fake-probe, " + strings.Join(args, ", ") + "]\n"
}

// runProbed runs the report suite (two files) with the fake GPU tools and
// the fake probe on PATH, under a configuration whose probe is the fake's
// with arg, and returns the exit status, stdout, the report and the root.
func runProbed(t *testing.T, arg string, env map[string]string) (int, string, *report.Report, string) {
	t.Helper()
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", ""), "tests/e2e/test_b.py": gpuTest("b", ""),
		config.FileName: probeConfig(arg)})
	jsonPath := filepath.Join(t.TempDir(), "r.json")
	if env == nil {
		env = map[string]string{}
	}
	env["PATH"] = fakeGPUDir(t)
	f, out, errOut := shellFactory(root, env)
	code := Main(append([]string{"--root", root}, runArgs("--json-report", jsonPath)...), f)
	rep, err := report.Read(jsonPath)
	require.NoError(t, err, errOut.String())
	return code, out.String(), rep, root
}

// The GPU tool answers, CUDA does not (radixark/miles#2542): the probe
// stops the run before its first test, exit 75, and the report, the log,
// the annotation and the step summary blame the probe in its own words.
func TestRun_AProbeThatFailsRunsNoTestAndExits75(t *testing.T) {
	summary := filepath.Join(t.TempDir(), "summary.md")
	code, stdout, rep, root := runProbed(t, "802",
		map[string]string{"GITHUB_ACTIONS": "true", "RUNNER_NAME": "h200-runner-3", "GITHUB_STEP_SUMMARY": summary})
	require.Equal(t, exitHostNotReady, code, stdout)
	assert.Nil(t, ranLog(t, root), "no test ran")
	assert.True(t, rep.HostNotReady)
	require.Len(t, rep.Preflights, 1)
	pf := rep.Preflights[0]
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, report.CheckProbe, pf.FailedCheck)
	const reason = "the probe exited with status 1; its output matched the infra fingerprint cuda-802"
	assert.Equal(t, reason, pf.Reason)
	assert.Equal(t, "CUDA error 802: system not yet initialized", pf.LastWords)
	assert.Equal(t, 8, pf.GpusFound, "the GPU tool's check passed")
	require.NotNil(t, pf.Probe)
	assert.Equal(t, report.ProbeFailed, pf.Probe.Status)
	assert.Equal(t, []string{"fake-probe", "802"}, pf.Probe.Argv)
	for _, f := range rep.Files {
		assert.Equal(t, "not run: host not ready", f.Reason)
	}
	assert.Contains(t, stdout, "::error title=GPU preflight%3A host not ready::host not ready on h200-runner-3 (")
	assert.Contains(t, stdout, "): "+reason+"; the probe said: CUDA error 802: system not yet initialized. No further test ran on this host")
	assert.Contains(t, stdout, "; the probe said: CUDA error 802: system not yet initialized (1 try, ")
	md, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(md), "**Host not ready:** "+reason+" (preflight start, 1 try, ")
	assert.Contains(t, string(md), "; the probe said: CUDA error 802: system not yet initialized. ")
}

func TestRun_AProbeThatPassesRunsTheTestsAndStatesItsTime(t *testing.T) {
	code, stdout, rep, root := runProbed(t, "ok", map[string]string{"RUNNER_NAME": "h200-runner-3"})
	require.Equal(t, 0, code, stdout)
	assert.Equal(t, []string{"a", "b"}, ranLog(t, root))
	assert.Regexp(t, `(?m)^\[CI Preflight\] ready: 8 GPUs \(NVIDIA H100 80GB HBM3\) on h200-runner-3 \(.*\), 1 try, \d+\.\ds; the probe passed in \d+\.\ds$`, stdout)
	require.Len(t, rep.Preflights, 1)
	assert.Equal(t, report.PreflightReady, rep.Preflights[0].Status)
	assert.Equal(t, report.ProbePassed, rep.Preflights[0].Probe.Status)
	assert.Equal(t, "", rep.Preflights[0].FailedCheck)
}

// The report's probe keys are documented in `miles-ci help reports`.
func TestRun_ProbeKeysAreDocumented(t *testing.T) {
	_, _, rep, _ := runProbed(t, "802", nil)
	data, err := json.Marshal(rep.Preflights[0])
	require.NoError(t, err)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(data, &keys))
	probe, err := json.Marshal(rep.Preflights[0].Probe)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(probe, &keys))
	code, doc, stderr := miles(t, t.TempDir(), nil, "help", "reports")
	require.Equal(t, 0, code, stderr)
	for k := range keys {
		assert.Contains(t, doc, `"`+k+`"`, "help reports does not document the preflight key %q", k)
	}
}

// checkHost runs `miles-ci preflight` with the fake GPU tools and probe on
// PATH (gpuDir "" leaves them out), under cfg (a .miles-ci.yaml; "" for
// none), fake (FAKE_GPU_*=...) in the tools' environment.
func checkHost(t *testing.T, cfg string, env map[string]string, fake []string, args ...string) (int, string, string) {
	t.Helper()
	files := map[string]string{"README": "a host check\n"}
	if cfg != "" {
		files[config.FileName] = cfg
	}
	root := execRepo(t, files)
	if env == nil {
		env = map[string]string{}
	}
	if _, ok := env["PATH"]; !ok {
		env["PATH"] = fakeGPUDir(t)
	}
	f, out, errOut := execFactory(root, env)
	f.Environ = func() []string { return append(os.Environ(), fake...) }
	code := Main(append([]string{"--root", root, "preflight"}, args...), f)
	return code, out.String(), errOut.String()
}

// preflightJSON decodes `preflight --json`'s output.
func preflightJSON(t *testing.T, out string) (bool, report.Preflight) {
	t.Helper()
	var doc struct {
		Ready bool `json:"ready"`
		report.Preflight
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc), out)
	return doc.Ready, doc.Preflight
}

func TestPreflight_ExitsZeroOnAReadyHost(t *testing.T) {
	code, out, stderr := checkHost(t, probeConfig("ok"), map[string]string{"RUNNER_NAME": "h100-runner-1"}, nil, "--suite", "stage-c-8-gpu-h100")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `^\[CI Preflight\] ready: 8 GPUs \(NVIDIA H100 80GB HBM3\) on h100-runner-1, 1 try, \d+\.\ds; the probe passed in \d+\.\ds\n$`, out)

	code, out, stderr = checkHost(t, "", nil, nil, "--gpus", "8", "--json")
	require.Equal(t, 0, code, stderr)
	ready, pf := preflightJSON(t, out)
	assert.True(t, ready)
	assert.Equal(t, report.PreflightReady, pf.Status)
	assert.Equal(t, "nvidia-smi", pf.Tool, "the backend whose tool is on PATH")
	assert.Equal(t, 8, pf.GpusNeeded)
	assert.Nil(t, pf.Probe, "the built-in configuration has no probe")
}

func TestPreflight_AFailingProbeExits75AndTheJSONNamesIt(t *testing.T) {
	code, out, stderr := checkHost(t, probeConfig("802"), nil, nil, "--gpus", "8", "--json")
	require.Equal(t, exitHostNotReady, code, stderr)
	ready, pf := preflightJSON(t, out)
	assert.False(t, ready)
	assert.Equal(t, report.PreflightNotReady, pf.Status)
	assert.Equal(t, report.CheckProbe, pf.FailedCheck)
	assert.Equal(t, "the probe exited with status 1; its output matched the infra fingerprint cuda-802", pf.Reason)
	assert.Equal(t, "CUDA error 802: system not yet initialized", pf.LastWords)
	assert.Equal(t, preflightWhen, pf.When)
	assert.True(t, strings.HasPrefix(out, "{\n  \"ready\": false,\n"), "ready first: %s", out)

	// As a job-started hook (GITHUB_ACTIONS and GITHUB_RUN_ID set), the
	// job's log gets the line and an error annotation.
	code, out, stderr = checkHost(t, probeConfig("802"), map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_RUN_ID": "1", "RUNNER_NAME": "h100-runner-1"}, nil)
	require.Equal(t, exitHostNotReady, code, stderr)
	assert.Contains(t, out, "[CI Preflight] host not ready on h100-runner-1: the probe exited with status 1; its output matched the infra fingerprint cuda-802; "+
		"the probe said: CUDA error 802: system not yet initialized (1 try, ")
	assert.Contains(t, out, "s); exit status 75\n")
	assert.Contains(t, out, "::error title=GPU preflight%3A host not ready::host not ready on h100-runner-1: the probe exited with status 1; "+
		"its output matched the infra fingerprint cuda-802; the probe said: CUDA error 802: system not yet initialized. The preflight exits 75: ")
}

func TestPreflight_AFailingGPUToolExits75AndTheJSONNamesIt(t *testing.T) {
	pids := filepath.Join(t.TempDir(), "probe-pids")
	code, out, stderr := checkHost(t, probeConfig("hang", pids), nil, []string{"FAKE_GPU_COUNT=2"}, "--suite", "stage-c-8-gpu-h100", "--json")
	require.Equal(t, exitHostNotReady, code, stderr)
	ready, pf := preflightJSON(t, out)
	assert.False(t, ready)
	assert.Equal(t, report.CheckGPUTool, pf.FailedCheck)
	assert.Equal(t, "nvidia-smi listed 2 GPU(s); the suite needs 8", pf.Reason)
	assert.Equal(t, report.ProbeNotRun, pf.Probe.Status)
	assert.NoFileExists(t, pids, "the probe did not run")

	// Without a probe the GPU tool is still named.
	code, out, stderr = checkHost(t, "", nil, []string{"FAKE_GPU_MODE=fail"}, "--gpus", "1", "--timeout", "200ms", "--json")
	require.Equal(t, exitHostNotReady, code, stderr)
	_, pf = preflightJSON(t, out)
	assert.Equal(t, report.CheckGPUTool, pf.FailedCheck)
	assert.Equal(t, "Failed to initialize NVML: Unknown Error", pf.LastWords)
	assert.Regexp(t, `^not ready within 200ms: nvidia-smi exited with status 255$`, pf.Reason)
}

// The command checks a GPU host: one without a GPU tool is not ready.
func TestPreflight_AHostWithoutAGPUToolIsNotReady(t *testing.T) {
	code, out, stderr := checkHost(t, "", map[string]string{"PATH": t.TempDir()}, nil, "--json")
	require.Equal(t, exitHostNotReady, code, stderr)
	_, pf := preflightJSON(t, out)
	assert.Equal(t, "no GPU tool on PATH (nvidia-smi, amd-smi or rocm-smi)", pf.Reason)
	assert.Equal(t, report.CheckGPUTool, pf.FailedCheck)

	code, out, stderr = checkHost(t, "", map[string]string{"PATH": t.TempDir()}, nil, "--suite", "stage-c-4-gpu-mi350")
	require.Equal(t, exitHostNotReady, code, stderr)
	assert.Equal(t, "[CI Preflight] host not ready: neither amd-smi nor rocm-smi found on PATH; exit status 75\n", out)
}

func TestPreflight_FlagsAreChecked(t *testing.T) {
	for msg, args := range map[string][]string{
		"error: --gpus is the count without a suite; --suite takes its suite's":                         {"--suite", "stage-c-8-gpu-h100", "--gpus", "8"},
		"error: --gpus must be a whole number from 1 to 1024, got 0":                                    {"--gpus", "0"},
		"error: --timeout must be positive, as 120s or 2m, got 0s":                                      {"--timeout", "0"},
		"error: stage-a-cpu is a cpu suite; the preflight checks the GPU hosts of cuda and rocm suites": {"--suite", "stage-a-cpu"},
	} {
		code, _, stderr := checkHost(t, "", nil, nil, args...)
		assert.Equal(t, exitUsage, code, msg)
		assert.Contains(t, stderr, msg)
	}
	code, _, stderr := checkHost(t, "", nil, nil, "--suite", "stage-z")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "error: Unknown suite stage-z; known suites: ")
}

func TestNewCmdPreflight_ParsesFlags(t *testing.T) {
	cases := map[string]PreflightOptions{
		"":                                  {},
		"--suite stage-c-8-gpu-h100":        {Suite: "stage-c-8-gpu-h100"},
		"--gpus 8 --timeout 30s --json":     {GPUs: 8, Timeout: 30 * time.Second, JSON: true},
		"--json --suite=stage-b-2-gpu-h200": {Suite: "stage-b-2-gpu-h200", JSON: true},
	}
	for argv, want := range cases {
		f, _, _ := suitesFactory(".", nil)
		var got *PreflightOptions
		cmd := NewCmdPreflight(f, func(o *PreflightOptions) error { got = o; return nil })
		cmd.SetArgs(strings.Fields(argv))
		require.NoError(t, cmd.Execute(), argv)
		require.NotNil(t, got, argv)
		got.timeout, got.gpus = nil, nil
		assert.Equal(t, want, *got, argv)
	}
}

// The configurations help hosts shows for the probe are valid: each YAML
// block with a preflight key parses, a fragment as an overlay of the
// built-in configuration.
func TestDocs_HostsProbeConfigurationsParse(t *testing.T) {
	tp, ok := docs.Lookup("hosts")
	require.True(t, ok)
	bs, _ := blocks(tp.Text)
	n := 0
	for _, b := range bs {
		text := strings.Join(b.lines, "\n") + "\n"
		if b.lang != "yaml" || !strings.Contains(text, "preflight:") {
			continue
		}
		n++
		if !strings.Contains(text, "extends: default") {
			text = "extends: default\n" + text
		}
		c, err := config.Parse("hosts.md", []byte(text))
		require.NoError(t, err, "help hosts, line %d", b.line)
		probe := c.Preflight.Probe
		for _, s := range c.Suites {
			if p := c.Preflight.ForSuite(s).Probe; p.Argv != nil {
				probe = p
			}
		}
		assert.NotEmpty(t, probe.Argv, "help hosts, line %d: a probe", b.line)
	}
	assert.GreaterOrEqual(t, n, 3, "the recipe, the per-suite one and the hook's")
}
