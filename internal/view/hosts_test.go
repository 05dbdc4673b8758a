package view

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
)

func TestHosts_NoSuspectSaysSo(t *testing.T) {
	a := hostcheck.New(hostcheck.DefaultMinContradicted)
	a.Add(hostcheck.Row{Host: hostcheck.Host{Hostname: "box"}, Job: hostcheck.Job{Suite: "s", Source: "r.json"},
		File: "a.py", Attempt: 1, Status: report.Pass})
	a.Add(hostcheck.Row{Host: hostcheck.Host{Runner: "r1", Hostname: "ct"}, Job: hostcheck.Job{RunID: "9", Suite: "s"},
		File: "a.py", Attempt: 1, Status: report.Fail, Cause: report.CauseTest})
	var out bytes.Buffer
	require.NoError(t, Hosts(&out, a.Result()))
	assert.Equal(t, `RUN  ATTEMPT  SUITE  SHARD  SHA  HOST  RESULT
-    -        s      -      -    box   1/1 passed
9    -        s      -      -    r1    0/1 passed, 1 failed

HOST  HOSTNAMES  JOBS  FILES RUN  PASSED  FAILED  INFRA  CONTRADICTED
box   box        1     1          1       0       0      0
r1    ct         1     1          0       1       0      0

Verdict: no suspect host among 2 hosts
`, out.String())
}
