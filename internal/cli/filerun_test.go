package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/testutil"
)

// fileRunHarness runs `miles-ci --root <trusted> file-run` in process with
// env as the whole environment.
type fileRunHarness struct {
	trusted string // --root: the trusted checkout
	head    string // the pull request's head, CI_SOURCE_ROOT by default
	env     map[string]string
}

func newFileRunHarness(t *testing.T) *fileRunHarness {
	t.Helper()
	base := t.TempDir()
	h := &fileRunHarness{trusted: filepath.Join(base, "trusted"), head: filepath.Join(base, "head")}
	require.NoError(t, os.MkdirAll(h.trusted, 0o755))
	testutil.WriteTree(t, h.head, fixtureFiles)
	h.env = map[string]string{"CI_SOURCE_ROOT": h.head, "GITHUB_OUTPUT": filepath.Join(base, "github-output")}
	return h
}

func (h *fileRunHarness) run(args ...string) (status int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	f := &Factory{Out: &out, ErrOut: &errOut, Root: ".",
		Getenv:    func(k string) string { return h.env[k] },
		LookupEnv: func(k string) (string, bool) { v, ok := h.env[k]; return v, ok },
	}
	status = Main(append([]string{"--root", h.trusted, "file-run"}, args...), f)
	return status, out.String(), errOut.String()
}

func (h *fileRunHarness) output(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(h.env["GITHUB_OUTPUT"])
	if os.IsNotExist(err) {
		return "<none>"
	}
	require.NoError(t, err)
	return string(data)
}

func TestFileRun_WritesTheFiveOutputsAndPrintsTheJSONLine(t *testing.T) {
	cases := []struct {
		file, tag, output, stdout string
	}{
		{"tests/e2e/test_gpu.py", "",
			"hw=cuda\nsuite=stage-c-8-gpu-h100\nruns_on=[\"h100\", \"8gpu\"]\ncontainer_image=radixark/miles:dev\ntimeout_seconds=2500\n",
			`{"container_image": "radixark/miles:dev", "hw": "cuda", "runs_on": "[\"h100\", \"8gpu\"]", "suite": "stage-c-8-gpu-h100", "timeout_seconds": "2500"}` + "\n"},
		{"tests/fast/test_cpu_b.py", "pr-42",
			"hw=cpu\nsuite=stage-b-cpu\nruns_on=\ncontainer_image=radixark/miles:pr-42\ntimeout_seconds=1800\n",
			`{"container_image": "radixark/miles:pr-42", "hw": "cpu", "runs_on": "", "suite": "stage-b-cpu", "timeout_seconds": "1800"}` + "\n"},
		{"tests/fast/.hidden/test_hidden.py", "",
			"hw=cpu\nsuite=stage-a-cpu\nruns_on=\ncontainer_image=radixark/miles:dev\ntimeout_seconds=1800\n",
			`{"container_image": "radixark/miles:dev", "hw": "cpu", "runs_on": "", "suite": "stage-a-cpu", "timeout_seconds": "1800"}` + "\n"},
		{"tests/e2e/test_huge.py", "",
			"hw=cuda\nsuite=stage-c-4-gpu-h200\nruns_on=[\"h200\", \"4gpu\"]\ncontainer_image=radixark/miles:dev\ntimeout_seconds=125000000000000000000\n",
			`{"container_image": "radixark/miles:dev", "hw": "cuda", "runs_on": "[\"h200\", \"4gpu\"]", "suite": "stage-c-4-gpu-h200", "timeout_seconds": "125000000000000000000"}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			h := newFileRunHarness(t)
			h.env["TEST_FILE"], h.env["CI_IMAGE_TAG"] = tc.file, tc.tag
			status, stdout, stderr := h.run()
			require.Equal(t, 0, status, stderr)
			assert.Empty(t, stderr)
			assert.Equal(t, tc.output, h.output(t))
			assert.Equal(t, tc.stdout, stdout)

			status, _, _ = h.run()
			require.Equal(t, 0, status)
			assert.Equal(t, tc.output+tc.output, h.output(t), "the outputs are appended")
		})
	}
}

func TestFileRun_ErrorsAreOneAnnotationAndWriteNothing(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"unregistered", map[string]string{"TEST_FILE": "tests/e2e/test_missing.py"},
			"::error::tests/e2e/test_missing.py has no CI registration; /rerun-test runs only registered test files\n" +
				"hint: TEST_FILE names 'tests/e2e/test_missing.py', which does not exist in the source root\n"},
		{"ROCm only", map[string]string{"TEST_FILE": "tests/e2e/test_rocm_only.py"},
			"::error::tests/e2e/test_rocm_only.py is registered only for ROCm (nightly-stage-c-2-gpu-mi350, stage-c-4-gpu-mi350); /rerun-test supports CPU and CUDA\n"},
		{"disabled", map[string]string{"TEST_FILE": "tests/e2e/test_disabled.py"},
			"::error::tests/e2e/test_disabled.py is disabled: flaky, see #1\n"},
		{"unmapped CUDA suite", map[string]string{"TEST_FILE": "tests/e2e/test_unmapped.py"},
			"::error::CUDA suite stage-c-8-gpu-b200 has no runner mapping in CUDA_SUITE_RUNS_ON\n"},
		{"the image tag is checked before the file", map[string]string{"TEST_FILE": "tests/e2e/test_missing.py", "CI_IMAGE_TAG": "a b"},
			"::error::invalid CI image tag: 'a b'\n"},
		{"no TEST_FILE", map[string]string{"TEST_FILE": "<unset>"}, "::error::TEST_FILE is not set\n"},
		{"an empty GITHUB_OUTPUT", map[string]string{"TEST_FILE": "tests/e2e/test_gpu.py", "GITHUB_OUTPUT": ""},
			"::error::GITHUB_OUTPUT is set but empty; unset it to print the outputs on stdout\n"},
		{"missing source root", map[string]string{"TEST_FILE": "tests/e2e/test_gpu.py", "CI_SOURCE_ROOT": "no-such-root-dir"},
			"::error::cannot resolve CI source root no-such-root-dir: [Errno 2] No such file or directory: 'no-such-root-dir'\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newFileRunHarness(t)
			for k, v := range tc.env {
				h.env[k] = v
				if v == "<unset>" {
					delete(h.env, k)
				}
			}
			status, stdout, stderr := h.run()
			assert.Equal(t, 1, status)
			assert.Equal(t, tc.want, stderr)
			assert.Empty(t, stdout)
			if h.env["GITHUB_OUTPUT"] != "" {
				assert.Equal(t, "<none>", h.output(t))
			}
		})
	}
}

// An unregistered path keeps the script's refusal, which matches the path
// exactly, and gets a hint: for a registered file named another way, the
// path to ask for; for a file that does not exist, that it does not, with
// the registered file of the closest name. A file that exists but
// registers nothing gets none. The name comes from a pull request's
// comment: the hint quotes it, control characters escaped.
func TestFileRun_AnUnregisteredPathHintsWhatToAskFor(t *testing.T) {
	const refused = " has no CI registration; /rerun-test runs only registered test files"
	cases := []struct {
		name, file string
		flag       bool
		hint       string
	}{
		{"with ./", "./tests/e2e/test_gpu.py", false, "hint: give TEST_FILE the path as registered, relative to the source root: tests/e2e/test_gpu.py\n"},
		{"by --file, a doubled slash", "tests//e2e/test_gpu.py", true, "hint: give --file the path as registered, relative to the source root: tests/e2e/test_gpu.py\n"},
		{"absolute", "<head>/tests/e2e/test_gpu.py", false, "hint: give TEST_FILE the path as registered, relative to the source root: tests/e2e/test_gpu.py\n"},
		{"no registered file either way", "./tests/e2e/test_missing.py", false, "hint: TEST_FILE names './tests/e2e/test_missing.py', which does not exist in the source root\n"},
		{"a typo", "tests/e2e/test_gpv.py", false,
			"hint: TEST_FILE names 'tests/e2e/test_gpv.py', which does not exist in the source root; did you mean 'tests/e2e/test_gpu.py'?\n"},
		{"a typo by --file", "tests/e2e/tset_gpu.py", true,
			"hint: --file names 'tests/e2e/tset_gpu.py', which does not exist in the source root; did you mean 'tests/e2e/test_gpu.py'?\n"},
		{"a file that exists", "tests/e2e/helpers.py", false, ""},
		{"outside the source root", "../elsewhere/test_gpu.py", false, ""},
		{"a name with a workflow command", "tests/e2e/test_\x1b[31m\n::error::forged.py", false,
			"hint: TEST_FILE names 'tests/e2e/test_\\x1b[31m\\n::error::forged.py', which does not exist in the source root\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newFileRunHarness(t)
			testutil.WriteTree(t, h.head, map[string]string{"tests/e2e/helpers.py": "x = 1\n"})
			file := strings.Replace(tc.file, "<head>", h.head, 1)
			var args []string
			if tc.flag {
				args = []string{"--file", file}
			} else {
				h.env["TEST_FILE"] = file
			}
			status, stdout, stderr := h.run(args...)
			assert.Equal(t, 1, status)
			assert.Equal(t, ghactions.Error(file+refused)+"\n"+tc.hint, stderr)
			assert.Equal(t, 1, strings.Count("\n"+stderr, "\n::"), "one annotation, the script's")
			assert.Empty(t, stdout)
			assert.Equal(t, "<none>", h.output(t))
		})
	}
}

func TestFileRun_ABrokenTestFileIsAnAnnotationPerFile(t *testing.T) {
	h := newFileRunHarness(t)
	testutil.WriteTree(t, h.head, map[string]string{
		"tests/e2e/test_none.py":  "x = 1\n",
		"tests/e2e/test_label.py": "register_cuda_ci(est_time=1, suite='stage-c-8-gpu-h100', labels=[])\n",
	})
	h.env["TEST_FILE"] = "tests/e2e/test_gpu.py"
	status, _, stderr := h.run()
	assert.Equal(t, 1, status)
	assert.Equal(t, "::error::tests/e2e/test_label.py: labels in register_cuda_ci() must contain at least one domain label\n"+
		"::error::No CI registry found in tests/e2e/test_none.py\n", stderr, "file_run.py crashes on the first")
	assert.Equal(t, "<none>", h.output(t))
}

// The registrations come from the pull request's head, the roster from
// --root: a head that brings its own configuration cannot pick a runner.
func TestFileRun_TheRosterComesFromRootNeverFromTheSourceRoot(t *testing.T) {
	h := newFileRunHarness(t)
	h.env["TEST_FILE"] = "tests/e2e/test_gpu.py"
	testutil.WriteTree(t, h.head, map[string]string{".miles-ci.yaml": "suites: {cuda: [{name: stage-c-8-gpu-h100, runs_on: [attacker]}]}\n"})
	status, stdout, stderr := h.run()
	require.Equal(t, 0, status, stderr)
	assert.Contains(t, stdout, `"runs_on": "[\"h100\", \"8gpu\"]"`)

	trustedConfig := string(defaultConfigWith(t, "[h100, 8gpu]", "[trusted-runner, 8gpu]", "image_repository: radixark/miles", "image_repository: ghcr.io/acme/miles"))
	testutil.WriteTree(t, h.trusted, map[string]string{".miles-ci.yaml": trustedConfig})
	require.NoError(t, os.Remove(h.env["GITHUB_OUTPUT"]))
	status, stdout, stderr = h.run()
	require.Equal(t, 0, status, stderr)
	assert.Equal(t, `{"container_image": "ghcr.io/acme/miles:dev", "hw": "cuda", "runs_on": "[\"trusted-runner\", \"8gpu\"]", "suite": "stage-c-8-gpu-h100", "timeout_seconds": "2500"}`+"\n", stdout)
}

func TestFileRun_AConfigurationWithoutAnImageRepositoryIsRefused(t *testing.T) {
	h := newFileRunHarness(t)
	h.env["TEST_FILE"] = "tests/e2e/test_gpu.py"
	cfg := defaultConfigWith(t, "  image_repository: radixark/miles\n", "")
	testutil.WriteTree(t, h.trusted, map[string]string{".miles-ci.yaml": string(cfg)})
	status, _, stderr := h.run()
	assert.Equal(t, 1, status)
	assert.Equal(t, "::error::the configuration ("+filepath.Join(h.trusted, ".miles-ci.yaml")+") has no file_run.image_repository; file-run needs it to name the container image\n", stderr)
}

func TestFileRun_WithoutGitHubOutputPrintsTheLinesFirst(t *testing.T) {
	h := newFileRunHarness(t)
	h.env["TEST_FILE"] = "tests/fast/test_implicit.py"
	delete(h.env, "GITHUB_OUTPUT")
	status, stdout, stderr := h.run()
	require.Equal(t, 0, status, stderr)
	assert.Equal(t, "hw=cpu\nsuite=stage-a-cpu\nruns_on=\ncontainer_image=radixark/miles:dev\ntimeout_seconds=1800\n"+
		`{"container_image": "radixark/miles:dev", "hw": "cpu", "runs_on": "", "suite": "stage-a-cpu", "timeout_seconds": "1800"}`+"\n", stdout)
}

func TestFileRun_FlagsWinOverTheEnvironmentAndEmptyMeansTheDefault(t *testing.T) {
	h := newFileRunHarness(t)
	h.env["TEST_FILE"] = "tests/e2e/test_missing.py"
	h.env["CI_IMAGE_TAG"] = "a b"
	h.env["CI_SOURCE_ROOT"] = "/nonexistent"
	out := filepath.Join(t.TempDir(), "out")
	status, stdout, stderr := h.run("--file", "tests/fast-gpu/test_h200.py", "--image-tag", "", "--source-root", h.head, "--github-output", out)
	require.Equal(t, 0, status, stderr)
	assert.Equal(t, `{"container_image": "radixark/miles:dev", "hw": "cuda", "runs_on": "[\"h200\", \"2gpu\"]", "suite": "stage-b-2-gpu-h200", "timeout_seconds": "1800"}`+"\n", stdout)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Contains(t, string(data), "suite=stage-b-2-gpu-h200\n")

	// An empty source root is the working directory, as for the script.
	t.Chdir(h.head)
	delete(h.env, "CI_SOURCE_ROOT")
	status, stdout, stderr = h.run("--file", "tests/fast/test_cpu_b.py", "--image-tag", "x", "--source-root", "")
	require.Equal(t, 0, status, stderr)
	assert.Contains(t, stdout, `"suite": "stage-b-cpu"`)
}

func TestNewCmdFileRun_ParsesFlags(t *testing.T) {
	var got *FileRunOptions
	f := &Factory{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	cmd := NewCmdFileRun(f, func(o *FileRunOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--file", "tests/x.py", "--image-tag", ""})
	require.NoError(t, cmd.Execute())
	require.NotNil(t, got.File)
	assert.Equal(t, "tests/x.py", *got.File)
	require.NotNil(t, got.ImageTag, "an empty flag is given, not missing")
	assert.Nil(t, got.SourceRoot)
	assert.Nil(t, got.GitHubOutput)

	cmd = NewCmdFileRun(f, func(*FileRunOptions) error { return nil })
	cmd.SetArgs([]string{"extra"})
	assert.Error(t, cmd.Execute(), "no positional arguments")
}

// defaultConfigWith returns the built-in configuration with each old text
// replaced by the new one (pairs), failing when one is not there.
func defaultConfigWith(t *testing.T, pairs ...string) []byte {
	t.Helper()
	text := string(config.DefaultYAML())
	for i := 0; i+1 < len(pairs); i += 2 {
		require.Contains(t, text, pairs[i])
		text = strings.Replace(text, pairs[i], pairs[i+1], 1)
	}
	return []byte(text)
}
