package history

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stored setup no job can have had (negative, NaN, over a day, as rows
// an older miles-ci wrote may hold) counts its run as unknown, whichever
// store the row came from, and never reaches the suggestion.
func TestSetupAnswer_AnImplausibleSetupIsUnknown(t *testing.T) {
	var a SetupAnswer
	start := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	for i, setup := range []float64{90, -5, math.NaN(), 86400.001, 9223372036.855, 86400} {
		s := setup
		require.NoError(t, a.Add(&Row{Run: Run{RunID: string(rune('a' + i)), Started: start, Suite: "stage-x", Backend: "cuda", Setup: &s}}))
	}
	suites := a.Suites()
	require.Len(t, suites, 1)
	s := suites[0]
	assert.Equal(t, 2, s.Jobs, "90 s and exactly a day")
	assert.Equal(t, 4, s.Unknown)
	assert.Equal(t, 86400.0, s.Max)
}
