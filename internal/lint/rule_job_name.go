package lint

import "github.com/radixark/miles-ci/internal/pyfmt"

// RuleJobName names a stage job whose id differs from its --suite.
const RuleJobName = "job-name"

var _ = register(Rule{Name: RuleJobName, Severity: Error,
	Summary: "a stage job's id differs from the suite it runs"})

// checkJobName reports job j when it runs the roster suite name under
// another id. (A suite not in the roster is a typo more often than a new
// name: its unknown-suite finding offers the suite meant, and renaming
// the job after the typo would be wrong advice; checkStageJob does not
// call this then.)
func (c *checker) checkJobName(j *job, name string) {
	if name != j.id {
		c.atNode(j.wf, j.key, RuleJobName, "job %s runs suite %s; stage and suite names are one set, so name the job %s", pyfmt.Repr(j.id), pyfmt.Repr(name), name)
	}
}
