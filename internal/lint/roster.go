package lint

import (
	"fmt"
	"path"
	"sort"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
)

// The rules across workflows: one job per roster suite, and a job for
// every registration.

// checkRoster: every suite of the roster that this repository runs has
// exactly one stage job, in its workflow; a job whose suite holds nothing
// is a warning.
func (c *checker) checkRoster() {
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
	for _, s := range c.cfg.Suites {
		if s.External {
			continue
		}
		wfName := s.WorkflowFile()
		var inWorkflow, elsewhere []stageRun
		for _, r := range c.runs[s.Name] {
			if r.job.wf.name == wfName {
				inWorkflow = append(inWorkflow, r)
			} else {
				elsewhere = append(elsewhere, r)
			}
		}
		if len(inWorkflow) == 0 {
			c.missingJob(s, wfName, elsewhere)
			continue
		}
		enabled := 0
		for _, r := range c.regs {
			if js, ok := r.Job(c.cfg); ok && js.Name == s.Name && r.Enabled() {
				enabled++
			}
		}
		if enabled == 0 {
			j := inWorkflow[0].job
			c.add(j.wf, j.key.Line, j.key.Column, Warning, RuleEmptySuite,
				"suite %s holds no enabled %s registration, so job %s runs no test (fine while tests migrate to it)", s.Name, s.Backend, pyfmt.Repr(j.id))
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

// checkRegistrations: a registration that reaches no job never runs.
// Suites the roster marks external run elsewhere, and a roster suite
// without a job is a missing-job error of its own.
func (c *checker) checkRegistrations() {
	for _, r := range c.regs {
		if _, ok := r.Job(c.cfg); ok {
			continue
		}
		var msg string
		sev := Warning
		s, inRoster := c.cfg.Suite(r.Suite)
		switch {
		case inRoster && s.External:
			continue
		case inRoster:
			msg = fmt.Sprintf("suite %s is a %s suite, so its job never runs this %s registration: register it with the suite's backend or in a %s suite",
				pyfmt.Repr(r.Suite), s.Backend, r.Backend, r.Backend)
		default:
			// Not in the roster, but a job may run it anyway (an
			// unknown-suite error of that job): then it runs when the
			// job's --hw is the registration's backend.
			var other *stageRun
			ran := false
			for i, run := range c.runs[r.Suite] {
				if run.hw == string(r.Backend) {
					ran = true
					break
				}
				if other == nil {
					other = &c.runs[r.Suite][i]
				}
			}
			switch {
			case ran:
				continue
			case other != nil:
				msg = fmt.Sprintf("suite %s is run by job %s with --hw %s, so this %s registration never runs",
					pyfmt.Repr(r.Suite), pyfmt.Repr(other.job.id), other.hw, r.Backend)
			case c.registrationMeant(r) != "":
				// A suite of the roster on the same hardware is near: a
				// typo, or a name a rename left behind, and the test
				// never runs until it is fixed.
				sev = Error
				msg = fmt.Sprintf("suite %s is not in the roster (%s) and no job runs it, so this registration never runs: did you mean %s?",
					pyfmt.Repr(r.Suite), c.cfg.Origin(), c.registrationMeant(r))
			default:
				msg = fmt.Sprintf("suite %s is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (%s)",
					pyfmt.Repr(r.Suite), c.cfg.Origin())
			}
		}
		c.found.add(Finding{Path: r.File, Line: max(r.Line, 1), Col: 1, Severity: sev, Rule: RuleOrphan, Message: msg})
	}
}

// registrationMeant is the roster suite a registration of a suite the
// roster lacks most likely meant: of its backend, on the hardware its
// suite's name says, the suites of the file's other registrations first.
func (c *checker) registrationMeant(r registry.Registration) string {
	var siblings []string
	for _, o := range c.regs {
		if o.File == r.File && o.Suite != r.Suite {
			siblings = append(siblings, o.Suite)
		}
	}
	return c.suiteMeantAmong(r.Suite, []config.Backend{r.Backend}, siblings)
}
