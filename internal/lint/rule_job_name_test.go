package lint

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Each slip job-name reports, each in a fixture of its own under
// testdata/rules/job-name/ (the small workflow with one edit), at its place
// in that fixture.
func TestJobName_TheJobIsNamedAfterItsSuite(t *testing.T) {
	about(t, RuleJobName)
	testFixtures(t, []fixtureCase{
		{"job-name", "job-name/renamed", []string{
			prYML + "10:3: error: job 'unit-tests' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
		}},
	})
}

// A job that runs its suite twice (plans it, then runs it) under another
// name is told its name once.
func TestJobName_TwoCommandsOfOneJobAreOneStageJob(t *testing.T) {
	about(t, RuleJobName)
	assert.Equal(t, []string{
		prYML + "10:3: error: job 'unit-job' runs suite 'unit'; stage and suite names are one set, so name the job unit [job-name]",
	}, lintFixture(t, "job-name/two-commands-renamed", nil))
}
