package lint

// RuleExternalJob names a job of this repository that runs a suite the
// roster marks external (another repository's workflow runs it).
const RuleExternalJob = "external-job"

var _ = register(Rule{Name: RuleExternalJob, Severity: Error,
	Summary: "a job here runs a suite another repository's workflow runs"})

// externalJob reports the command's suite sw, which the roster marks
// external, at its word.
func (c *checker) externalJob(j *job, inv *invocation, sw word) {
	c.atWord(j, inv, sw, RuleExternalJob, "suite %s is external: another repository's workflow runs it, so no job here may (%s)", sw.text, c.cfg.Origin())
}
