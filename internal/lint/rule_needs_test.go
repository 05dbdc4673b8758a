package lint

import "testing"

// Each slip needs reports, each in a fixture of its own under
// testdata/rules/needs/ (the small workflow with one edit), at its place
// in that fixture.
func TestNeeds_TheRostersNeeds(t *testing.T) {
	about(t, RuleNeeds)
	testFixtures(t, []fixtureCase{
		{"needs", "needs/lacks-a-job", []string{
			prYML + "19:5: error: needs lacks unit, which the roster lists for gpu: needs: [policy, unit] (.miles-ci.yaml) [needs]",
		}},
	})
}
