package lint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Two versions pinned in one repository: each pin of the one fewer pins
// give is reported, naming the other; a tie goes to the action's.
func TestInstallVersion_OneVersionPerRepository(t *testing.T) {
	about(t, RuleInstallVersion, RuleNoInstall)
	inline := func(version string) string {
		return checkout + "      - env: {MILES_CI_VERSION: " + version + "}\n        run: go install github.com/radixark/miles-ci/cmd/miles-ci@$MILES_CI_VERSION\n      - run: miles-ci lint\n"
	}
	action := strings.Replace(setupActionYAML, "MILES_CI_VERSION: v0.5.0", "MILES_CI_VERSION: v0.6.0", 1)
	require.NotEqual(t, setupActionYAML, action)

	assert.Empty(t, lintJob(t, inline("v0.5.0"), nil), "the action's version")
	assert.Empty(t, lintJob(t, inline("'${{ vars.MILES_CI_VERSION }}'"), map[string]string{setupActionFile: action}), "an expression pins nothing")

	// Where the action pins its version, found by anchor text.
	pin := setupActionFile + ":" + anchorPlace(t, action, "", "v0.6.0")

	// One action pin against one workflow pin: the action's wins.
	assert.Equal(t, []string{
		".github/workflows/ci.yml:7:33: error: MILES_CI_VERSION is 'v0.5.0' here but 'v0.6.0' at " + placeLine(pin) + " (1 of the 2 pins), " +
			"so jobs install two versions of miles-ci: write v0.6.0, or install with the one step `uses: ./.github/actions/setup-miles-ci` [install-version]",
	}, lintJob(t, inline("v0.5.0"), map[string]string{setupActionFile: action}))

	// Two workflow pins against the action's: the action is reported.
	wf := "on: push\njobs:\n  other:\n    runs-on: ubuntu-latest\n    env:\n      MILES_CI_VERSION: v0.5.0\n    steps:\n      - run: go install github.com/radixark/miles-ci/cmd/miles-ci@$MILES_CI_VERSION\n"
	got := lintSmall(t, map[string]string{"pr-test.yml": smallWorkflow, "ci.yml": "on: push\njobs:\n  lint:\n    runs-on: ubuntu-latest\n    steps:\n" + inline("v0.5.0"), "other.yml": wf},
		withFiles(map[string]string{setupActionFile: action}))
	assert.Equal(t, []string{
		pin + ": error: MILES_CI_VERSION is 'v0.6.0' here but 'v0.5.0' at .github/workflows/ci.yml:7 (2 of the 3 pins), " +
			"so jobs install two versions of miles-ci: write v0.5.0, or install with the one step `uses: ./.github/actions/setup-miles-ci` [install-version]",
	}, got)
}
