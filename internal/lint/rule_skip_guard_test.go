package lint

import "testing"

// Each slip skip-guard reports, each in a fixture of its own under
// testdata/rules/skip-guard/ (the small workflow with one edit), at its place
// in that fixture.
func TestSkipGuard_EachSlip(t *testing.T) {
	about(t, RuleSkipGuard)
	testFixtures(t, []fixtureCase{
		{"skip-guard without skipped_stages", "skip-guard/no-skipped-stages", []string{
			prYML + "20:5: error: if: does not test skipped_stages for gpu, so the job runs even when the policy skips it: add !contains(fromJSON(needs.policy.outputs.skipped_stages || '[]'), 'gpu') [skip-guard]",
		}},
		{"skip-guard that lost its !", "skip-guard/lost-its-bang", []string{
			prYML + "20:5: error: if: tests contains(…skipped_stages…, 'gpu') without !, so the job runs only when the policy skips gpu and never when it should run: write !contains(fromJSON(needs.policy.outputs.skipped_stages || '[]'), 'gpu') [skip-guard]",
		}},
		{"skip-guard with no if", "skip-guard/no-if", []string{
			prYML + "18:3: error: the job has no if: guard, so it runs even when the policy skips gpu: add !contains(fromJSON(needs.policy.outputs.skipped_stages || '[]'), 'gpu') [skip-guard]",
		}},
	})
}
