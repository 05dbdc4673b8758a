package lint

import (
	"time"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
)

// policyJobHint is the policy job id suggested in messages when a workflow
// has none: the one the Miles workflows use.
const policyJobHint = "resolve-ci-policy"

// checker holds one lint run: the inputs and the findings so far.
type checker struct {
	root      string // the repository's root directory
	cfg       *config.Config
	regs      []registry.Registration
	workflows []*workflow
	byName    map[string]*workflow
	found     *findingSet
	// fleet, when not nil, is the live fleet the runs_on sets must find
	// runners in (lint --runners).
	fleet *Fleet
	// external are the other repositories' workflows that run the
	// roster's external suites (lint --external).
	external []*External
	// actions are the local actions the workflows use, by directory.
	actions map[string]*localAction
	// entries says which of the Python entry points the repository has.
	entries map[string]bool
	// compat is RunSuitePath when the repository keeps it as the
	// compatibility entry point that runs miles-ci run, else "".
	compat string
	// now is when the lint runs, for the quarantine's expiry.
	now time.Time

	// isPolicy and jobByID are the workflow being checked's policy jobs
	// and its jobs by id (the last of an id, as YAML keeps it).
	isPolicy map[string]bool
	jobByID  map[string]*job
	// guards are the skip-guard calls read from each if: node.
	guards map[*yaml.Node][]guardCall

	// runs lists, per suite, the stage jobs that run it, in file order.
	runs map[string][]stageRun
	// matrixSources are the policy jobs whose shard_matrix wiring was
	// checked already: many stage jobs read one, and its findings come
	// once.
	matrixSources map[*job]bool
}

// stageRun is one stage job running one suite.
type stageRun struct {
	job *job
	inv *invocation
	hw  string // the --hw the command gives, "" when none
}

// add records a finding at a line and column of a workflow.
func (c *checker) add(wf *workflow, line, col int, sev Severity, rule, format string, args ...any) {
	c.found.addf(Finding{Path: wf.path, Line: max(line, 1), Col: max(col, 1), Severity: sev, Rule: rule}, format, args...)
}

// atNode reports an error on a node (a key, for the line that holds it).
func (c *checker) atNode(wf *workflow, n *yaml.Node, rule, format string, args ...any) {
	line, col := at(n)
	c.add(wf, line, col, Error, rule, format, args...)
}

// atWord reports an error on a word of a command, or on the command's
// node when the word could not be placed in the file.
func (c *checker) atWord(j *job, inv *invocation, w word, rule, format string, args ...any) {
	c.wordFinding(j, inv, w, Error, rule, format, args...)
}

// wordFinding is atWord at any severity.
func (c *checker) wordFinding(j *job, inv *invocation, w word, sev Severity, rule, format string, args ...any) {
	line, col := inv.place(w)
	c.add(j.wf, line, col, sev, rule, format, args...)
}

// place is where a word of the command stands in the file, or where the
// command does when the word could not be placed.
func (inv *invocation) place(w word) (int, int) {
	if w.line == 0 {
		return at(inv.node)
	}
	return w.line, w.col
}

// keyOr returns the first non-nil node, for "this key's line, else the
// job's".
func keyOr(nodes ...*yaml.Node) *yaml.Node {
	for _, n := range nodes {
		if n != nil {
			return n
		}
	}
	return nil
}

// check finds each workflow's policy jobs and stage jobs, checks every
// stage job, then the roster and the registrations against all of them.
func (c *checker) check() {
	c.byName = map[string]*workflow{}
	c.runs = map[string][]stageRun{}
	for _, wf := range c.workflows {
		c.byName[wf.name] = wf
	}
	for _, wf := range c.workflows {
		if wf.broken {
			continue
		}
		var policyJobs []string
		for _, j := range wf.jobs {
			j.readInvocations()
			for _, inv := range j.invocations {
				if inv.kind == resolvePolicy {
					policyJobs = append(policyJobs, j.id)
					break
				}
			}
		}
		c.isPolicy = map[string]bool{}
		for _, p := range policyJobs {
			c.isPolicy[p] = true
		}
		c.jobByID = map[string]*job{}
		for _, j := range wf.jobs {
			c.jobByID[j.id] = j
		}
		for _, r := range registered {
			if r.onWorkflow != nil {
				r.onWorkflow(c, wf, policyJobs)
			}
		}
		for _, j := range wf.jobs {
			c.checkStageJob(j, policyJobs)
		}
	}
	for _, r := range registered {
		if r.onRepo != nil {
			r.onRepo(c)
		}
	}
}

// checkStageJob checks every command of a job that runs a suite, then the
// job's own wiring against the roster entry of the (first) suite it runs
// (each rule's onJob hook).
func (c *checker) checkStageJob(j *job, policyJobs []string) {
	var (
		suite config.Suite
		known bool
		seen  = map[string]bool{}
	)
	for _, inv := range j.invocations {
		if inv.kind != runSuite {
			continue
		}
		sc := stageCommand{job: j, inv: inv, policyJobs: policyJobs}
		for _, r := range registered {
			if r.onCommand != nil {
				r.onCommand(c, sc)
			}
		}
		sw, ok := c.suiteWord(j, inv)
		if !ok {
			continue
		}
		name := sw.text
		s, ok := c.cfg.Suite(name)
		hw, _ := inv.value("--hw")
		// A job may run its suite twice (a --list-only step, then the
		// run): it is still one job of that suite.
		if !seen[name] {
			seen[name] = true
			c.runs[name] = append(c.runs[name], stageRun{job: j, inv: inv, hw: hw.text})
			// A suite not in the roster is a typo more often than a new
			// name: its unknown-suite finding offers the suite meant,
			// and renaming the job after the typo would be wrong advice.
			if ok {
				c.checkJobName(j, name)
			}
		}
		switch {
		case !ok:
			c.unknownSuite(j, inv, sw, hw.text)
			continue
		case s.External:
			c.externalJob(j, inv, sw)
			continue
		}
		sc.suite = s
		for _, r := range registered {
			if r.onSuiteCommand != nil {
				r.onSuiteCommand(c, sc)
			}
		}
		if !known {
			suite, known = s, true
		}
	}
	if !known {
		return
	}
	sj := stageJob{job: j, suite: suite, policyJobs: policyJobs}
	for _, r := range registered {
		if r.onJob != nil {
			r.onJob(c, sj)
		}
	}
}

// suiteJobs splits the stage jobs that run roster suite s into those of
// its workflow and those of others.
func (c *checker) suiteJobs(s config.Suite) (inWorkflow, elsewhere []stageRun) {
	wfName := s.WorkflowFile()
	for _, r := range c.runs[s.Name] {
		if r.job.wf.name == wfName {
			inWorkflow = append(inWorkflow, r)
		} else {
			elsewhere = append(elsewhere, r)
		}
	}
	return inWorkflow, elsewhere
}
