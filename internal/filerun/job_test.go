package filerun

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// reg builds a registration as test_file_run.py's _make does: CUDA in
// stage-c-8-gpu-h100, 60 s, labeled megatron, unless an option says else.
func reg(file string, opts ...func(*registry.Registration)) registry.Registration {
	r := registry.Registration{File: file, Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", EstTime: 60, Labels: []string{"megatron"}}
	for _, o := range opts {
		o(&r)
	}
	return r
}

func backend(b config.Backend, suite string) func(*registry.Registration) {
	return func(r *registry.Registration) { r.Backend, r.Suite = b, suite }
}

func estTime(s float64) func(*registry.Registration) {
	return func(r *registry.Registration) { r.EstTime = s }
}

func disabled(why string) func(*registry.Registration) {
	return func(r *registry.Registration) { r.Disabled = &why }
}

func TestFind_CUDAFileGetsItsSuiteRunnerLabelsAndTimeout(t *testing.T) {
	nightly := func(r *registry.Registration) { r.Nightly = true }
	regs := []registry.Registration{
		reg("tests/e2e/x/test_a.py", backend(config.CUDA, "stage-c-4-gpu-h200"), nightly),
		reg("tests/e2e/x/test_b.py"),
	}
	p, err := Find(config.Default(), regs, "tests/e2e/x/test_a.py")
	require.NoError(t, err)
	p.Image = "radixark/miles:dev"
	assert.Equal(t, "hw=cuda\nsuite=stage-c-4-gpu-h200\nruns_on=[\"h200\", \"4gpu\"]\ncontainer_image=radixark/miles:dev\ntimeout_seconds=1800\n",
		outputLines(p), "the nightly flag does not gate an explicit file")
	assert.Equal(t, `{"container_image": "radixark/miles:dev", "hw": "cuda", "runs_on": "[\"h200\", \"4gpu\"]", "suite": "stage-c-4-gpu-h200", "timeout_seconds": "1800"}`,
		p.JSON())
}

func TestFind_CPUFileHasNoRunnerLabels(t *testing.T) {
	regs := []registry.Registration{reg("tests/fast/test_a.py", backend(config.CPU, "stage-a-cpu"))}
	p, err := Find(config.Default(), regs, "tests/fast/test_a.py")
	require.NoError(t, err)
	p.Image = "radixark/miles:pr-42"
	assert.Equal(t, "hw=cpu\nsuite=stage-a-cpu\nruns_on=\ncontainer_image=radixark/miles:pr-42\ntimeout_seconds=1800\n", outputLines(p))
	assert.Equal(t, `{"container_image": "radixark/miles:pr-42", "hw": "cpu", "runs_on": "", "suite": "stage-a-cpu", "timeout_seconds": "1800"}`, p.JSON())
}

// The runner labels come from the roster; for Miles today they are exactly
// file_run.py's CUDA_SUITE_RUNS_ON, and every CPU suite is allowed.
func TestFind_EveryRosterSuiteResolvesAsTheScriptMapsIt(t *testing.T) {
	script := map[string]string{
		"stage-b-2-gpu-h200": `["h200", "2gpu"]`,
		"stage-c-8-gpu-h100": `["h100", "8gpu"]`,
		"stage-c-8-gpu-h200": `["h200", "8gpu"]`,
		"stage-c-4-gpu-h200": `["h200", "4gpu"]`,
		"stage-c-2-gpu-h200": `["h200", "2gpu"]`,
	}
	cfg := config.Default()
	got := map[string]string{}
	for _, s := range cfg.SuitesFor(config.CUDA) {
		p, err := Find(cfg, []registry.Registration{reg("t.py", backend(config.CUDA, s.Name))}, "t.py")
		require.NoError(t, err)
		got[s.Name] = p.Outputs()[2].Value
	}
	assert.Equal(t, script, got)
	var cpu []string
	for _, s := range cfg.SuitesFor(config.CPU) {
		_, err := Find(cfg, []registry.Registration{reg("t.py", backend(config.CPU, s.Name))}, "t.py")
		require.NoError(t, err)
		cpu = append(cpu, s.Name)
	}
	assert.Equal(t, []string{"stage-a-cpu", "stage-b-cpu"}, cpu)
}

func TestFind_ROCmRegistrationIsIgnoredNextToACUDAOne(t *testing.T) {
	regs := []registry.Registration{
		reg("tests/e2e/x/test_a.py"),
		reg("tests/e2e/x/test_a.py", backend(config.ROCM, "stage-c-8-gpu-mi350")),
	}
	p, err := Find(config.Default(), regs, "tests/e2e/x/test_a.py")
	require.NoError(t, err)
	assert.Equal(t, "stage-c-8-gpu-h100", p.Suite())
}

func TestFind_Refusals(t *testing.T) {
	const a = "tests/e2e/x/test_a.py"
	cases := []struct {
		name string
		regs []registry.Registration
		file string
		want string
	}{
		{"unregistered", []registry.Registration{reg(a)}, "tests/e2e/x/test_missing.py",
			"tests/e2e/x/test_missing.py has no CI registration; /rerun-test runs only registered test files"},
		{"a path spelled otherwise is unregistered", []registry.Registration{reg(a)}, "./" + a,
			"./tests/e2e/x/test_a.py has no CI registration; /rerun-test runs only registered test files"},
		{"ROCm only", []registry.Registration{
			reg(a, backend(config.ROCM, "stage-c-4-gpu-mi350")),
			reg(a, backend(config.ROCM, "nightly-stage-c-2-gpu-mi350")),
		}, a, a + " is registered only for ROCm (nightly-stage-c-2-gpu-mi350, stage-c-4-gpu-mi350); /rerun-test supports CPU and CUDA"},
		{"two registrations", []registry.Registration{
			reg(a),
			reg(a, backend(config.CPU, "stage-b-cpu")),
			reg(a, backend(config.CUDA, "stage-c-4-gpu-h200")),
		}, a, a + " has multiple CPU/CUDA registrations (CPU:stage-b-cpu, CUDA:stage-c-4-gpu-h200, CUDA:stage-c-8-gpu-h100); expected exactly one"},
		{"disabled", []registry.Registration{reg(a, disabled("flaky, see #1"))}, a, a + " is disabled: flaky, see #1"},
		{"disabled with an empty reason", []registry.Registration{reg(a, disabled(""))}, a, a + " is disabled: "},
		{"CUDA suite not in the roster", []registry.Registration{reg(a, backend(config.CUDA, "stage-c-8-gpu-b200"))}, a,
			"CUDA suite stage-c-8-gpu-b200 has no runner mapping in CUDA_SUITE_RUNS_ON"},
		{"CUDA registration naming a CPU suite", []registry.Registration{reg(a, backend(config.CUDA, "stage-a-cpu"))}, a,
			"CUDA suite stage-a-cpu has no runner mapping in CUDA_SUITE_RUNS_ON"},
		{"CPU suite not in the roster", []registry.Registration{reg(a, backend(config.CPU, "stage-a-cpu; echo unexpected"))}, a,
			"CPU suite stage-a-cpu; echo unexpected is not allowed for an explicit file run"},
		{"CPU registration naming a CUDA suite", []registry.Registration{reg(a, backend(config.CPU, "stage-c-8-gpu-h100"))}, a,
			"CPU suite stage-c-8-gpu-h100 is not allowed for an explicit file run"},
		{"infinite est_time", []registry.Registration{reg(a, estTime(math.Inf(1)))}, a,
			a + ": est_time inf is too large for a timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Find(config.Default(), tc.regs, tc.file)
			var fe *Error
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.want, fe.Msg)
		})
	}
}

func TestTimeoutSeconds_IsPythonsExactInteger(t *testing.T) {
	cases := []struct {
		est  float64
		want string
	}{
		{60, "1800"},
		{1440, "1800"},
		{1441, "1801"}, // 1801.25 truncated
		{2000, "2500"},
		{0, "1800"},
		{1e20, "125000000000000000000"},
		{1e300, "1250000000000000065630950319005525310880585726385198943644817644389753072486135244732964218850559830054630554791104847721178154044200538219555990230983383728560484001158219754672287792243485112574211191543713499931351398798709551100093315928475178118224073486025071053547644586840245483581824250675200"},
	}
	for _, tc := range cases {
		got, err := TimeoutSeconds(1800, tc.est)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "est_time %v", tc.est)
	}
	_, err := TimeoutSeconds(1800, 1.5e308)
	assert.EqualError(t, err, "est_time 1.5e+308 is too large for a timeout", "the product overflows, where Python raises OverflowError")
}

func TestWriteRunHeader_NamesTheFileItsSuiteAndTimeLimit(t *testing.T) {
	p, err := Find(config.Default(), []registry.Registration{reg("tests/e2e/x/test_a.py", estTime(2000))}, "tests/e2e/x/test_a.py")
	require.NoError(t, err)
	var b strings.Builder
	require.NoError(t, p.WriteRunHeader(&b, 2500))
	rule := strings.Repeat("=", 60)
	assert.Equal(t, "\n"+rule+"\nFile run: tests/e2e/x/test_a.py\nHardware: CUDA  Suite: stage-c-8-gpu-h100  est_time=2000.0s  Timeout: 2500s\n"+rule+"\n\n", b.String())
}

func TestCheckImageTag_RefusesWhatADockerTagCannotBe(t *testing.T) {
	for _, ok := range []string{"dev", "pr-42", "_x", "v1.2.3", "A" + strings.Repeat("a", 127)} {
		assert.NoError(t, CheckImageTag(ok), "%q", ok)
	}
	cases := map[string]string{
		"":                       `invalid CI image tag: ''`,
		"-bad":                   `invalid CI image tag: '-bad'`,
		".dot":                   `invalid CI image tag: '.dot'`,
		"a b":                    `invalid CI image tag: 'a b'`,
		"radixark/miles:dev":     `invalid CI image tag: 'radixark/miles:dev'`,
		"dev\n":                  `invalid CI image tag: 'dev\n'`,
		"it's":                   `invalid CI image tag: "it's"`,
		"é":                      `invalid CI image tag: 'é'`,
		strings.Repeat("a", 129): "invalid CI image tag: '" + strings.Repeat("a", 129) + "'",
	}
	for tag, want := range cases {
		assert.EqualError(t, CheckImageTag(tag), want, "%q", tag)
	}
}

func outputLines(p *Job) string {
	var b strings.Builder
	for _, o := range p.Outputs() {
		b.WriteString(o.Name + "=" + o.Value + "\n")
	}
	return b.String()
}

// validImageTag is file_run.py's re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}").
func TestValidImageTag_IsTheScriptsPattern(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$`)
	tags := []string{"", "dev", "pr-42", "v1.2.3", "_x", ".x", "-x", "a b", "a/b", "a\n", "é",
		strings.Repeat("a", 128), strings.Repeat("a", 129), "a" + strings.Repeat(".", 127), "a:b"}
	for c := 0; c < 256; c++ {
		tags = append(tags, string([]byte{byte(c)}), "a"+string([]byte{byte(c)}))
	}
	for _, tag := range tags {
		assert.Equal(t, pattern.MatchString(tag), validImageTag(tag), "%q", tag)
	}
}
