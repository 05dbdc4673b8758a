package registry

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/treegen"
)

// End-to-end tests: real files through the real Python source reader.

func collectLines(t *testing.T, files map[string]string) []string {
	t.Helper()
	dir := t.TempDir()
	testutil.WriteTree(t, dir, files)
	_, err := Collect(dir, config.Default())
	var errs Errors
	require.ErrorAs(t, err, &errs)
	return errs.Lines()
}

func TestCollectFiles_BadSourceIsAnErrorNamingFileAndLine(t *testing.T) {
	cases := []struct {
		name, src, wantPrefix string
	}{
		{"not UTF-8", "register_cpu_ci(1, 'stage-b-cpu')\nx = '\xff'\n", "tests/e2e/test_x.py:2: invalid syntax: "},
		{"UTF-8 BOM", "\ufeffregister_cpu_ci(1, 'stage-b-cpu')\n", "tests/e2e/test_x.py:1: invalid syntax: "},
		{"syntax error inside the register call", "import os\n\nregister_cpu_ci(est_time=1, 'stage-b-cpu')\n", "tests/e2e/test_x.py:3: invalid syntax: "},
		{"unclosed call", "register_cpu_ci(1, 'stage-b-cpu'\n", "tests/e2e/test_x.py:1: invalid syntax: "},
		{"unterminated string far from the call", "register_cpu_ci(1, 'stage-b-cpu')\n\n\n\nx = 'oops\n", "tests/e2e/test_x.py:5: invalid syntax: "},
		{"NUL byte", "register_cpu_ci(1, 'stage-b-cpu')\n\x00\n", "tests/e2e/test_x.py:2: invalid syntax: "},
		{"a missing comma", "register_cpu_ci(est_time=1 suite='stage-b-cpu')\n", "tests/e2e/test_x.py:1: invalid syntax (expected ',')"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines := collectLines(t, map[string]string{"tests/e2e/test_x.py": tc.src, "tests/e2e/test_ok.py": "register_cpu_ci(1, 'stage-b-cpu')\n"})
			assert.NotContains(t, lines[0], "invalid syntax: invalid syntax", "said once")
			require.Len(t, lines, 1)
			assert.True(t, strings.HasPrefix(lines[0], tc.wantPrefix), "got %q", lines[0])
		})
	}
}

func TestCollectFiles_MessagesMatchThePythonCollector(t *testing.T) {
	cases := []struct {
		name, file, src, want string
	}{
		{"est overflow names the file", "tests/e2e/test_x.py", "register_cpu_ci(1" + strings.Repeat("0", 400) + ", 'stage-b-cpu')\n",
			"tests/e2e/test_x.py: est_time in register_cpu_ci() is too large to convert to a float"},
		{"mention in a docstring under tests/fast", "tests/fast/test_x.py", "\"\"\"Call register_cuda_ci( somewhere.\"\"\"\n",
			"tests/fast/test_x.py: file mentions register_cpu_ci or register_cuda_ci textually but no top-level call was parsed; check for aliased import, non-toplevel call, or attribute access"},
		{"nested call under tests/fast", "tests/fast/test_x.py", "if True:\n    register_cpu_ci(1, 'stage-a-cpu')\n",
			"tests/fast/test_x.py: file mentions register_cpu_ci or register_cuda_ci textually but no top-level call was parsed; check for aliased import, non-toplevel call, or attribute access"},
		{"rocm under tests/fast", "tests/fast/test_x.py", "register_rocm_ci(1, 'stage-c-4-gpu-mi350', labels=['amd'])\n",
			"tests/fast/test_x.py: register_cuda_ci is forbidden in tests/fast/; move the file to tests/fast-gpu/ instead"},
		{"attribute call elsewhere", "tests/e2e/test_x.py", "ci.register_cpu_ci(1, 'stage-b-cpu')\n",
			"No CI registry found in tests/e2e/test_x.py"},
		{"keyword names are NFKC-normalized: a duplicate", "tests/e2e/test_x.py", "register_cpu_ci(5, 's', ｅｓｔ_ｔｉｍｅ=None)",
			"tests/e2e/test_x.py: duplicated argument 'est_time' in register_cpu_ci()"},
		{"keyword names are NFKC-normalized: a ligature", "tests/e2e/test_x.py", "register_cpu_ci(5, 's', ﬂag=None)",
			"tests/e2e/test_x.py: unknown argument 'flag' in register_cpu_ci()"},
		{"a lone surrogate label is written as Python writes it", "tests/e2e/test_x.py", "register_cpu_ci(5, 'stage-b-cpu', labels=['\\ud800'])",
			"tests/e2e/test_x.py: unknown labels ['\\ud800'] in register_cpu_ci(); valid labels: [" + allLabelsSorted + "]. To add a new label: edit tests/ci/labels.py + create matching `run-ci-<label>` in GitHub repo Settings -> Labels." +
				" (this repository has no tests/ci/labels.py; the labels above are miles-ci's built-in list)"},
		{"a thousand unary operators are no literal", "tests/e2e/test_x.py", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("-", 1000) + "1)",
			"tests/e2e/test_x.py: nightly in register_cpu_ci() must be a literal constant"},
		{"a thousand nots are no literal", "tests/e2e/test_x.py", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("not ", 1000) + "1)",
			"tests/e2e/test_x.py: nightly in register_cpu_ci() must be a literal constant"},
		{"keyword names are NFKC-normalized: a letterlike symbol", "tests/e2e/test_x.py", "register_cpu_ci(5, 's', ℌ=1)",
			"tests/e2e/test_x.py: unknown argument 'H' in register_cpu_ci()"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, []string{tc.want}, collectLines(t, map[string]string{tc.file: tc.src}))
		})
	}
}

func TestCollectFiles_GeneratedTreeCollectsCompletely(t *testing.T) {
	dir := t.TempDir()
	sum, err := treegen.Write(dir, 300, 5)
	require.NoError(t, err)
	reg, err := Collect(dir, config.Default())
	require.NoError(t, err)
	assert.Equal(t, sum.Files, reg.Files)
	assert.Len(t, reg.Registrations, sum.Registrations)
	implicit := 0
	for _, r := range reg.Registrations {
		assert.NotNil(t, r.Labels)
		if r.Implicit {
			implicit++
		}
	}
	assert.Equal(t, sum.Implicit, implicit)
}

func TestCollectFiles_ManyBrokenFilesReportedInDiscoveryOrder(t *testing.T) {
	dir := t.TempDir()
	_, err := treegen.Write(dir, 200, 9)
	require.NoError(t, err)
	files, err := Discover(dir, config.Default())
	require.NoError(t, err)
	// Break every seventh file in a different way each time.
	var want []string
	for i := 0; i < len(files); i += 7 {
		p := filepath.Join(dir, files[i])
		switch (i / 7) % 3 {
		case 0:
			require.NoError(t, os.WriteFile(p, []byte("x = (\n"), 0o644))
			want = append(want, files[i]+":1: invalid syntax: ")
		case 1:
			require.NoError(t, os.WriteFile(p, []byte("register_cpu_ci(1)\n"), 0o644))
			want = append(want, files[i]+": suite is required in register_cpu_ci()")
		default:
			require.NoError(t, os.WriteFile(p, []byte("register_cpu_ci(1, 's', labels=['nope'])\n"), 0o644))
			want = append(want, files[i]+": unknown labels ['nope'] in register_cpu_ci(); ")
		}
	}
	for range 3 {
		_, err = Collect(dir, config.Default())
		var errs Errors
		require.ErrorAs(t, err, &errs)
		got := errs.Lines()
		require.Len(t, got, len(want))
		for i := range want {
			assert.True(t, strings.HasPrefix(got[i], want[i]), "line %d: got %q, want prefix %q", i, got[i], want[i])
		}
	}
}
