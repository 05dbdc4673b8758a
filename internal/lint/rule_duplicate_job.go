package lint

import (
	"sort"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleDuplicateJob names a second job that runs a suite.
const RuleDuplicateJob = "duplicate-job"

var _ = register(Rule{Name: RuleDuplicateJob, Severity: Error,
	Summary: "a second job runs a suite (in any workflow)",
	onRepo:  (*checker).checkDuplicateJobs})

// checkDuplicateJobs reports every job of a suite but the first (in file
// order) on the later job's key.
func (c *checker) checkDuplicateJobs() {
	var names []string
	for name := range c.runs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		runs := c.runs[name]
		for _, r := range runs[1:] {
			first := runs[0].job
			c.atNode(r.job.wf, r.job.key, RuleDuplicateJob, "job %s runs suite %s, which job %s (%s:%d) runs already; a suite has exactly one stage job",
				pyfmt.Repr(r.job.id), name, pyfmt.Repr(first.id), first.wf.path, first.key.Line)
		}
	}
}
