package lint

import (
	"fmt"
	"path"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleMissingJob names a non-external roster suite with no stage job in
// its workflow.
const RuleMissingJob = "missing-job"

var _ = register(Rule{Name: RuleMissingJob, Severity: Error,
	Summary: "a suite of the roster has no stage job in its workflow",
	onRepo:  (*checker).checkMissingJobs})

// checkMissingJobs reports each non-external roster suite that no job of
// its workflow runs.
func (c *checker) checkMissingJobs() {
	for _, s := range c.cfg.Suites {
		if s.External {
			continue
		}
		if inWorkflow, elsewhere := c.suiteJobs(s); len(inWorkflow) == 0 {
			c.missingJob(s, s.WorkflowFile(), elsewhere)
		}
	}
}

// missingJob reports a roster suite without a stage job in its workflow,
// on the workflow's jobs: key, saying how many registrations never run and
// where a job for it stands in another workflow, if one does.
func (c *checker) missingJob(s config.Suite, wfName string, elsewhere []stageRun) {
	msg := "no job runs suite " + s.Name + c.neverRuns(s.Name)
	msg += fmt.Sprintf(": add a job %s running miles-ci run --hw %s --suite %s", s.Name, s.Backend, s.Name)
	if len(elsewhere) > 0 {
		r := elsewhere[0]
		msg += fmt.Sprintf(" (job %s in %s runs it, but the roster puts the suite in %s)", pyfmt.Repr(r.job.id), r.job.wf.path, wfName)
	}
	wf := c.byName[wfName]
	switch {
	case wf == nil:
		c.found.add(Finding{Path: path.Join(WorkflowDir, wfName), Line: 1, Col: 1, Severity: Error, Rule: RuleMissingJob,
			Message: fmt.Sprintf("%s does not exist: %s", path.Join(WorkflowDir, wfName), msg)})
	case wf.broken:
		// The workflow's own finding says why nothing in it can be read.
	default:
		c.atNode(wf, keyOr(wf.jobsKey, wf.root), RuleMissingJob, "%s", msg)
	}
}

// neverRuns is ", so its N registrations never run" for the suite no job
// runs, or "" when nothing is registered in it.
func (c *checker) neverRuns(suite string) string {
	regs := 0
	for _, r := range c.regs {
		if r.Suite == suite {
			regs++
		}
	}
	switch regs {
	case 0:
		return ""
	case 1:
		return ", so its registration never runs"
	}
	return fmt.Sprintf(", so its %d registrations never run", regs)
}
