package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quarantined is minimal with a quarantine of one entry.
const quarantined = minimal + `quarantine:
  - file: tests/test_x.py
    reason: https://github.com/o/r/issues/1
    owner: some-login
    until: 2027-01-31
    suites: [unit]
`

// lineOf is the line of the first occurrence of anchor in text.
func lineOf(t *testing.T, text, anchor string) int {
	t.Helper()
	before, _, ok := strings.Cut(text, anchor)
	require.True(t, ok, "no %q", anchor)
	return strings.Count(before, "\n") + 1
}

func TestParse_QuarantineEntry(t *testing.T) {
	c, err := Parse("ci.yaml", []byte(quarantined))
	require.NoError(t, err)
	require.Len(t, c.Quarantine, 1)
	e := c.Quarantine[0]
	assert.Equal(t, "tests/test_x.py", e.File)
	assert.Equal(t, "https://github.com/o/r/issues/1", e.Reason)
	assert.Equal(t, "some-login", e.Owner)
	assert.Equal(t, "2027-01-31", e.UntilText())
	assert.Equal(t, []string{"unit"}, e.Suites)
	assert.Equal(t, Pos{Line: lineOf(t, quarantined, "- file:"), Col: 5}, e.At)
	assert.Equal(t, lineOf(t, quarantined, "suites: [unit]"), e.SuitesAt.Line)
	assert.True(t, c.ObeysQuarantine("nightly"), "every cadence obeys it by default")
	assert.True(t, e.AppliesTo("tests/test_x.py", "unit"))
	assert.False(t, e.AppliesTo("tests/test_x.py", "other"))
	assert.False(t, e.AppliesTo("tests/test_y.py", "unit"))

	off, err := Parse("ci.yaml", []byte(quarantined+"quarantine_off: [nightly, weekly]\n"))
	require.NoError(t, err)
	assert.False(t, off.ObeysQuarantine("nightly"))
	assert.True(t, off.ObeysQuarantine("regular"))
}

// An entry protects through the end of its until day, in UTC.
func TestQuarantineEntry_ExpiresAfterItsUntilDay(t *testing.T) {
	e := QuarantineEntry{Until: time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)}
	for _, tc := range []struct {
		now     string
		expired bool
	}{
		{"2027-01-30T12:00:00Z", false},
		{"2027-01-31T23:59:59Z", false},
		{"2027-02-01T00:00:00Z", true},
		{"2027-01-31T20:00:00-05:00", true}, // 01:00 UTC on February 1
	} {
		now, err := time.Parse(time.RFC3339, tc.now)
		require.NoError(t, err)
		assert.Equal(t, tc.expired, e.Expired(now), tc.now)
	}
}

// Each slip in an entry is an error at its line; the lines are found by
// anchor text.
func TestParse_QuarantineErrorsNameTheirLine(t *testing.T) {
	cases := []struct {
		name, old, new, anchor, want string
	}{
		{"no reason", "    reason: https://github.com/o/r/issues/1\n", "", "- file:",
			`a quarantine entry needs reason (file, reason and until are required)`},
		{"no until", "    until: 2027-01-31\n", "", "- file:",
			`a quarantine entry needs until (file, reason and until are required)`},
		{"no file", "- file: tests/test_x.py\n    reason", "- reason", "- reason",
			`a quarantine entry needs file (file, reason and until are required)`},
		{"an empty reason", "reason: https://github.com/o/r/issues/1", `reason: ""`, "reason:",
			`the quarantine reason of "tests/test_x.py" is empty; give an issue's address or a sentence`},
		{"a reason with a line break", "reason: https://github.com/o/r/issues/1", `reason: "a\nb"`, "reason:",
			`quarantine reason "a\nb" holds the control character U+000A`},
		{"until not a date", "until: 2027-01-31", "until: next month", "until:",
			`the quarantine until of "tests/test_x.py" is "next month"; expected a date, as 2027-01-31 (the last day it protects)`},
		{"until not a day of the calendar", "until: 2027-01-31", "until: 2027-02-30", "until:",
			`the quarantine until of "tests/test_x.py" is "2027-02-30"`},
		{"a suite not in the roster", "suites: [unit]", "suites: [unit, gpu]", "suites: [unit, gpu]",
			`quarantine suite "gpu" of "tests/test_x.py" is not in the roster`},
		{"a path leaving the repository", "file: tests/test_x.py", "file: ../x.py", "file:",
			`quarantine file "../x.py" must be a repository-relative path`},
		{"an unknown key", "owner: some-login", "ownr: some-login", "ownr:",
			`unknown key "ownr" in a quarantine entry; expected one of file, reason, owner, until, suites`},
		{"not a list", "quarantine:\n  - file", "quarantine:\n  x:\n  - file", "  x:",
			`quarantine must be a list of entries`},
		{"the same file twice", "suites: [unit]\n", "suites: [unit]\n  - file: tests/test_x.py\n    reason: again\n    until: 2027-01-31\n", "- file: tests/test_x.py\n    reason: again",
			`"tests/test_x.py" is quarantined twice (also at line`},
		{"quarantine_off naming no cadence", "suites: [unit]\n", "suites: [unit]\nquarantine_off: [nighty]\n", "quarantine_off",
			`quarantine_off names cadence "nighty"; expected some of nightly, regular, release, weekly`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(quarantined, tc.old, tc.new, 1)
			require.NotEqual(t, quarantined, text)
			_, err := Parse("ci.yaml", []byte(text))
			require.Error(t, err)
			assert.Contains(t, err.Error(), fmt.Sprintf("ci.yaml:%d: %s", lineOf(t, text, tc.anchor), tc.want))
			assert.NotContains(t, err.Error(), "\n", "one line")
		})
	}
}
