package lint

import "testing"

// Each slip policy-inputs reports, each in a fixture of its own under
// testdata/rules/policy-inputs/ (the small workflow with one edit), at its place
// in that fixture.
func TestPolicyInputs_EachSlip(t *testing.T) {
	// cron and needs too: with no policy job, neither checks the schedules
	// nor reports the policy job missing from needs as one more finding.
	about(t, RulePolicyInputs, RuleCron, RuleNeeds)
	testFixtures(t, []fixtureCase{
		{"policy-inputs: labels from elsewhere and no need", "policy-inputs/labels-elsewhere-no-need", []string{
			prYML + "17:59: error: --labels does not take the policy job's raw_labels: write --labels ${{ needs.policy.outputs.raw_labels }} [policy-inputs]",
			prYML + "19:5: error: the job does not need the policy job policy, so it cannot read its outputs: add it to needs [policy-inputs]",
		}},
		{"policy-inputs with no policy job (and no cron check)", "policy-inputs/no-policy-job", []string{
			prYML + "16:11: error: no job of pr-test.yml resolves the CI policy (python -m tests.ci.ci_policy or miles-ci policy), so the command cannot take --cadence and --labels from it [policy-inputs]",
			prYML + "28:11: error: no job of pr-test.yml resolves the CI policy (python -m tests.ci.ci_policy or miles-ci policy), so the command cannot take --cadence and --labels from it [policy-inputs]",
		}},
	})
}
