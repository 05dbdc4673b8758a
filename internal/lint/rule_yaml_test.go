package lint

import (
	"strings"
	"testing"
)

// Each slip yaml reports, each in a fixture of its own under
// testdata/rules/yaml/ (the small workflow with one edit), at its place
// in that fixture.
func TestYAML_ShapesGitHubActionsRefuses(t *testing.T) {
	// missing-job and orphan-registration too: the suites and registrations
	// of a workflow GitHub refuses are not reported as well.
	about(t, RuleYAML, RuleMissingJob, RuleOrphan)
	testFixtures(t, []fixtureCase{
		{"yaml", "yaml/invalid", []string{
			prYML + "2:1: error: the workflow is not valid YAML: did not find expected node content [yaml]",
		}},
		{"yaml duplicate key", "yaml/duplicate-key", []string{
			prYML + `32:3: error: the key "unit" is defined twice in one mapping (lines 10 and 32); GitHub Actions refuses the workflow [yaml]`,
		}},
		// Shapes GitHub Actions refuses: the rules read nothing more of the
		// workflow, so its suites are not reported missing as well.
		{"yaml empty", "yaml/empty", []string{
			prYML + "1:1: error: the workflow is empty; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml a list", "yaml/list", []string{
			prYML + "1:1: error: the workflow is a list, not a mapping of keys such as on: and jobs:; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml no jobs", "yaml/no-jobs", []string{
			prYML + "1:1: error: the workflow has no jobs: key; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml jobs a number", "yaml/jobs-a-number", []string{
			prYML + "4:7: error: jobs: is the scalar '5', not a mapping of job ids to jobs; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml only a document marker", "yaml/only-a-document-marker", []string{
			prYML + "1:1: error: the workflow is empty; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml no job", "yaml/no-job", []string{
			prYML + "4:7: error: jobs: holds no job; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml no trigger", "yaml/no-trigger", []string{
			prYML + "1:1: error: the workflow has no on: key, so no event triggers it; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml a long scalar job", "yaml/long-scalar-job", []string{
			prYML + "10:10: error: job 'other' is the scalar '" + strings.Repeat("x", 40) + "'…, not a mapping of keys such as runs-on: and steps:; GitHub Actions refuses the workflow [yaml]",
		}},
		{"yaml a job a number", "yaml/job-a-number", []string{
			prYML + "10:10: error: job 'other' is the scalar '5', not a mapping of keys such as runs-on: and steps:; GitHub Actions refuses the workflow [yaml]",
		}},
	})
}
