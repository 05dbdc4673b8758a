package view

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/triage"
)

// Each verdict's evidence as one sentence.
func TestTriageEvidence_OneSentencePerVerdict(t *testing.T) {
	for _, tc := range []struct {
		e    triage.Evidence
		want string
	}{
		{triage.InfraEvidence{Attempt: 2, Fingerprint: "cuda-802", Line: "CUDA error 802"}, "attempt 2 matched infra fingerprint cuda-802: CUDA error 802"},
		{triage.InfraEvidence{HostNotReady: true, Preflight: "4 of 8 GPUs"}, "the GPU preflight then found the host not ready: 4 of 8 GPUs"},
		{triage.InfraEvidence{Attempt: 1}, "attempt 1 failed with cause infra"},
		{triage.HostEvidence{Host: "gpu-3", Why: []string{"1 infra failure (nccl ×1)", "2 failed files passed on gpu-1 at the same commit"}},
			"host gpu-3 is suspect: 1 infra failure (nccl ×1); 2 failed files passed on gpu-1 at the same commit"},
		{triage.QuarantineEvidence{Reason: "flaky", Until: "2027-01-31"}, "quarantined until 2027-01-31: flaky"},
		{triage.FlakyEvidence{Rate: 0.25, Runs: 8, Failures: 2, PassedAtCommit: true}, "25.0% of 8 runs (2 failed, 0 passed on a retry); passed at this commit"},
		{triage.BrokenEvidence{FailedRuns: 1, LatestRun: "7", LatestSHA: "0123456789abc", LatestStarted: "2026-11-30T02:00:00.000Z"},
			"failed the latest run on the default branch: run 7 at 012345678 (2026-11-30)"},
		{triage.BrokenEvidence{FailedRuns: 3, SinceStarted: "2026-11-28T02:00:00.000Z"}, "failed the latest 3 runs on the default branch, since a local run (2026-11-28)"},
		{triage.NewEvidence{History: true}, "nothing else explains it: most likely this change"},
		{triage.NewEvidence{}, "no infra cause, not quarantined: most likely this change"},
	} {
		assert.Equal(t, tc.want, TriageEvidence(tc.e))
	}
}

// Names and reasons from a report reach the table, the JSON and the step
// summary inert.
func TestTriage_HostileTextStaysInert(t *testing.T) {
	var fails []triage.Failure
	for _, h := range hostile {
		fails = append(fails, triage.Failure{File: h, Suite: "s", Status: report.Fail, Verdict: triage.Quarantined,
			Evidence: triage.QuarantineEvidence{Reason: h, Until: "2027-01-31"}})
	}
	fails = append(fails, triage.Failure{File: "::error::forged", Suite: "s", Status: report.Fail, Verdict: triage.New, Evidence: triage.NewEvidence{}})
	md := TriageSection(fails, 30, nil)
	assertInert(t, md, 0)
	assert.Equal(t, len(fails)+2, strings.Count(md, "\n"), "a line per file:\n%s", md)
	assertInert(t, TriageSection(nil, 30, errors.New(hostile[0])), 0)

	var out bytes.Buffer
	require.NoError(t, Triage(&out, fails, 1, false))
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		assert.False(t, strings.HasPrefix(line, "::"), "a line starts a workflow command: %q", line)
	}
	assert.Equal(t, len(fails)+2, strings.Count(out.String(), "\n"), "a line per file:\n%s", out.String())

	out.Reset()
	require.NoError(t, TriageJSON(&out, fails))
	assert.Equal(t, 1, strings.Count(out.String(), "\n"))
}
