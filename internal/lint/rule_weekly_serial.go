package lint

import (
	"fmt"

	"github.com/radixark/miles-ci/internal/config"
)

// RuleWeeklySerial names a sharded GPU stage job whose max-parallel does
// not run one shard at a time on a weekly run.
const RuleWeeklySerial = "weekly-serial"

var _ = register(Rule{Name: RuleWeeklySerial, Severity: Error,
	Summary: "a sharded GPU stage's max-parallel does not depend on the policy's cadence",
	onJob: func(c *checker, sj stageJob) {
		if sj.suite.Backend != config.CPU && sj.suite.Shards > 1 {
			c.checkWeeklySerial(sj.job, sj.suite, sj.policyJobs)
		}
	}})

// checkWeeklySerial: a sharded GPU stage runs one shard at a time on a
// weekly run, so its max-parallel depends on the policy's cadence.
func (c *checker) checkWeeklySerial(j *job, s config.Suite, policyJobs []string) {
	hint := fmt.Sprintf("max-parallel: ${{ needs.%s.outputs.cadence == 'weekly' && 1 || %d }}", policyName(policyJobs), s.Shards)
	sk, _ := j.get("strategy")
	k, v := j.get("strategy", "max-parallel")
	if v == nil {
		c.atNode(j.wf, keyOr(sk, j.key), RuleWeeklySerial, "strategy has no max-parallel, so a weekly run takes %d %s runners at once instead of one: add %s",
			s.Shards, jsonList(s.RunsOn), hint)
		return
	}
	// Without a policy job, policy-inputs has said so already.
	if text, _ := scalar(v); len(policyJobs) > 0 && !refersTo(text, c.isPolicy, "cadence") {
		c.atNode(j.wf, k, RuleWeeklySerial, "max-parallel is %s and does not depend on the policy's cadence, so a weekly run does not run one shard at a time: write %s", text, hint)
	}
}
