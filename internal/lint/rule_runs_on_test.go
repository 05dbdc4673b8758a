package lint

import "testing"

// Each slip runs-on reports, each in a fixture of its own under
// testdata/rules/runs-on/ (the small workflow with one edit), at its place
// in that fixture.
func TestRunsOn_TheRostersLabels(t *testing.T) {
	about(t, RuleRunsOn)
	testFixtures(t, []fixtureCase{
		{"runs-on as a list", "runs-on/list", []string{
			prYML + "25:5: error: runs-on is [\"gpu\"] but the roster has [\"gpu\",\"2x\"] for gpu (.miles-ci.yaml) [runs-on]",
		}},
	})
}

// A job that calls a reusable workflow lands where its runs_on input says,
// else on the runs-on of the called workflow's single job (each fixture a
// directory of workflows).
func TestRunsOn_WhereAJobLands(t *testing.T) {
	about(t, RuleRunsOn)
	testFixtures(t, []fixtureCase{
		{"the single job of a local reusable workflow", "runs-on/reusable", nil},
		{"a wrong label there is reported on uses:", "runs-on/reusable-wrong-label", []string{
			prYML + "12:5: error: the runs-on of .github/workflows/_cpu.yml is [\"self-hosted\",\"cpu\"] but the roster has [\"ubuntu-latest\"] for unit (.miles-ci.yaml) [runs-on]"}},
		{"runs_on input wins", "runs-on/runs-on-input", nil},
		{"runs_on as an expression", "runs-on/runs-on-expression", []string{
			prYML + "14:7: error: runs_on is the expression ${{ needs.plan.outputs.runs_on }}, so lint cannot tell where the job lands; write the labels; the roster has [\"ubuntu-latest\"] for unit [runs-on]"}},
		{"a reusable workflow of another repository", "runs-on/other-repository", []string{
			prYML + "12:5: error: the job calls org/repo/.github/workflows/ci.yml@v1, whose runners lint cannot see; pass runs_on or call a workflow of this repository; the roster has [\"ubuntu-latest\"] for unit [runs-on]"}},
	})
}
