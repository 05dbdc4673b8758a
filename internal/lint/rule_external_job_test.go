package lint

import "testing"

// Each slip external-job reports, each in a fixture of its own under
// testdata/rules/external-job/ (the small workflow with one edit), at its place
// in that fixture.
func TestExternalJob_NoJobHereRunsAnExternalSuite(t *testing.T) {
	// hw too: an external suite is reported as such and checked no further
	// (its --hw is not compared with the roster's).
	about(t, RuleExternalJob, RuleMissingJob, RuleJobName, RuleHW)
	testFixtures(t, []fixtureCase{
		{"external-job", "external-job/runs-an-external-suite", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			prYML + "10:3: error: job 'unit' runs suite 'ext'; stage and suite names are one set, so name the job ext [job-name]",
			prYML + "16:41: error: suite ext is external: another repository's workflow runs it, so no job here may (" + ".miles-ci.yaml) [external-job]",
		}},
	})
}
