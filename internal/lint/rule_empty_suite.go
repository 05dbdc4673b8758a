package lint

import (
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleEmptySuite names a stage job whose suite holds no enabled
// registration of its backend (allowed while tests migrate).
const RuleEmptySuite = "empty-suite"

var _ = register(Rule{Name: RuleEmptySuite, Severity: Warning,
	Summary: "a suite has a job but no enabled registration of its backend",
	onRepo:  (*checker).checkEmptySuites})

// checkEmptySuites checks the first job of each non-external roster suite
// in its workflow (a suite without one is a missing-job error).
func (c *checker) checkEmptySuites() {
	for _, s := range c.cfg.Suites {
		if s.External {
			continue
		}
		if inWorkflow, _ := c.suiteJobs(s); len(inWorkflow) > 0 {
			c.checkEmptySuite(s, inWorkflow[0].job)
		}
	}
}

// checkEmptySuite reports suite s's job j when no enabled registration of
// the suite's backend lands in it: the job runs no test.
func (c *checker) checkEmptySuite(s config.Suite, j *job) {
	enabled := 0
	for _, r := range c.regs {
		if js, ok := r.Job(c.cfg); ok && js.Name == s.Name && r.Enabled() {
			enabled++
		}
	}
	if enabled == 0 {
		c.add(j.wf, j.key.Line, j.key.Column, Warning, RuleEmptySuite,
			"suite %s holds no enabled %s registration, so job %s runs no test (fine while tests migrate to it)", s.Name, s.Backend, pyfmt.Repr(j.id))
	}
}
