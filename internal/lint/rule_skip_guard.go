package lint

import (
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleSkipGuard names a GPU stage job whose if: does not skip it when the
// policy skips its stage. (The if: is read by skipGuardCalls, expr.go.)
const RuleSkipGuard = "skip-guard"

var _ = register(Rule{Name: RuleSkipGuard, Severity: Error,
	Summary: "a GPU stage job's if: does not skip it when the policy skips its stage",
	onJob: func(c *checker, sj stageJob) {
		if sj.suite.Backend != config.CPU {
			c.checkSkipGuard(sj.job, sj.suite, sj.policyJobs)
		}
	}})

// checkSkipGuard: a GPU stage job must skip itself when the policy lists
// its own stage in skipped_stages, and no other.
func (c *checker) checkSkipGuard(j *job, s config.Suite, policyJobs []string) {
	hint := fmt.Sprintf("!contains(fromJSON(needs.%s.outputs.skipped_stages || '[]'), '%s')", policyName(policyJobs), s.Name)
	k, v := j.get("if")
	text, _ := scalar(v)
	if v == nil {
		c.atNode(j.wf, j.key, RuleSkipGuard, "the job has no if: guard, so it runs even when the policy skips %s: add %s", s.Name, hint)
		return
	}
	calls, read := c.guards[v]
	if !read {
		// An if: YAML aliases into many jobs is read once.
		calls = skipGuardCalls(text)
		if c.guards == nil {
			c.guards = map[*yaml.Node][]guardCall{}
		}
		c.guards[v] = calls
	}
	own := false
	for _, call := range calls {
		switch {
		case call.stage == "":
		case call.stage != s.Name:
			c.atNode(j.wf, k, RuleSkipGuard, "if: tests skipped_stages for %s, not for this job's stage %s, so the policy skips the wrong stage", pyfmt.Repr(call.stage), s.Name)
			return
		default:
			own = true
		}
	}
	if !own {
		c.atNode(j.wf, k, RuleSkipGuard, "if: does not test skipped_stages for %s, so the job runs even when the policy skips it: add %s", s.Name, hint)
		return
	}
	for _, call := range calls {
		if call.stage == s.Name && !call.negated && !call.unread {
			c.atNode(j.wf, k, RuleSkipGuard, "if: tests contains(…skipped_stages…, %s) without !, so the job runs only when the policy skips %s and never when it should run: write %s",
				pyfmt.Repr(s.Name), s.Name, hint)
			return
		}
	}
}
