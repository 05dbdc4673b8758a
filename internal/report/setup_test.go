package report

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStamp_UTCToTheMillisecond(t *testing.T) {
	at := time.Date(2026, 12, 2, 9, 23, 59, 123456789, time.FixedZone("CET", 3600))
	assert.Equal(t, "2026-12-02T08:23:59.123Z", Stamp(at))
	assert.Equal(t, "2026-12-02T08:23:59.000Z", Stamp(time.Date(2026, 12, 2, 8, 23, 59, 0, time.UTC)))
}

func TestSetupSeconds_FromTheJobsStartToTheFirstTest(t *testing.T) {
	for _, tc := range []struct {
		job, first string
		want       float64
		ok         bool
	}{
		{"2026-12-02T08:20:00.000Z", "2026-12-02T08:24:12.345Z", 252.345, true},
		{"2026-12-02T08:20:00Z", "2026-12-02T08:20:00.000Z", 0, true},
		{"2026-12-02T09:20:00+01:00", "2026-12-02T08:21:00.5Z", 60.5, true},
		{"", "2026-12-02T08:24:12.345Z", 0, false},                         // the job's start unknown
		{"2026-12-02T08:20:00.000Z", "", 0, false},                         // no test ran
		{"2026-12-02T08:25:00.000Z", "2026-12-02T08:24:12.345Z", 0, false}, // a clock that disagrees
		{"soon", "2026-12-02T08:24:12.345Z", 0, false},
		// No job spends more than a day (MaxSetup) before its first test.
		{"2026-12-01T08:24:12.345Z", "2026-12-02T08:24:12.345Z", 86400, true},
		{"2026-12-01T08:24:12.344Z", "2026-12-02T08:24:12.345Z", 0, false},
		{"0001-01-01T00:00:00Z", "2026-12-02T08:24:12.345Z", 0, false},
	} {
		got, ok := SetupSeconds(&Report{JobStarted: tc.job, FirstTestStarted: tc.first})
		assert.Equal(t, tc.ok, ok, "%s → %s", tc.job, tc.first)
		assert.Equal(t, tc.want, got, "%s → %s", tc.job, tc.first)
	}
}

// TestParse_TheStartsAreAlwaysWrittenAndAMergeHasNone: the two keys are in
// every report written, empty when unknown; a merge of shards, whose jobs
// each started on their own, has neither; a report from before them reads
// as empty.
func TestParse_TheStartsAreAlwaysWrittenAndAMergeHasNone(t *testing.T) {
	shard := func(id int) *Report {
		r := &Report{Suite: "s", Backend: "cuda", Partition: &Partition{ID: id, Size: 2},
			JobStarted: "2026-12-02T08:20:00.000Z", FirstTestStarted: "2026-12-02T08:24:12.345Z",
			Files: []File{{File: "a.py", Status: Pass, Attempts: 1}}}
		r.Finish()
		return r
	}
	data, err := Marshal(shard(0))
	require.NoError(t, err)
	assert.Contains(t, string(data), `"first_test_started": "2026-12-02T08:24:12.345Z",`)
	back, err := Parse(data)
	require.NoError(t, err)
	assert.Equal(t, "2026-12-02T08:20:00.000Z", back.JobStarted)

	m, err := Merge(shard(0), shard(1))
	require.NoError(t, err)
	data, err = Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"first_test_started": "",`)
	assert.Contains(t, string(data), `"job_started": "",`)

	old, err := Parse([]byte(`{"version": 1, "suite": "s", "backend": "cuda", "partition": null, "passed": true, "files": []}`))
	require.NoError(t, err)
	assert.Empty(t, old.FirstTestStarted)
	_, ok := SetupSeconds(old)
	assert.False(t, ok)
}
