package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The small repository with the quarantine of
// testdata/quarantine/expired.yaml (a configuration, not a workflow, so not under testdata/rules), linted on a given day:
// each entry past its until is a warning at its line of the configuration
// (the fixture's lines, after smallConfig's), and none before.
func TestQuarantineExpired_AnEntryPastItsUntilIsAWarningAtItsLine(t *testing.T) {
	about(t, RuleQuarantineExpired)
	fixture, err := os.ReadFile(filepath.Join("testdata", "quarantine", "expired.yaml"))
	require.NoError(t, err)
	cfg := smallConfig + string(fixture)
	// The fixture's lines follow smallConfig's: found by anchor text.
	lineOf := func(anchor string) int {
		before, _, ok := strings.Cut(cfg, anchor)
		require.True(t, ok, anchor)
		return strings.Count(before, "\n") + 1
	}
	gpu, unit := lineOf("- file: tests/test_gpu.py"), lineOf("- file: tests/test_unit.py")
	at := func(day string) []string {
		now, err := time.Parse(time.RFC3339, day)
		require.NoError(t, err)
		return findingLines(lintRepoResult(t, cfg, map[string]string{"pr-test.yml": smallWorkflow}, nil, Options{Now: func() time.Time { return now }}))
	}
	gpuExpired := fmt.Sprintf(".miles-ci.yaml:%d:5: warning: the quarantine of \"tests/test_gpu.py\" expired after 2027-01-31: it protects nothing, and the file's failures count again; delete the entry, or renew its until if the reason still holds [quarantine-expired]", gpu)
	unitExpired := fmt.Sprintf(".miles-ci.yaml:%d:5: warning: the quarantine of \"tests/test_unit.py\" expired after 2027-03-01: it protects nothing, and the file's failures count again; delete the entry, or renew its until if the reason still holds [quarantine-expired]", unit)
	assert.Equal(t, []string{}, at("2027-01-31T23:59:59Z"), "an entry protects through its until day")
	assert.Equal(t, []string{gpuExpired}, at("2027-02-01T00:00:00Z"))
	assert.Equal(t, []string{gpuExpired, unitExpired}, at("2027-06-01T12:00:00Z"))
}
