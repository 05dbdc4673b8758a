package filerun

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/testutil"
)

func TestRegisteredPath_TakesThePathAsAShellGivesIt(t *testing.T) {
	root := testutil.TempTree(t, map[string]string{
		"tests/e2e/test_a.py":     "x = 1\n",
		"tests/e2e/test_plain.py": "x = 1\n",
	})
	regs := []registry.Registration{{File: "tests/e2e/test_a.py"}}
	t.Chdir(filepath.Join(root, "tests"))
	for _, tc := range []struct{ arg, want, err string }{
		{arg: "tests/e2e/test_a.py", want: "tests/e2e/test_a.py"},
		{arg: "./tests/e2e/test_a.py", want: "tests/e2e/test_a.py"},
		{arg: "e2e/test_a.py", want: "tests/e2e/test_a.py"}, // relative to the working directory
		{arg: filepath.Join(root, "tests/e2e/test_a.py"), want: "tests/e2e/test_a.py"},
		{arg: "tests/e2e/test_plain.py", want: "tests/e2e/test_plain.py"}, // exists: Find says it is not registered
		{arg: "tests/e2e/test_gone.py", err: "no such file"},
		{arg: "/etc/hostname", err: "is not below the repository root"},
	} {
		got, err := RegisteredPath(root, tc.arg, regs)
		if tc.err != "" {
			require.Error(t, err, tc.arg)
			assert.Contains(t, err.Error(), tc.err, tc.arg)
			continue
		}
		require.NoError(t, err, tc.arg)
		assert.Equal(t, tc.want, got, tc.arg)
	}
}
