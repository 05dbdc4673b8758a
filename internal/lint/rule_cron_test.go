package lint

import "testing"

// Each slip cron reports, each in a fixture of its own under
// testdata/rules/cron/ (the small workflow with one edit), at its place
// in that fixture.
func TestCron_EveryScheduleHasACadence(t *testing.T) {
	about(t, RuleCron)
	testFixtures(t, []fixtureCase{
		{"cron", "cron/unmapped", []string{
			prYML + "3:13: error: cron '0 2 * * *' has no cadence in the configuration's schedules ('0 1 * * *' -> nightly), so the policy step would fail with \"No CI policy is defined for schedule: 0 2 * * *\"; add it to the configuration's schedules (.miles-ci.yaml) or remove it [cron]",
		}},
	})
}
