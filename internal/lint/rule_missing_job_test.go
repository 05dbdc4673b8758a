package lint

import "testing"

// A suite of the roster with no job in its workflow is reported on that
// workflow's jobs: key, saying how many registrations never run and where
// a job for it stands elsewhere.
func TestMissingJob_OnTheJobsKey(t *testing.T) {
	about(t, RuleMissingJob)
	testFixtures(t, []fixtureCase{
		{"no job runs the suite", "missing-job/no-job", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
		}},
		{"a job in another workflow runs it", "missing-job/in-another-workflow", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit " +
				"(job 'unit' in .github/workflows/ci.yml runs it, but the roster puts the suite in pr-test.yml) [missing-job]",
		}},
	})
}
