package lint

import "testing"

// Each slip unknown-suite reports, each in a fixture of its own under
// testdata/rules/unknown-suite/ (the small workflow with one edit), at its place
// in that fixture.
func TestUnknownSuite_EachSlipAndTheSuiteMeant(t *testing.T) {
	// job-name too: a typo is offered the suite meant, and the job is never
	// told to take the typo's name.
	about(t, RuleUnknownSuite, RuleMissingJob, RuleJobName)
	testFixtures(t, []fixtureCase{
		{"unknown-suite as an expression", "unknown-suite/expression", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			prYML + "16:41: error: --suite is the expression ${{ matrix.suite }}; write the suite's name so the job can be checked against the roster [unknown-suite]",
		}},
		// A mistyped suite is offered the suite meant, and the job is not
		// told to take the typo's name.
		{"unknown-suite: a typo", "unknown-suite/typo", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			prYML + "16:41: error: suite 'units' is not in the roster (.miles-ci.yaml); did you mean unit? [unknown-suite]",
		}},
		// A suite of another backend is never offered: the job's own
		// name is.
		{"unknown-suite: a typo of another backend's suite", "unknown-suite/other-backend", []string{
			prYML + "4:1: error: no job runs suite gpu, so its registration never runs: add a job gpu running miles-ci run --hw cuda --suite gpu [missing-job]",
			prYML + "28:59: error: suite 'unit2' is not in the roster (.miles-ci.yaml); did you mean gpu, the job's own name? [unknown-suite]",
		}},
		{"unknown-suite: nothing near, the job's name is a suite", "unknown-suite/job-name-is-a-suite", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			prYML + "16:41: error: suite 'tests-on-cpu' is not in the roster (.miles-ci.yaml); did you mean unit, the job's own name? [unknown-suite]",
		}},
		{"unknown-suite: nothing near at all", "unknown-suite/nothing-near", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			prYML + "16:41: error: suite 'tests-on-cpu' is not in the roster (.miles-ci.yaml); known suites: unit, gpu, ext [unknown-suite]",
		}},
	})
}
