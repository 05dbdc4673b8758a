package lint

import "testing"

// Each slip repeated-flag reports, each in a fixture of its own under
// testdata/rules/repeated-flag/ (the small workflow with one edit), at its place
// in that fixture.
func TestRepeatedFlag_TheEarlierOneIsReported(t *testing.T) {
	// And the rules that would report the earlier flag's value, had they
	// read it (the rules read the last, as argparse does).
	about(t, RuleRepeatedFlag, RuleMissingJob, RuleUnknownSuite, RuleExternalJob, RuleJobName, RuleHW, RuleShards, RulePolicyInputs)
	testFixtures(t, []fixtureCase{
		// argparse keeps the last of a repeated flag; so do the rules, and
		// the earlier one is a warning.
		{"repeated-flag: --suite twice, the last wins", "repeated-flag/suite-twice", []string{
			prYML + "16:33: warning: --suite is given again later in the command (--suite unit) and the runner keeps the last, so this --suite ext is ignored: give --suite once [repeated-flag]",
		}},
		{"repeated-flag: the last is read", "repeated-flag/last-is-read", []string{
			prYML + "4:1: error: no job runs suite unit, so its registration never runs: add a job unit running miles-ci run --hw cpu --suite unit [missing-job]",
			prYML + "16:33: warning: --suite is given again later in the command (--suite=units) and the runner keeps the last, so this --suite unit is ignored: give --suite once [repeated-flag]",
			prYML + "16:46: error: suite 'units' is not in the roster (.miles-ci.yaml); did you mean unit? [unknown-suite]",
		}},
		{"repeated-flag: a list flag and a value flag", "repeated-flag/list-and-value-flag", []string{
			prYML + "29:58: warning: --auto-partition-size is given again later in the command (--auto-partition-size 2) and the runner keeps the last, so this --auto-partition-size 3 is ignored: give --auto-partition-size once [repeated-flag]",
			prYML + "30:11: warning: --labels is given again later in the command (--labels ${{ needs.policy.outputs.raw_labels }}) and the runner keeps the last, so this --labels a b is ignored: give --labels once [repeated-flag]",
		}},
	})
}
