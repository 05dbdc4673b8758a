package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// The differential test of file-run against Miles's tests/ci/file_run.py.
// It needs python3 and a Miles checkout, named by MILES_CHECKOUT; without
// them it is skipped. For every test file of the checkout, and for every
// case of the fixture trees below, both are run as run-ci-file.yml runs
// them — the trusted code and configuration from the checkout, the
// registrations from CI_SOURCE_ROOT — and must agree on the exit status,
// stdout, the GITHUB_OUTPUT bytes and the ::error:: line.
//
//	MILES_CHECKOUT=/path/to/miles go test -run FileRunDifferential ./internal/cli

// diffCase is one file-run invocation: the variables set (others unset).
type diffCase struct {
	name string
	env  map[string]string
	// crashes: file_run.py raises here; only the exit status, stdout and
	// the absence of outputs must agree, and miles-ci's ::error:: line must
	// carry the message of the exception.
	crashes bool
}

type pyResult struct {
	Status  int    `json:"status"`
	Stdout  string `json:"stdout"`
	Stderr  string `json:"stderr"`
	Crashed bool   `json:"crashed"`
}

// referenceScript runs the harness in the Miles checkout.
func referenceScript(t *testing.T, miles string, stdin []byte, args ...string) []byte {
	t.Helper()
	harness, err := filepath.Abs("testdata/filerun_reference.py")
	require.NoError(t, err)
	cmd := exec.Command("python3", append([]string{"-S", harness}, args...)...)
	cmd.Dir = miles
	cmd.Env = append(os.Environ(), "PYTHONPATH="+miles, "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "reference harness: %s", stderr.String())
	return out
}

// fixtureFiles are the test files of the fixture pull request head: one
// for each way a file resolves or is refused.
var fixtureFiles = map[string]string{
	"tests/fast/test_implicit.py":         "def test_x():\n    pass\n",
	"tests/fast/.hidden/test_hidden.py":   "def test_x():\n    pass\n",
	"tests/fast/test_cpu_b.py":            "register_cpu_ci(est_time=30, suite='stage-b-cpu')\n",
	"tests/fast/test_cpu_a.py":            "register_cpu_ci(est_time=3000, suite='stage-a-cpu', labels=['megatron'])\n",
	"tests/e2e/test_gpu.py":               "register_cuda_ci(est_time=2000, suite='stage-c-8-gpu-h100', labels=['megatron'])\n",
	"tests/e2e/test_huge.py":              "register_cuda_ci(est_time=1e20, suite='stage-c-4-gpu-h200', labels=['sglang'])\n",
	"tests/e2e/test_bool.py":              "register_cuda_ci(True, 'stage-c-2-gpu-h200', labels=['fsdp'])\n",
	"tests/e2e/test_nightly.py":           "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h200', labels=['long'], nightly=True)\n",
	"tests/e2e/test_rocm_only.py":         "register_rocm_ci(est_time=60, suite='stage-c-4-gpu-mi350', labels=['amd'])\nregister_rocm_ci(est_time=60, suite='nightly-stage-c-2-gpu-mi350', labels=['amd'])\n",
	"tests/e2e/test_rocm_and_cuda.py":     "register_rocm_ci(est_time=60, suite='stage-c-4-gpu-mi350', labels=['amd'])\nregister_cuda_ci(est_time=60, suite='stage-b-2-gpu-h200', labels=['lora'])\n",
	"tests/e2e/test_two.py":               "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h100', labels=['megatron'])\nregister_cuda_ci(est_time=60, suite='stage-c-4-gpu-h200', labels=['megatron'])\n",
	"tests/e2e/test_cpu_and_cuda.py":      "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h100', labels=['megatron'])\nregister_cpu_ci(est_time=60, suite='stage-b-cpu')\n",
	"tests/e2e/test_disabled.py":          "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h100', labels=['megatron'], disabled='flaky, see #1')\n",
	"tests/e2e/test_disabled_empty.py":    "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-h100', labels=['megatron'], disabled='')\n",
	"tests/e2e/test_unmapped.py":          "register_cuda_ci(est_time=60, suite='stage-c-8-gpu-b200', labels=['megatron'])\n",
	"tests/e2e/test_cuda_in_cpu_suite.py": "register_cuda_ci(est_time=60, suite='stage-a-cpu', labels=['megatron'])\n",
	"tests/e2e/test_cpu_in_gpu_suite.py":  "register_cpu_ci(est_time=60, suite='stage-c-8-gpu-h100')\n",
	"tests/e2e/test_cpu_unknown.py":       "register_cpu_ci(est_time=60, suite='stage-a-cpu; echo unexpected')\n",
	"tests/fast-gpu/test_h200.py":         "register_cuda_ci(est_time=120, suite='stage-b-2-gpu-h200', labels=['fsdp'])\n",
	"tests/ci/test/test_ci.py":            "register_cpu_ci(est_time=5, suite='stage-a-cpu')\n",
	"tests/e2e/deep/er/test_deep.py":      "register_cuda_ci(est_time=1441, suite='stage-c-2-gpu-h200', labels=['eval'])\n",
	"tests/e2e/helper.py":                 "",
}

func fixtureCases(t *testing.T) []diffCase {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	head := filepath.Join(base, "head")
	testutil.WriteTree(t, head, fixtureFiles)
	// A link to a file not named like a test is ignored by the walk.
	require.NoError(t, os.Symlink("test_gpu.py", filepath.Join(head, "tests/e2e/conftest_link.py")))

	env := func(root, file string, kv ...string) map[string]string {
		m := map[string]string{"CI_SOURCE_ROOT": root}
		if file != "" {
			m["TEST_FILE"] = file
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	var cases []diffCase
	for file := range fixtureFiles {
		if strings.HasSuffix(file, "/helper.py") {
			continue
		}
		cases = append(cases, diffCase{name: file, env: env(head, file)})
	}
	for _, tag := range []string{"", "pr-42", "a b", "radixark/miles:dev", "-bad", strings.Repeat("a", 129), strings.Repeat("a", 128), ".x", "dev\n"} {
		cases = append(cases, diffCase{name: fmt.Sprintf("image tag %q", tag), env: env(head, "tests/e2e/test_gpu.py", "CI_IMAGE_TAG", tag)})
	}
	cases = append(cases,
		diffCase{name: "unregistered", env: env(head, "tests/e2e/test_missing.py")},
		diffCase{name: "a path spelled with ./", env: env(head, "./tests/e2e/test_gpu.py")},
		diffCase{name: "an empty TEST_FILE", env: env(head, "")},
		diffCase{name: "a non-test file", env: env(head, "tests/e2e/helper.py")},
		diffCase{name: "bad tag before unregistered", env: env(head, "tests/e2e/test_missing.py", "CI_IMAGE_TAG", "a b")},
	)
	cases[len(cases)-3].env["TEST_FILE"] = ""

	// Trees the script refuses while discovering.
	for name, files := range map[string]map[string]string{
		"symlinked tests root":     {"payload/fast/test_a.py": "", "tests": "->payload"},
		"symlinked discovery root": {"payload/test_a.py": "", "tests/fast/test_b.py": "", "tests/e2e": "->../payload"},
		"symlinked directory":      {"tests/fast/test_a.py": "", "empty/x": "", "tests/e2e/sub/link": "->../../../empty"},
		"symlinked test file":      {"payload.py": "def test_payload(): pass\n", "tests/fast/test_payload.py": "->../../payload.py"},
		"dangling test link":       {"tests/ci/test_gone.py": "->gone.py"},
	} {
		root := filepath.Join(base, strings.ReplaceAll(name, " ", "-"))
		testutil.WriteTree(t, root, files)
		cases = append(cases, diffCase{name: name, env: env(root, "tests/fast/test_a.py")})
	}

	// Source roots that cannot be used.
	require.NoError(t, os.WriteFile(filepath.Join(base, "afile"), nil, 0o644))
	cases = append(cases,
		diffCase{name: "missing source root", env: env(filepath.Join(base, "missing"), "tests/fast/test_a.py")},
		diffCase{name: "missing relative source root", env: env("no-such-miles-ci-source-root/x", "tests/fast/test_a.py")},
		diffCase{name: "source root is a file", env: env(filepath.Join(base, "afile"), "tests/fast/test_a.py")},
		diffCase{name: "source root below a file", env: env(filepath.Join(base, "afile", "x"), "tests/fast/test_a.py")},
		diffCase{name: "source root through a link", env: env(filepath.Join(base, "head", "tests", "..", "tests", "e2e", "..", ".."), "tests/e2e/test_gpu.py")},
	)

	// Where the script crashes: a broken test file, no TEST_FILE.
	broken := filepath.Join(base, "broken")
	testutil.WriteTree(t, broken, map[string]string{"tests/e2e/test_none.py": "x = 1\n", "tests/e2e/test_ok.py": fixtureFiles["tests/e2e/test_gpu.py"]})
	cases = append(cases,
		diffCase{name: "unregistered file in the tree", env: env(broken, "tests/e2e/test_ok.py"), crashes: true},
		diffCase{name: "no TEST_FILE", env: env(head, ""), crashes: true},
	)
	return cases
}

func TestFileRunDifferential_AgainstFileRunPy(t *testing.T) {
	miles := testutil.MilesCheckout(t)
	if _, err := os.Stat(filepath.Join(miles, "tests/ci/file_run.py")); err != nil {
		t.Skipf("%s has no tests/ci/file_run.py", miles)
	}
	testutil.NeedPython(t)
	miles, err := filepath.Abs(miles)
	require.NoError(t, err)

	cases := fixtureCases(t)
	var files []string
	require.NoError(t, json.Unmarshal(referenceScript(t, miles, nil, "--list"), &files))
	require.NotEmpty(t, files)
	for _, f := range files {
		cases = append(cases, diffCase{name: f, env: map[string]string{"TEST_FILE": f, "CI_SOURCE_ROOT": miles}})
	}

	outputs := t.TempDir()
	type pyCase struct {
		Env map[string]string `json:"env"`
	}
	py := make([]pyCase, len(cases))
	for i, c := range cases {
		env := map[string]string{"GITHUB_OUTPUT": filepath.Join(outputs, fmt.Sprintf("py-%d", i))}
		for k, v := range c.env {
			env[k] = v
		}
		py[i] = pyCase{Env: env}
	}
	input, err := json.Marshal(py)
	require.NoError(t, err)
	var want []pyResult
	require.NoError(t, json.Unmarshal(referenceScript(t, miles, input), &want))
	require.Len(t, want, len(cases))

	agreed := 0
	for i, c := range cases {
		goOutput := filepath.Join(outputs, fmt.Sprintf("go-%d", i))
		env := map[string]string{"GITHUB_OUTPUT": goOutput}
		for k, v := range c.env {
			env[k] = v
		}
		if c.name == "no TEST_FILE" {
			delete(env, "TEST_FILE")
		}
		var stdout, stderr bytes.Buffer
		f := &Factory{Out: &stdout, ErrOut: &stderr, Root: miles,
			Getenv:    func(k string) string { return env[k] },
			LookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		}
		status := Main([]string{"--root", miles, "file-run"}, f)

		pyOut, pyErr := os.ReadFile(py[i].Env["GITHUB_OUTPUT"])
		goOut, goErr := os.ReadFile(goOutput)
		w := want[i]
		ok := assert.Equal(t, w.Status, status, "%s: exit status", c.name) &&
			assert.Equal(t, w.Stdout, stdout.String(), "%s: stdout", c.name) &&
			assert.Equal(t, os.IsNotExist(pyErr), os.IsNotExist(goErr), "%s: GITHUB_OUTPUT written", c.name) &&
			assert.Equal(t, string(pyOut), string(goOut), "%s: GITHUB_OUTPUT", c.name) &&
			assert.Equal(t, c.crashes, w.Crashed, "%s: the script crashes", c.name)
		if c.crashes {
			// The exception's message is the traceback's last line.
			lines := strings.Split(strings.TrimSpace(w.Stderr), "\n")
			_, msg, _ := strings.Cut(lines[len(lines)-1], ": ")
			ok = ok && assert.True(t, strings.HasPrefix(stderr.String(), "::error::"), "%s: %q", c.name, stderr.String())
			if msg != "" {
				ok = ok && assert.Contains(t, stderr.String(), strings.Trim(msg, "'"), c.name)
			}
		} else {
			// A hint: line after the reference's own lines is miles-ci's
			// documented addition (miles-ci help differences).
			ok = ok && assert.Equal(t, w.Stderr, withoutHints(stderr.String()), "%s: stderr", c.name)
		}
		if ok {
			agreed++
		}
	}
	t.Logf("%d of %d cases agree (%d test files of %s, %d fixture cases)", agreed, len(cases), len(files), miles, len(cases)-len(files))
}

// withoutHints drops the hint: lines miles-ci adds to the reference's
// messages, so what remains must match the reference byte for byte.
func withoutHints(stderr string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(stderr, "\n") {
		if !strings.HasPrefix(line, "hint: ") {
			b.WriteString(line)
		}
	}
	return b.String()
}
