package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each slip duplicate-job reports, each in a fixture of its own under
// testdata/rules/duplicate-job/ (the small workflow with one edit), at its place
// in that fixture.
func TestDuplicateJob_ReportedOnTheLaterJob(t *testing.T) {
	about(t, RuleDuplicateJob, RuleJobName)
	testFixtures(t, []fixtureCase{
		{"duplicate-job on the later job", "duplicate-job/later-job", []string{
			prYML + "32:3: error: job 'unit2' runs suite unit, which job 'unit' (.github/workflows/pr-test.yml:10) runs already; a suite has exactly one stage job [duplicate-job]",
			prYML + "32:3: error: job 'unit2' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
		}},
	})
}

// A job that plans its suite, then runs it, is one job of that suite.
func TestDuplicateJob_TwoCommandsOfOneJobAreOneStageJob(t *testing.T) {
	about(t, RuleDuplicateJob, RuleJobName)
	assert.Empty(t, lintFixture(t, "duplicate-job/two-commands", nil))
}
