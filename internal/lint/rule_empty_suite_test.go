package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A suite whose job runs no test: its only registration is disabled, or
// none is of its backend. A warning at the job, which passes once a test
// lands in it.
func TestEmptySuite_AJobThatRunsNoTest(t *testing.T) {
	about(t, RuleEmptySuite)
	tests := map[string]string{
		"tests/test_unit.py": "register_cpu_ci(1, 'unit')\n",
		"tests/test_ext.py":  "register_rocm_ci(1, 'ext', labels=['core'])\n",
	}
	const want = prYML + "18:3: warning: suite gpu holds no enabled cuda registration, so job 'gpu' runs no test (fine while tests migrate to it) [empty-suite]"
	tests["tests/test_gpu.py"] = "register_cuda_ci(1, 'gpu', labels=['core'], disabled='flaky')\n"
	assert.Equal(t, []string{want}, lintFixture(t, "empty-suite/small", tests), "disabled")
	delete(tests, "tests/test_gpu.py")
	assert.Equal(t, []string{want}, lintFixture(t, "empty-suite/small", tests), "none")
	tests["tests/test_gpu.py"] = "register_cuda_ci(1, 'gpu', labels=['core'])\n"
	assert.Empty(t, lintFixture(t, "empty-suite/small", tests), "one enabled")
}
