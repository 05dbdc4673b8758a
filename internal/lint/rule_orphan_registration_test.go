package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The registrations no job runs, beside the passing workflow (its own copy,
// testdata/rules/orphan-registration/small.yml): each is a warning at its
// register call, and the suite whose only test is disabled is an
// empty-suite warning at its job.
func TestOrphanRegistration_RegistrationsNoJobRuns(t *testing.T) {
	about(t, RuleOrphan, RuleEmptySuite)
	tests := map[string]string{
		"tests/test_unit.py":  "register_cpu_ci(1, 'unit')\n",
		"tests/test_gpu.py":   "register_cuda_ci(1, 'gpu', labels=['core'], disabled='flaky')\n",
		"tests/test_ext.py":   "register_rocm_ci(1, 'ext', labels=['core'])\n",
		"tests/test_amd.py":   "\nregister_rocm_ci(1, 'gpu', labels=['core'])\n",
		"tests/test_gone.py":  "import os\nregister_cpu_ci(1, 'stage-gone')\n",
		"tests/test_mixed.py": "register_cpu_ci(1, 'unit')\nregister_cuda_ci(2, 'b200', labels=['core'])\n",
	}
	got := lintFixture(t, "orphan-registration/small", tests)
	assert.Equal(t, []string{
		// The gpu suite's only cuda test is disabled: its job runs nothing.
		".github/workflows/pr-test.yml:18:3: warning: suite gpu holds no enabled cuda registration, so job 'gpu' runs no test (fine while tests migrate to it) [empty-suite]",
		"tests/test_amd.py:2:1: warning: suite 'gpu' is a cuda suite, so its job never runs this rocm registration: register it with the suite's backend or in a rocm suite [orphan-registration]",
		"tests/test_gone.py:2:1: warning: suite 'stage-gone' is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (.miles-ci.yaml) [orphan-registration]",
		"tests/test_mixed.py:2:1: warning: suite 'b200' is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (.miles-ci.yaml) [orphan-registration]",
	}, got)
}
