package lint

import (
	"strings"

	"github.com/radixark/miles-ci/internal/config"
)

// RuleNeeds names a stage job whose needs lack a job the roster lists for
// its suite.
const RuleNeeds = "needs"

var _ = register(Rule{Name: RuleNeeds, Severity: Error,
	Summary: "a stage job's needs lack a job the roster lists for its suite",
	onJob: func(c *checker, sj stageJob) {
		// A missing policy job is policy-inputs' finding, not one more.
		c.checkNeeds(sj.job, sj.suite, sj.policyJobs, c.lacksPolicyNeed(sj.job, sj.policyJobs))
	}})

// checkNeeds: the job depends on every job the roster lists for its suite.
func (c *checker) checkNeeds(j *job, s config.Suite, policyJobs []string, policyReported bool) {
	have := map[string]bool{}
	for _, n := range j.needs() {
		have[n] = true
	}
	var missing []string
	for _, n := range s.Needs {
		if !have[n] && !(policyReported && c.isPolicy[n]) {
			missing = append(missing, n)
		}
	}
	if len(missing) == 0 {
		return
	}
	k, _ := j.get("needs")
	c.atNode(j.wf, keyOr(k, j.key), RuleNeeds, "needs lacks %s, which the roster lists for %s: needs: [%s] (%s)",
		strings.Join(missing, ", "), s.Name, strings.Join(s.Needs, ", "), c.cfg.Origin())
}
