package lint

import "testing"

// Each slip weekly-serial reports, each in a fixture of its own under
// testdata/rules/weekly-serial/ (the small workflow with one edit), at its place
// in that fixture.
func TestWeeklySerial_MaxParallelDependsOnTheCadence(t *testing.T) {
	about(t, RuleWeeklySerial)
	testFixtures(t, []fixtureCase{
		{"weekly-serial", "weekly-serial/literal-max-parallel", []string{
			prYML + "22:7: error: max-parallel is 2 and does not depend on the policy's cadence, so a weekly run does not run one shard at a time: write max-parallel: ${{ needs.policy.outputs.cadence == 'weekly' && 1 || 2 }} [weekly-serial]",
		}},
	})
}
