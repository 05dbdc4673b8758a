package lint

import "testing"

// Each slip hw reports, each in a fixture of its own under
// testdata/rules/hw/ (the small workflow with one edit), at its place
// in that fixture.
func TestHW_TheSuitesBackend(t *testing.T) {
	about(t, RuleHW)
	testFixtures(t, []fixtureCase{
		// A wrapper that runs the runner (here a time limit) leaves it a
		// stage job: before wrappers were read, its wrong --hw passed.
		{"hw through a wrapper", "hw/through-a-wrapper", []string{
			prYML + "16:41: error: --hw is 'cuda' but suite unit is a cpu suite in the roster (.miles-ci.yaml): write --hw cpu [hw]",
		}},
		{"hw given with =", "hw/given-with-equals", []string{
			prYML + "28:41: error: --hw is 'rocm' but suite gpu is a cuda suite in the roster (.miles-ci.yaml): write --hw cuda [hw]",
		}},
	})
}
