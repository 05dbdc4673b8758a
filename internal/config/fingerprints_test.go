package config

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Real lines of broken hosts, as PyTorch, NCCL, the NVIDIA driver, HIP and
// the servers a test starts print them, each with the built-in fingerprint
// that must name it.
var brokenHostLines = []struct{ fingerprint, line string }{
	{"cuda-802", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized"},
	{"cuda-802", "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:174: UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 802: system not yet initialized (Triggered internally at /pytorch/c10/cuda/CUDAFunctions.cpp:109.)"},
	{"cuda-802", "   [[ System not yet initialized (error 802) ]]"},
	{"cuda-no-device", "RuntimeError: CUDA error: no CUDA-capable device is detected"},
	{"cuda-no-device", "RuntimeError: No CUDA GPUs are available"},
	{"cuda-driver-mismatch", "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"},
	{"cuda-driver-mismatch", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was attempted on non supported HW"},
	{"nccl-system-error", "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5"},
	{"nccl-system-error", "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error."},
	{"nvidia-xid", "[ 8123.456789] NVRM: Xid (PCI:0000:18:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus."},
	{"gpu-ecc-uncorrectable", "RuntimeError: CUDA error: uncorrectable ECC error encountered"},
	{"hip-no-device", "RuntimeError: HIP error: hipErrorNoDevice"},
	{"hip-no-device", "RuntimeError: No HIP GPUs are available"},
	{"port-in-use", "ERROR:    [Errno 98] error while attempting to bind on address ('0.0.0.0', 30000): address already in use"},
	{"port-in-use", "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. port: 29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use"},
	{"port-in-use", "OSError: [Errno 98] Address already in use"},
}

// Lines of healthy runs that mention the same words; no fingerprint may
// match them.
var healthyLines = []string{
	"[2026-08-14 10:21:07 TP0] Init torch distributed begin.",
	"CUDA available: True",
	"NCCL version 2.21.5+cuda12.4",
	"node17-2:36748:36748 [0] NCCL INFO Using network IB",
	"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |",
	"[2026-08-14 10:21:09] INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)",
	"AssertionError: accuracy 0.41 not greater than 0.50",
	"RuntimeError: CUDA error: an illegal memory access was encountered",
	"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB",
}

// matchFirst names the first fingerprint of fps that matches line, as the
// runner does.
func matchFirst(fps []InfraFingerprint, line string) string {
	for _, f := range fps {
		if f.Regexp.MatchString(line) {
			return f.Name
		}
	}
	return ""
}

func TestDefault_InfraFingerprintsNameRealBrokenHostLines(t *testing.T) {
	c := Default()
	for _, tc := range brokenHostLines {
		b := CUDA
		if tc.fingerprint == "hip-no-device" {
			b = ROCM
		}
		assert.Equal(t, tc.fingerprint, matchFirst(c.InfraFingerprintsFor(b), tc.line), tc.line)
	}
	for _, line := range healthyLines {
		for _, b := range []Backend{CUDA, ROCM} {
			assert.Empty(t, matchFirst(c.InfraFingerprintsFor(b), line), line)
		}
	}
}

func TestInfraFingerprintsFor_KeepsTheBackendsOwnAndCPUHasNone(t *testing.T) {
	c := Default()
	names := func(b Backend) []string {
		var out []string
		for _, f := range c.InfraFingerprintsFor(b) {
			out = append(out, f.Name)
		}
		return out
	}
	assert.Equal(t, []string{"cuda-802", "cuda-no-device", "cuda-driver-mismatch", "nccl-system-error", "nvidia-xid",
		"gpu-ecc-uncorrectable", "port-in-use"}, names(CUDA))
	assert.Equal(t, []string{"nccl-system-error", "gpu-ecc-uncorrectable", "hip-no-device", "port-in-use"}, names(ROCM))
	assert.Empty(t, names(CPU))
}

// A whole configuration without the section (one written before
// fingerprints existed) has the built-in list; an empty list turns them
// off; an overlay that does not name the section keeps the built-in one.
func TestParse_InfraFingerprintsSectionDefaults(t *testing.T) {
	c, err := Parse("ci.yaml", []byte(minimal))
	require.NoError(t, err)
	assert.Len(t, c.InfraFingerprints, len(Default().InfraFingerprints))

	c, err = Parse("ci.yaml", []byte(minimal+"infra_fingerprints: []\n"))
	require.NoError(t, err)
	assert.Empty(t, c.InfraFingerprintsFor(CUDA))

	c, err = Parse("ci.yaml", []byte("extends: default\nno_gpu_paths: [docs/]\n"))
	require.NoError(t, err)
	assert.Len(t, c.InfraFingerprints, len(Default().InfraFingerprints))

	c, err = Parse("ci.yaml", []byte(minimal+"infra_fingerprints:\n  - {name: gpu-lost, pattern: 'GPU \\d+ lost', backends: [rocm]}\n"))
	require.NoError(t, err)
	require.Len(t, c.InfraFingerprints, 1)
	assert.Equal(t, "gpu-lost", c.InfraFingerprints[0].Name)
	assert.Equal(t, []Backend{ROCM}, c.InfraFingerprints[0].Backends)
	assert.Empty(t, c.InfraFingerprintsFor(CUDA))
	assert.True(t, c.InfraFingerprintsFor(ROCM)[0].Regexp.MatchString("GPU 3 lost"))
}

func TestParse_BadInfraFingerprintsNameTheFileAndLine(t *testing.T) {
	cases := []struct{ name, section, want string }{
		{"not a list", "infra_fingerprints: {a: b}\n",
			`ci.yaml:12: infra_fingerprints must be a list of {name, pattern} entries`},
		{"bad regex", "infra_fingerprints:\n  - name: x\n    pattern: 'a(b'\n",
			`ci.yaml:14: infra fingerprint x: the pattern "a(b" is not an RE2 regular expression: missing closing ): "a(b"`},
		{"a Perl construct RE2 lacks", "infra_fingerprints:\n  - name: x\n    pattern: '(?<=a)b'\n",
			`ci.yaml:14: infra fingerprint x: the pattern "(?<=a)b" is not an RE2 regular expression`},
		{"a pattern matching every line", "infra_fingerprints:\n  - name: x\n    pattern: 'a*'\n",
			`ci.yaml:14: infra fingerprint x: the pattern "a*" matches an empty line, so it would blame the host for every failure`},
		{"duplicate name", "infra_fingerprints:\n  - {name: x, pattern: a}\n  - {name: x, pattern: b}\n",
			`ci.yaml:14: infra fingerprint "x" appears twice`},
		{"no name", "infra_fingerprints:\n  - {pattern: a}\n",
			`ci.yaml:13: an infra fingerprint has no name`},
		{"no pattern", "infra_fingerprints:\n  - {name: x}\n",
			`ci.yaml:13: an infra fingerprint has no pattern`},
		{"unknown key", "infra_fingerprints:\n  - {name: x, pattern: a, backend: cuda}\n",
			`ci.yaml:13: unknown key "backend" in an infra fingerprint; expected one of name, pattern, backends`},
		{"a name that could start a command", "infra_fingerprints:\n  - {name: '::error', pattern: a}\n",
			`ci.yaml:13: infra fingerprint name "::error" may hold only letters, digits`},
		{"cpu backend", "infra_fingerprints:\n  - {name: x, pattern: a, backends: [cuda, cpu]}\n",
			`ci.yaml:13: infra fingerprint x has backend "cpu"; expected cuda or rocm`},
		{"empty backends", "infra_fingerprints:\n  - {name: x, pattern: a, backends: []}\n",
			`ci.yaml:13: infra fingerprint x: backends is empty; leave it out to match on every GPU backend`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("ci.yaml", []byte(minimal+tc.section))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}
