package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/testutil"
)

// policyRegistry is a small registry shaped like Miles: one labeled test in
// most PR GPU stages, a nightly-only one, a disabled one, and CPU tests.
func policyRegistry() *registry.Registry {
	flaky := "flaky"
	r := func(file string, b config.Backend, suite string, labels ...string) registry.Registration {
		if labels == nil {
			labels = []string{}
		}
		return registry.Registration{File: file, Backend: b, Suite: suite, EstTime: 60, Labels: labels}
	}
	regs := []registry.Registration{
		r("tests/e2e/amd/test_amd_smoke.py", config.ROCM, "stage-c-4-gpu-mi350", "amd"),
		r("tests/e2e/eval/test_eval_disabled.py", config.CUDA, "stage-c-2-gpu-h200", "eval"),
		r("tests/e2e/ft/test_ft_compare.py", config.CUDA, "stage-c-4-gpu-h200", "ft-short"),
		r("tests/e2e/long/test_soak.py", config.CUDA, "stage-c-8-gpu-h200", "long"),
		r("tests/e2e/lora/test_lora_nightly.py", config.CUDA, "stage-c-2-gpu-h200", "lora"),
		r("tests/e2e/megatron/test_megatron_tp.py", config.CUDA, "stage-c-8-gpu-h100", "megatron"),
		r("tests/fast-gpu/test_fsdp_small.py", config.CUDA, "stage-b-2-gpu-h200", "fsdp"),
		r("tests/fast/test_cpu_unit.py", config.CPU, "stage-a-cpu"),
	}
	regs[1].Disabled = &flaky
	regs[4].Nightly = true
	return &registry.Registry{Registrations: regs}
}

// policyHarness runs policyRun on buffers with env as the whole
// environment, diffs as the readable files, and a registry (or an error)
// that the test can check was or was not collected.
type policyHarness struct {
	env       map[string]string
	files     map[string]string
	reg       *registry.Registry
	regErr    error
	collected bool
	out, err  bytes.Buffer
}

func (h *policyHarness) options() *PolicyOptions {
	return &PolicyOptions{
		Config: func() (*config.Config, error) { return config.Default(), nil },
		Collect: func(*config.Config) (*registry.Registry, error) {
			h.collected = true
			if h.regErr != nil {
				return nil, h.regErr
			}
			reg := h.reg
			if reg == nil {
				reg = policyRegistry()
			}
			return reg, nil
		},
		ReadFile: func(name string) ([]byte, error) {
			if s, ok := h.files[name]; ok {
				return []byte(s), nil
			}
			return nil, fs.ErrNotExist
		},
	}
}

func (h *policyHarness) run(t *testing.T, mutate ...func(*PolicyOptions)) error {
	t.Helper()
	opts := h.options()
	for _, m := range mutate {
		m(opts)
	}
	f := &Factory{Out: &h.out, ErrOut: &h.err, LookupEnv: func(k string) (string, bool) {
		v, ok := h.env[k]
		return v, ok
	}}
	return policyRun(context.Background(), f, opts)
}

const (
	codeDiff = "M\x00miles/backends/engine.py\x00"
	docsDiff = "M\x00docs/guide/setup.rst\x00M\x00README.md\x00"
	allSix   = `["stage-b-2-gpu-h200","stage-c-2-gpu-h200","stage-c-4-gpu-h200","stage-c-4-gpu-mi350","stage-c-8-gpu-h100","stage-c-8-gpu-h200"]`
)

func TestPolicy_WritesTheFourOutputs(t *testing.T) {
	tests := []struct {
		name      string
		env       map[string]string
		diff      string // "" = no diff file
		collected bool
		output    string
		stdout    string
	}{
		{"workflow dispatch", map[string]string{"EVENT_NAME": "workflow_dispatch"}, "", false,
			"cadence=regular\nraw_labels=\nbypass_fastfail=false\nskipped_stages=[]\n",
			"Resolved CI policy: cadence=regular labels=[] bypass_fastfail=false skipped_stages=[]\n"},
		{"nightly schedule", map[string]string{"EVENT_NAME": "schedule", "SCHEDULE": "0 15 * * 0-5"}, "", false,
			"cadence=nightly\nraw_labels=\nbypass_fastfail=true\nskipped_stages=[]\n",
			"Resolved CI policy: cadence=nightly labels=[] bypass_fastfail=true skipped_stages=[]\n"},
		{"override on a schedule ignores the cron", map[string]string{"EVENT_NAME": "schedule", "SCHEDULE": "bogus", "CADENCE_OVERRIDE": "release"}, "", false,
			"cadence=release\nraw_labels=\nbypass_fastfail=true\nskipped_stages=[]\n",
			"Resolved CI policy: cadence=release labels=[] bypass_fastfail=true skipped_stages=[]\n"},
		{"a schedule never reads the diff", map[string]string{"EVENT_NAME": "schedule", "SCHEDULE": "0 15 * * 6"}, codeDiff, false,
			"cadence=weekly\nraw_labels=\nbypass_fastfail=true\nskipped_stages=[]\n",
			"Resolved CI policy: cadence=weekly labels=[] bypass_fastfail=true skipped_stages=[]\n"},
		{"pull request with one domain label", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp", "bug"]`}, codeDiff, true,
			"cadence=regular\nraw_labels=run-ci-fsdp\nbypass_fastfail=false\nskipped_stages=" +
				`["stage-c-2-gpu-h200","stage-c-4-gpu-h200","stage-c-4-gpu-mi350","stage-c-8-gpu-h100","stage-c-8-gpu-h200"]` + "\n",
			"Resolved CI policy: cadence=regular labels=[run-ci-fsdp] bypass_fastfail=false skipped_stages=" +
				`["stage-c-2-gpu-h200","stage-c-4-gpu-h200","stage-c-4-gpu-mi350","stage-c-8-gpu-h100","stage-c-8-gpu-h200"]` + "\n"},
		{"pull request keeps duplicates; nightly leaves the long-only stage out", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["nightly", "bypass-fastfail", "nightly"]`}, codeDiff, true,
			"cadence=nightly\nraw_labels=nightly bypass-fastfail nightly\nbypass_fastfail=true\nskipped_stages=[\"stage-c-8-gpu-h200\"]\n",
			"Resolved CI policy: cadence=nightly labels=[nightly bypass-fastfail nightly] bypass_fastfail=true skipped_stages=[\"stage-c-8-gpu-h200\"]\n"},
		{"an override on a pull request still prunes", map[string]string{"EVENT_NAME": "pull_request", "CADENCE_OVERRIDE": "release", "PR_LABELS_JSON": "junk"}, docsDiff, true,
			"cadence=release\nraw_labels=\nbypass_fastfail=true\nskipped_stages=" + allSix + "\n",
			"Resolved CI policy: cadence=release labels=[] bypass_fastfail=true skipped_stages=" + allSix + "\n"},
		{"an unusable diff disables pruning without reading the registry",
			map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp"]`}, "M\x00docs/a.md", false,
			"cadence=regular\nraw_labels=run-ci-fsdp\nbypass_fastfail=false\nskipped_stages=[]\n",
			msgNoDiff + "\nResolved CI policy: cadence=regular labels=[run-ci-fsdp] bypass_fastfail=false skipped_stages=[]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "github_output")
			require.NoError(t, os.WriteFile(out, nil, 0o600))
			h := &policyHarness{env: tt.env, files: map[string]string{}}
			h.env["GITHUB_OUTPUT"] = out
			if tt.diff != "" {
				h.env["CHANGED_FILES_PATH"] = "changed"
				h.files["changed"] = tt.diff
			}
			require.NoError(t, h.run(t))
			got, err := os.ReadFile(out)
			require.NoError(t, err)
			assert.Equal(t, tt.output, string(got))
			assert.Equal(t, tt.stdout, h.out.String())
			hint := ""
			if strings.HasPrefix(tt.stdout, msgNoDiff) {
				hint = "hint: CHANGED_FILES_PATH (changed): the last field does not end in NUL; to prune, write it with: git diff --name-status -z -M origin/main... > FILE\n"
			}
			assert.Equal(t, hint, h.err.String(), "stderr")
			assert.Equal(t, tt.collected, h.collected, "registry collected")
		})
	}
}

// A PR label meant to select tests that selects nothing is a warning on
// stderr, with the label it resembles; the outputs stay the Python's byte
// for byte, and a label of the repository's own (bug, a bare domain label)
// or one the policy acts on gets no warning. A label is a pull request's
// data: the warning quotes it so that no line it holds can start.
func TestPolicy_WarnsAboutPRLabelsThatSelectNothing(t *testing.T) {
	labels := `["run-ci-megatorn", "Run-CI-Megatron", "run_ci_lora", "nigthly", "bug", "megatron", "bypass-fastfail",` +
		` "run-ci-all", "run-ci-fsdp", "run-ci-megatorn", "run-ci-\n::error::forged\u001b[31m", "::error::boom", "run-ci-zzzzzz"]`
	out := filepath.Join(t.TempDir(), "github_output")
	require.NoError(t, os.WriteFile(out, nil, 0o600))
	h := &policyHarness{env: map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": labels, "GITHUB_OUTPUT": out,
		"CHANGED_FILES_PATH": "changed"}, files: map[string]string{"changed": codeDiff}}
	require.NoError(t, h.run(t))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	const kept = "run-ci-megatorn bypass-fastfail run-ci-all run-ci-fsdp run-ci-megatorn run-ci-zzzzzz"
	assert.Equal(t, "cadence=regular\nraw_labels="+kept+"\nbypass_fastfail=true\nskipped_stages=[\"stage-c-2-gpu-h200\"]\n", string(got))
	assert.Equal(t, "Resolved CI policy: cadence=regular labels=["+kept+"] bypass_fastfail=true skipped_stages=[\"stage-c-2-gpu-h200\"]\n", h.out.String())
	assert.Equal(t, "warning: PR label 'run-ci-megatorn' names no known domain label and selects no test; did you mean 'run-ci-megatron'?\n"+
		"warning: PR label 'run-ci-zzzzzz' names no known domain label and selects no test (the known ones, each added as run-ci-<label>: "+
		"amd, ckpt, eval, fsdp, ft-long, ft-short, fully-async, long, lora, megatron, miles-plugin, model-scripts, mooncake, precision, qwen35, replay, sglang, short, weight-update)\n"+
		"warning: PR label 'Run-CI-Megatron' is no CI label, so it selects nothing; did you mean 'run-ci-megatron'?\n"+
		"warning: PR label 'run_ci_lora' is no CI label, so it selects nothing; did you mean 'run-ci-lora'?\n"+
		"warning: PR label 'nigthly' is no CI label, so it selects nothing; did you mean 'nightly'?\n"+
		"warning: PR label 'run-ci-\\n::error::forged\\x1b[31m' is no CI label, so it selects nothing: a run-ci-<label> name holds only ASCII letters, digits, '_', '.' and '-'\n",
		h.err.String())
	for _, line := range strings.Split(h.err.String(), "\n") {
		assert.False(t, strings.HasPrefix(line, "::"), "a forged workflow command: %q", line)
	}
}

// The known labels are the repository's own tests/ci/labels.py, the
// Python's source of truth: a label added there is known at once.
func TestPolicy_PRLabelWarningsKnowTheLabelsFile(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"tests/ci/labels.py": "KNOWN_LABELS = {\"megatron\": \"m\", \"speculative\": \"a label Miles added\"}\n",
	})
	env := map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-speculative", "run-ci-speculatve", "run-ci-fsdp"]`}
	code, stdout, errOut := miles(t, root, env, "policy")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, stdout, "raw_labels=run-ci-speculative run-ci-speculatve run-ci-fsdp\n")
	assert.Contains(t, errOut, "warning: PR label 'run-ci-speculatve' names no known domain label and selects no test; did you mean 'run-ci-speculative'?\n")
	assert.Contains(t, errOut, "warning: PR label 'run-ci-fsdp' names no known domain label and selects no test (the known ones, each added as run-ci-<label>: megatron, speculative)\n")
	assert.NotContains(t, errOut, "'run-ci-speculative' names")
}

func TestPolicy_FailsOpenOnEveryUnusableDiff(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"path unset", map[string]string{}},
		{"path empty", map[string]string{"CHANGED_FILES_PATH": ""}},
		{"file missing", map[string]string{"CHANGED_FILES_PATH": "missing"}},
		{"file empty", map[string]string{"CHANGED_FILES_PATH": "empty"}},
		{"no trailing NUL", map[string]string{"CHANGED_FILES_PATH": "no-nul"}},
		{"invalid UTF-8", map[string]string{"CHANGED_FILES_PATH": "bad-utf8"}},
		{"bad status", map[string]string{"CHANGED_FILES_PATH": "bad-status"}},
		{"missing path", map[string]string{"CHANGED_FILES_PATH": "missing-path"}},
		{"empty path", map[string]string{"CHANGED_FILES_PATH": "empty-path"}},
	}
	files := map[string]string{
		"empty": "", "no-nul": "M\x00docs/a.md", "bad-utf8": "M\x00docs/\xff.md\x00", "bad-status": "Z\x00docs/a.md\x00",
		"missing-path": "R100\x00docs/a.md\x00", "empty-path": "M\x00\x00",
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &policyHarness{env: tt.env, files: files}
			h.env["EVENT_NAME"] = "pull_request"
			h.env["PR_LABELS_JSON"] = `[]`
			require.NoError(t, h.run(t))
			assert.Contains(t, h.err.String(), "hint: CHANGED_FILES_PATH ")
			assert.Contains(t, h.err.String(), "; to prune, write ")
			assert.Equal(t, msgNoDiff+"\n"+
				"cadence=regular\nraw_labels=\nbypass_fastfail=false\nskipped_stages=[]\n"+
				"Resolved CI policy: cadence=regular labels=[] bypass_fastfail=false skipped_stages=[]\n", h.out.String())
			assert.False(t, h.collected, "the registry is not read without a usable diff")
		})
	}
}

func TestPolicy_ErrorsAreAnnotationsAndWriteNothing(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		regErr error
		stderr string
	}{
		{"EVENT_NAME unset", map[string]string{}, nil, "::error::EVENT_NAME is not set\nhint: set EVENT_NAME (or --event) to pull_request, schedule or workflow_dispatch\n"},
		{"unsupported event", map[string]string{"EVENT_NAME": "push"}, nil, "::error::Unsupported PR Test trigger: push\nhint: EVENT_NAME is 'push'; expected pull_request, schedule or workflow_dispatch\n"},
		{"empty event", map[string]string{"EVENT_NAME": ""}, nil, "::error::Unsupported PR Test trigger: \nhint: EVENT_NAME is ''; expected pull_request, schedule or workflow_dispatch\n"},
		{"unknown cron", map[string]string{"EVENT_NAME": "schedule", "SCHEDULE": "0 3 * * *"}, nil, "::error::No CI policy is defined for schedule: 0 3 * * *\nhint: SCHEDULE is '0 3 * * *'; expected one of the configured schedules: '0 15 * * 0-5' (nightly), '0 15 * * 6' (weekly)\n"},
		{"labels unset", map[string]string{"EVENT_NAME": "pull_request"}, nil, "::error::PR labels were not a JSON string array\nhint: PR_LABELS_JSON is ''; expected a JSON array of strings, such as '[\"run-ci-megatron\"]' or '[]' (in a workflow, toJSON(github.event.pull_request.labels.*.name))\n"},
		{"labels not an array", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `{"labels": []}`}, nil, "::error::PR labels were not a JSON string array\nhint: PR_LABELS_JSON is '{\"labels\": []}'; expected a JSON array of strings, such as '[\"run-ci-megatron\"]' or '[]' (in a workflow, toJSON(github.event.pull_request.labels.*.name))\n"},
		{"invalid override", map[string]string{"EVENT_NAME": "workflow_dispatch", "CADENCE_OVERRIDE": "monthly"}, nil,
			"::error::Unknown CI cadence 'monthly'; expected one of ['nightly', 'regular', 'release', 'weekly']\n" +
				"hint: CADENCE_OVERRIDE is 'monthly'; expected nightly, regular, release, weekly, or empty for the trigger's own cadence\n"},
		{"registry error on a pull request", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `[]`, "CHANGED_FILES_PATH": "changed"},
			registry.Errors{
				{File: "tests/e2e/test_broken.py", Line: 3, Msg: "tests/e2e/test_broken.py: est_time is required in register_cuda_ci()"},
				{File: "tests/e2e/test_z.py", Msg: "No CI registry found in tests/e2e/test_z.py"},
			},
			"::error::tests/e2e/test_broken.py: est_time is required in register_cuda_ci()\n::error::No CI registry found in tests/e2e/test_z.py\n"},
		{"other collection error", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `[]`, "CHANGED_FILES_PATH": "changed"},
			errors.New("read config \"x\": boom"), "::error::read config \"x\": boom\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "github_output")
			require.NoError(t, os.WriteFile(out, nil, 0o600))
			h := &policyHarness{env: tt.env, files: map[string]string{"changed": codeDiff}, regErr: tt.regErr}
			h.env["GITHUB_OUTPUT"] = out
			err := h.run(t)
			var exit *ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, 1, exit.Code)
			assert.Equal(t, tt.stderr, h.err.String())
			assert.Empty(t, h.out.String())
			got, rerr := os.ReadFile(out)
			require.NoError(t, rerr)
			assert.Empty(t, got, "nothing is written on error")
		})
	}
}

func TestPolicy_WithoutGitHubOutputPrintsTheLines(t *testing.T) {
	h := &policyHarness{env: map[string]string{"EVENT_NAME": "workflow_dispatch"}}
	require.NoError(t, h.run(t))
	assert.Equal(t, "cadence=regular\nraw_labels=\nbypass_fastfail=false\nskipped_stages=[]\n"+
		"Resolved CI policy: cadence=regular labels=[] bypass_fastfail=false skipped_stages=[]\n", h.out.String())
}

// An empty GITHUB_OUTPUT is a broken step, not a terminal: ci_policy.py
// fails opening it, and printing the outputs instead would hide that.
func TestPolicy_AnEmptyGitHubOutputIsAnError(t *testing.T) {
	empty := ""
	for name, mutate := range map[string]func(*PolicyOptions){
		"environment": func(*PolicyOptions) {},
		"flag":        func(o *PolicyOptions) { o.GitHubOutput = &empty },
	} {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"EVENT_NAME": "workflow_dispatch"}
			if name == "environment" {
				env["GITHUB_OUTPUT"] = ""
			}
			h := &policyHarness{env: env}
			err := h.run(t, mutate)
			var exit *ExitError
			require.ErrorAs(t, err, &exit)
			assert.Equal(t, 1, exit.Code)
			assert.Equal(t, "::error::GITHUB_OUTPUT is set but empty; unset it to print the outputs on stdout\n", h.err.String())
			assert.Empty(t, h.out.String())
		})
	}
}

func TestPolicy_FlagsWinOverTheEnvironment(t *testing.T) {
	out := filepath.Join(t.TempDir(), "flag_output")
	h := &policyHarness{
		env: map[string]string{"EVENT_NAME": "push", "PR_LABELS_JSON": "junk", "CHANGED_FILES_PATH": "missing",
			"GITHUB_OUTPUT": filepath.Join(t.TempDir(), "env_output")},
		files: map[string]string{"changed": codeDiff},
	}
	str := func(s string) *string { return &s }
	require.NoError(t, h.run(t, func(o *PolicyOptions) {
		o.Event = str("pull_request")
		o.LabelsJSON = str(`["run-ci-megatron"]`)
		o.ChangedFiles = str("changed")
		o.GitHubOutput = str(out)
	}))
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, "cadence=regular\nraw_labels=run-ci-megatron\nbypass_fastfail=false\nskipped_stages="+
		`["stage-b-2-gpu-h200","stage-c-2-gpu-h200","stage-c-4-gpu-h200","stage-c-4-gpu-mi350","stage-c-8-gpu-h200"]`+"\n", string(got))
	assert.NoFileExists(t, h.env["GITHUB_OUTPUT"])
}

func TestPolicy_AnEmptyEventFlagIsGivenNotMissing(t *testing.T) {
	h := &policyHarness{env: map[string]string{}}
	empty := ""
	err := h.run(t, func(o *PolicyOptions) { o.Event = &empty })
	require.Error(t, err)
	assert.Equal(t, "::error::Unsupported PR Test trigger: \nhint: --event is ''; expected pull_request, schedule or workflow_dispatch\n", h.err.String())
}

func TestPolicy_ExplainAndJSONGolden(t *testing.T) {
	tests := []struct {
		name   string
		env    map[string]string
		diff   string
		stderr string
	}{
		{"pr-megatron-docs", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-megatron", "run-ci-typo"]`}, docsDiff,
			"warning: PR label 'run-ci-typo' names no known domain label and selects no test (the known ones, each added as run-ci-<label>: " +
				"amd, ckpt, eval, fsdp, ft-long, ft-short, fully-async, long, lora, megatron, miles-plugin, model-scripts, mooncake, precision, qwen35, replay, sglang, short, weight-update)\n"},
		{"pr-test-and-code", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["run-ci-fsdp"]`},
			"M\x00tests/fast-gpu/test_fsdp_small.py\x00M\x00miles/x.py\x00", ""},
		{"pr-nightly-image", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `["nightly", "run-ci-image", "run-ci-long"]`}, docsDiff, ""},
		{"pr-no-diff", map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": `[]`}, "", ""},
		{"schedule-nightly", map[string]string{"EVENT_NAME": "schedule", "SCHEDULE": "0 15 * * 0-5"}, "", ""},
	}
	for _, tt := range tests {
		for _, mode := range []string{"explain", "json"} {
			t.Run(tt.name+"/"+mode, func(t *testing.T) {
				h := &policyHarness{env: tt.env, files: map[string]string{}}
				if tt.diff != "" {
					h.env["CHANGED_FILES_PATH"] = "changed"
					h.files["changed"] = tt.diff
				}
				require.NoError(t, h.run(t, func(o *PolicyOptions) {
					o.Explain = mode == "explain"
					o.JSON = mode == "json"
				}))
				assert.Equal(t, tt.stderr, h.err.String())
				if mode == "json" {
					var doc map[string]any
					require.NoError(t, json.Unmarshal(h.out.Bytes(), &doc), "stdout is one JSON document")
					assertGolden(t, "policy", tt.name+".json", h.out.String())
					return
				}
				assertGolden(t, "policy", tt.name+".explain.txt", h.out.String())
			})
		}
	}
}

func TestPolicy_JSONHasTheResolutionKeys(t *testing.T) {
	h := &policyHarness{env: map[string]string{"EVENT_NAME": "workflow_dispatch"}}
	require.NoError(t, h.run(t, func(o *PolicyOptions) { o.JSON = true }))
	var doc map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(h.out.Bytes(), &doc))
	var keys []string
	for k := range doc {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, []string{"cadence", "raw_labels", "include_labels", "admit_nightly_tests", "bypass_fastfail",
		"write_baseline", "skipped_stages", "pruning", "stages", "labels"}, keys)
	assert.JSONEq(t, `[]`, string(doc["raw_labels"]))
	assert.JSONEq(t, `[]`, string(doc["skipped_stages"]))
}

func TestNewCmdPolicy_ParsesFlags(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		check func(*testing.T, *PolicyOptions)
	}{
		{"no flags leaves every input to the environment", nil, func(t *testing.T, o *PolicyOptions) {
			assert.Nil(t, o.Event)
			assert.Nil(t, o.Schedule)
			assert.Nil(t, o.LabelsJSON)
			assert.Nil(t, o.CadenceOverride)
			assert.Nil(t, o.ChangedFiles)
			assert.Nil(t, o.GitHubOutput)
			assert.False(t, o.JSON)
			assert.False(t, o.Explain)
		}},
		{"every input flag", []string{"--event", "schedule", "--schedule", "0 15 * * 6", "--labels-json", "[]",
			"--cadence-override", "release", "--changed-files", "d", "--github-output", "o", "--explain"}, func(t *testing.T, o *PolicyOptions) {
			assert.Equal(t, "schedule", *o.Event)
			assert.Equal(t, "0 15 * * 6", *o.Schedule)
			assert.Equal(t, "[]", *o.LabelsJSON)
			assert.Equal(t, "release", *o.CadenceOverride)
			assert.Equal(t, "d", *o.ChangedFiles)
			assert.Equal(t, "o", *o.GitHubOutput)
			assert.True(t, o.Explain)
		}},
		{"an empty flag value is given", []string{"--event="}, func(t *testing.T, o *PolicyOptions) {
			require.NotNil(t, o.Event)
			assert.Equal(t, "", *o.Event)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, _, _ := suitesFactory(".", nil)
			var got *PolicyOptions
			cmd := NewCmdPolicy(f, func(o *PolicyOptions) error { got = o; return nil })
			cmd.SetArgs(tt.args)
			require.NoError(t, cmd.Execute())
			require.NotNil(t, got)
			tt.check(t, got)
		})
	}
}

func TestNewCmdPolicy_UsageErrors(t *testing.T) {
	for _, args := range [][]string{{"--json", "--explain"}, {"extra"}, {"--no-such-flag"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			f, _, errOut := suitesFactory(".", map[string]string{"EVENT_NAME": "workflow_dispatch"})
			code := Main(append([]string{"policy"}, args...), f)
			assert.Equal(t, 2, code)
			assert.True(t, strings.HasPrefix(errOut.String(), "error: "), errOut.String())
			assert.True(t, strings.HasSuffix(errOut.String(), "\nRun 'miles-ci policy --help' for usage.\n"), errOut.String())
		})
	}
}

func TestMain_PolicyMissingEventExitsOne(t *testing.T) {
	f, out, errOut := suitesFactory(".", map[string]string{})
	assert.Equal(t, 1, Main([]string{"policy"}, f))
	assert.Equal(t, "::error::EVENT_NAME is not set\nhint: set EVENT_NAME (or --event) to pull_request, schedule or workflow_dispatch\n", errOut.String())
	assert.Empty(t, out.String())
}

// The diff is read only when it is a regular file of at most
// maxDiffSize bytes. A FIFO (refused at once, never waited on),
// a link to /dev/zero or a diff too large makes it unusable: nothing is
// skipped, and --explain says why.
func TestMain_PolicyDiffThatIsNotASmallRegularFileFailsOpen(t *testing.T) {
	root, err := filepath.Abs("../../testdata/sample")
	require.NoError(t, err)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	zero := filepath.Join(dir, "zero")
	require.NoError(t, os.Symlink("/dev/zero", zero))
	big := filepath.Join(dir, "big")
	require.NoError(t, os.WriteFile(big, []byte(strings.Repeat(docsDiff, maxDiffSize/len(docsDiff)+1)), 0o644))
	for path, why := range map[string]string{
		fifo: fifo + " is a FIFO, not a regular file",
		zero: zero + " is a character device, not a regular file",
		big:  big + " is larger than 8 MiB",
	} {
		f, out, errOut := suitesFactory(root, map[string]string{
			"EVENT_NAME": "pull_request", "PR_LABELS_JSON": "[]", "CHANGED_FILES_PATH": path,
			"GITHUB_OUTPUT": filepath.Join(dir, "out"),
		})
		done := make(chan int, 1)
		go func() { done <- Main([]string{"--root", root, "policy", "--explain"}, f) }()
		select {
		case code := <-done:
			require.Equal(t, 0, code, errOut.String())
		case <-time.After(20 * time.Second):
			t.Fatalf("policy blocked on %s", path)
		}
		assert.Contains(t, out.String(), msgNoDiff)
		assert.Contains(t, out.String(), "skipped_stages=[]")
		assert.Contains(t, out.String(), "(pruning disabled: "+why+")")
	}
}

func TestPolicy_ExplainSaysWhyTheDiffIsUnreadableAndHowToMakeOne(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "changed")
	f, out, errOut := suitesFactory(runRepo, map[string]string{
		"EVENT_NAME": "pull_request", "PR_LABELS_JSON": "[]", "CHANGED_FILES_PATH": missing})
	require.Equal(t, 0, Main([]string{"--root", runRepo, "policy", "--explain"}, f), errOut.String())
	assert.Contains(t, out.String(), "(pruning disabled: cannot read "+missing+": no such file or directory)")
	assert.True(t, strings.HasSuffix(out.String(),
		"\nTo prune, set CHANGED_FILES_PATH to a file written by: git diff --name-status -z -M origin/main... > FILE\n"), out.String())
}

// A diff git wrote without -z is named as such, and the labels' value is
// cut in the hint.
func TestPolicy_HintsNameTheInputItsValueAndTheChoices(t *testing.T) {
	h := &policyHarness{env: map[string]string{"EVENT_NAME": "pull_request", "PR_LABELS_JSON": "[]", "CHANGED_FILES_PATH": "changed"},
		files: map[string]string{"changed": "M\tmiles/x.py\nA\tdocs/y.md\n"}}
	require.NoError(t, h.run(t))
	assert.Equal(t, "hint: CHANGED_FILES_PATH (changed): the file has no NUL byte, so it was not made with git diff -z; "+
		"to prune, write it with: git diff --name-status -z -M origin/main... > FILE\n", h.err.String())

	h = &policyHarness{env: map[string]string{"EVENT_NAME": "pull_request"}}
	long := "[" + strings.Repeat("run-ci-x, ", 20) + "]"
	require.Error(t, h.run(t, func(o *PolicyOptions) { o.LabelsJSON = &long }))
	assert.Equal(t, "::error::PR labels were not a JSON string array\nhint: --labels-json is '"+long[:60]+"…'; "+
		"expected a JSON array of strings, such as '[\"run-ci-megatron\"]' or '[]' (in a workflow, toJSON(github.event.pull_request.labels.*.name))\n", h.err.String())
}
