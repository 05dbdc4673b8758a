package lint

import (
	"sort"
	"strings"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleCron names a schedule of a workflow that runs the policy that the
// configuration maps to no cadence.
const RuleCron = "cron"

var _ = register(Rule{Name: RuleCron, Severity: Error,
	Summary: "a schedule cron maps to no cadence of the configuration",
	onWorkflow: func(c *checker, wf *workflow, policyJobs []string) {
		// Only a workflow that resolves the policy maps its crons.
		if len(policyJobs) > 0 {
			c.checkCrons(wf)
		}
	}})

// checkCrons: every schedule of a workflow that resolves the policy must
// map to a cadence, or the policy step fails on that schedule.
func (c *checker) checkCrons(wf *workflow) {
	for _, n := range wf.crons {
		if _, ok := c.cfg.Schedules[n.Value]; ok {
			continue
		}
		c.atNode(wf, n, RuleCron,
			"cron %s has no cadence in the configuration's schedules (%s), so the policy step would fail with \"No CI policy is defined for schedule: %s\"; add it to the configuration's schedules (%s) or remove it",
			pyfmt.Repr(n.Value), c.schedulesText(), n.Value, c.cfg.Origin())
	}
}

// schedulesText lists the configured crons and their cadences, sorted.
func (c *checker) schedulesText() string {
	var crons []string
	for cron := range c.cfg.Schedules {
		crons = append(crons, cron)
	}
	sort.Strings(crons)
	parts := make([]string, len(crons))
	for i, cron := range crons {
		parts[i] = pyfmt.Repr(cron) + " -> " + c.cfg.Schedules[cron]
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
