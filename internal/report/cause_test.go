package report

import (
	"encoding/xml"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const line802 = "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 802: system not yet initialized"

// An attempt with cause infra names the fingerprint and the line in its
// JUnit message, failed or flaky; a test failure's message stays the
// reason.
func TestMarshalJUnit_InfraFailuresNameTheirFingerprintAndLine(t *testing.T) {
	infra := Attempt{Attempt: 1, Status: Fail, ExitCode: intp(1), Reason: "exit code 1",
		Cause: CauseInfra, CauseLine: line802, Fingerprint: "cuda-802"}
	flaky := file("flaky.py", Pass, infra, Attempt{Attempt: 2, Status: Pass, ExitCode: intp(0)})
	broken := file("broken.py", Fail, infra)
	broken.Cause = CauseInfra
	plain := file("bad.py", Fail, Attempt{Attempt: 1, Status: Fail, ExitCode: intp(3), Reason: "exit code 3", Cause: CauseTest})
	data, err := MarshalJUnit(report("s", false, flaky, broken, plain))
	require.NoError(t, err)

	var doc struct {
		Cases []struct {
			Failure *struct {
				Message string `xml:"message,attr"`
			} `xml:"failure"`
			Flaky []struct {
				Message string `xml:"message,attr"`
			} `xml:"flakyFailure"`
		} `xml:"testsuite>testcase"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	require.Len(t, doc.Cases, 3)
	want := "exit code 1 (infra: cuda-802: " + line802 + ")"
	require.Len(t, doc.Cases[0].Flaky, 1)
	assert.Equal(t, want, doc.Cases[0].Flaky[0].Message)
	assert.Equal(t, want, doc.Cases[1].Failure.Message)
	assert.Equal(t, "exit code 3", doc.Cases[2].Failure.Message)
}
