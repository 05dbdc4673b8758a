package lint

// RulePolicyInputs names a stage job that does not take the cadence and the
// labels from the policy job, or does not need it.
const RulePolicyInputs = "policy-inputs"

var _ = register(Rule{Name: RulePolicyInputs, Severity: Error,
	Summary:   "a stage command does not take --cadence and --labels from the policy job",
	onCommand: func(c *checker, sc stageCommand) { c.checkPolicyFlags(sc.job, sc.inv, sc.policyJobs) },
	onJob:     func(c *checker, sj stageJob) { c.checkPolicyNeed(sj.job, sj.policyJobs) }})

// checkPolicyFlags: the cadence and the labels come from the policy job.
func (c *checker) checkPolicyFlags(j *job, inv *invocation, policyJobs []string) {
	if len(policyJobs) == 0 {
		c.atWord(j, inv, inv.first(), RulePolicyInputs,
			"no job of %s resolves the CI policy (python -m tests.ci.ci_policy or miles-ci policy), so the command cannot take --cadence and --labels from it",
			j.wf.name)
		return
	}
	p := policyName(policyJobs)
	cadenceHint := "--cadence ${{ needs." + p + ".outputs.cadence }}"
	switch w, ok := inv.value("--cadence"); {
	case !ok:
		c.atWord(j, inv, inv.first(), RulePolicyInputs, "the command does not take --cadence from the policy job: add %s", cadenceHint)
	case !refersTo(w.text, c.isPolicy, "cadence"):
		c.atWord(j, inv, w, RulePolicyInputs, "--cadence is %s; take it from the policy job: %s", w.text, cadenceHint)
	}
	labelsHint := "--labels ${{ needs." + p + ".outputs.raw_labels }}"
	f, vals, ok := inv.flag("--labels")
	if !ok {
		c.atWord(j, inv, inv.first(), RulePolicyInputs, "the command does not take --labels from the policy job: add %s", labelsHint)
		return
	}
	for _, v := range vals {
		if refersTo(v.text, c.isPolicy, "raw_labels") {
			return
		}
	}
	c.atWord(j, inv, f, RulePolicyInputs, "--labels does not take the policy job's raw_labels: write %s", labelsHint)
}

// checkPolicyNeed: a job reads the policy's outputs only if it needs the
// policy job.
func (c *checker) checkPolicyNeed(j *job, policyJobs []string) {
	if !c.lacksPolicyNeed(j, policyJobs) {
		return
	}
	k, _ := j.get("needs")
	c.atNode(j.wf, keyOr(k, j.key), RulePolicyInputs, "the job does not need the policy job %s, so it cannot read its outputs: add it to needs", policyName(policyJobs))
}

// lacksPolicyNeed reports whether the workflow has a policy job and job j
// needs none of them.
func (c *checker) lacksPolicyNeed(j *job, policyJobs []string) bool {
	if len(policyJobs) == 0 {
		return false
	}
	for _, n := range j.needs() {
		if c.isPolicy[n] {
			return false
		}
	}
	return true
}
