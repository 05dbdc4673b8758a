package view

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/shard"
	"github.com/radixark/miles-ci/internal/suite"
)

func TestSeconds_RoundsHalfToEvenLikePython(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.5, "0"}, {1.5, "2"}, {2.5, "2"}, {3.5, "4"}, {2.675, "3"}, {0.49999999999999994, "0"},
		{1e22, "10000000000000000000000"}, {math.Inf(1), "inf"}, {math.NaN(), "nan"}, {0, "0"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Seconds(tt.in), "%v", tt.in)
	}
}

func TestPolicyLine_IsPythonsReprOfThePolicy(t *testing.T) {
	assert.Equal(t, "Policy: cadence='nightly' bypass_fastfail=True include_labels=['a', \"b'c\"]",
		PolicyLine(policy.Policy{Cadence: "nightly", Bypass: true, IncludeLabels: []string{"a", "b'c"}}))
	assert.Equal(t, "Policy: cadence='regular' bypass_fastfail=False include_labels=[]",
		PolicyLine(policy.Policy{Cadence: "regular"}))
}

func strp(s string) *string { return &s }

func TestPlan_Exactly(t *testing.T) {
	tests := []struct {
		name string
		plan suite.Plan
		want string
	}{
		{
			name: "skipped and enabled, partitioned",
			plan: suite.Plan{
				Backend: config.ROCM, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "weekly"}, ContinueOnError: true,
				Size: 3, ID: 2, Shards: []shard.Shard{{ID: 2}},
				Skipped: []registry.Registration{
					{File: "a.py", Disabled: strp("")},
					{File: "b.py", Disabled: strp("broken")},
				},
				Tests: []registry.Registration{
					{File: "c.py", EstTime: 1.5},
					{File: "d.py", EstTime: 1, Implicit: true},
				},
			},
			want: "\n" + rule + "\n" +
				"Hardware: ROCM  Suite: s  Cadence: weekly  Continue on error: True  Partition: 3/3 (0-based id=2)\n" +
				rule + "\n" +
				"Skipped 2 test(s):\n  - a.py (reason: disabled)\n  - b.py (reason: broken)\n\n" +
				"Enabled 2 test(s) (est total 2s):\n  - c.py (est_time=1.5s)\n  - d.py (est_time=1.0s) [implicit]\n\n",
		},
		{
			name: "nothing enabled",
			plan: suite.Plan{Backend: config.CPU, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"}},
			want: "\n" + rule + "\n" +
				"Hardware: CPU  Suite: s  Cadence: regular  Continue on error: False  Partition: full\n" +
				rule + "\n" +
				"No tests found for hw=CPU, suite=s, cadence=regular\n" +
				"This is expected during incremental migration. Skipping.\n\n",
		},
		{
			name: "a rerun after the timings line",
			plan: suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"},
				Size: 2, Shards: []shard.Shard{{ID: 0}}, Basis: &suite.Basis{Path: "t.json", Measured: 1, Total: 4},
				Rerun: &suite.Rerun{Path: "r.json", Count: 1, Total: 2},
				Tests: []registry.Registration{{File: "b.py", EstTime: 2}}},
			want: "\n" + rule + "\n" +
				"Hardware: CUDA  Suite: s  Cadence: regular  Continue on error: False  Partition: 1/2 (0-based id=0)\n" +
				rule + "\n" +
				"Sharded by measured timings from t.json (1 of 4 files measured)\n" +
				"Rerunning the 1 of 2 file(s) listed in r.json that did not pass\n" +
				"Enabled 1 test(s) (est total 2s):\n  - b.py (est_time=2.0s)\n\n",
		},
		{
			name: "a rerun of files today's split moved to another shard",
			plan: suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"},
				Size: 2, ID: 1, Shards: []shard.Shard{{ID: 1}},
				Rerun: &suite.Rerun{Path: "r.json", Count: 2, Total: 3, Elsewhere: 1},
				Tests: []registry.Registration{{File: "a.py", EstTime: 1}, {File: "b.py", EstTime: 2}}},
			want: "\n" + rule + "\n" +
				"Hardware: CUDA  Suite: s  Cadence: regular  Continue on error: False  Partition: 2/2 (0-based id=1)\n" +
				rule + "\n" +
				"Rerunning the 2 of 3 file(s) listed in r.json that did not pass (1 now in another shard, rerun here all the same)\n" +
				"Enabled 2 test(s) (est total 3s):\n  - a.py (est_time=1.0s)\n  - b.py (est_time=2.0s)\n\n",
		},
		{
			name: "a rerun with nothing to rerun",
			plan: suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"},
				Rerun: &suite.Rerun{Path: "r.json", Count: 0, Total: 2}},
			want: "\n" + rule + "\n" +
				"Hardware: CUDA  Suite: s  Cadence: regular  Continue on error: False  Partition: full\n" +
				rule + "\n" +
				"Rerunning the 0 of 2 file(s) listed in r.json that did not pass\n" +
				"Nothing to rerun: every file r.json lists passed\n\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, Plan(&b, &tt.plan, nil))
			assert.Equal(t, tt.want, b.String())
		})
	}
}

func TestPlanJSON_NeverWritesNullLists(t *testing.T) {
	p := suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"},
		Tests: []registry.Registration{{File: "a.py", Backend: config.CUDA, Suite: "s", EstTime: 2}}}
	var b bytes.Buffer
	require.NoError(t, PlanJSON(&b, &p, nil))
	assert.JSONEq(t, `{"hw":"cuda","suite":"s","policy":{"cadence":"regular","include_labels":[],
		"admit_nightly_tests":false,"bypass_fastfail":false,"write_baseline":false},"continue_on_error":false,
		"partition":null,"enabled":[{"file":"a.py","backend":"cuda","suite":"s","est_time":2,"labels":[],
		"nightly":false,"disabled":null,"implicit":false}],"skipped":[]}`, b.String())
}

// TestWriteText_DisabledReasonsStayOnTheirLine: a disabled reason is text
// a test file chooses, and a line break in it must not start a line of its
// own (a forged "::error" workflow command) in the plan or the partition
// view; a tab, like any other reason, prints as Python prints it.
func TestPlanAndPartition_DisabledReasonsStayOnTheirLine(t *testing.T) {
	skipped := []registry.Registration{
		{File: "a.py", Disabled: strp("flaky\n::error title=X::y\r\n::warning::z")},
		{File: "b.py", Disabled: strp("see\tissue")},
	}
	const want = "  - a.py (reason: flaky\\n::error title=X::y\\r\\n::warning::z)\n  - b.py (reason: see\tissue)\n"
	var b bytes.Buffer
	p := suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"}, Skipped: skipped}
	require.NoError(t, Plan(&b, &p, nil))
	assert.Contains(t, b.String(), want)
	for _, line := range strings.Split(b.String(), "\n") {
		assert.False(t, strings.HasPrefix(line, "::"), "%q", line)
	}

	b.Reset()
	v := suite.Plan{Suite: config.Suite{Name: "s"}, Size: 1, Shards: make([]shard.Shard, 1), Skipped: skipped}
	require.NoError(t, Partition(&b, &v, nil))
	assert.Contains(t, b.String(), want)
	for _, line := range strings.Split(b.String(), "\n") {
		assert.False(t, strings.HasPrefix(line, "::"), "%q", line)
	}
}

func TestPlanJSON_RerunKeyOnlyWithRerunFailed(t *testing.T) {
	p := suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"}}
	var b bytes.Buffer
	require.NoError(t, PlanJSON(&b, &p, nil))
	assert.NotContains(t, b.String(), `"rerun"`)

	p.Rerun = &suite.Rerun{Path: "r.json", Count: 1, Total: 3}
	b.Reset()
	require.NoError(t, PlanJSON(&b, &p, nil))
	assert.Contains(t, b.String(), `"rerun":{"report":"r.json","rerun":1,"total":3,"elsewhere":0,"plan_changed":false}`)
}

func TestPlan_ARerunOnAnotherPlanSaysEachShardRerunsItsOwn(t *testing.T) {
	p := suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Policy: policy.Policy{Cadence: "regular"},
		Rerun: &suite.Rerun{Path: "r.json", Count: 1, Total: 3, PlanChanged: true}}
	var b bytes.Buffer
	require.NoError(t, Plan(&b, &p, nil))
	assert.Contains(t, b.String(), "Rerunning the 1 of 3 file(s) listed in r.json that did not pass\n"+
		"Its plan is not today's: tests moved between shards since, and each shard reruns what its own report lists\n")
}

func TestPartitionJSON_HasTheSpecKeys(t *testing.T) {
	shards, err := shard.Partition([]registry.Registration{{File: "a.py", EstTime: 0.1}, {File: "b.py", EstTime: 0.2}}, 2)
	require.NoError(t, err)
	v := suite.Plan{Suite: config.Suite{Name: "s"}, Size: 2, Shards: shards}
	var b bytes.Buffer
	require.NoError(t, PartitionJSON(&b, &v))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b.Bytes(), &doc))
	assert.Equal(t, "s", doc["suite"])
	assert.Equal(t, 2.0, doc["size"])
	got := doc["shards"].([]any)
	require.Len(t, got, 2)
	assert.Equal(t, 0.2, got[0].(map[string]any)["est_total"])
	assert.Equal(t, "b.py", got[0].(map[string]any)["tests"].([]any)[0].(map[string]any)["file"])
}

func TestComputeStats_MakespanAndImbalance(t *testing.T) {
	st := ComputeStats([]shard.Shard{{EstTotal: 30}, {EstTotal: 10}})
	assert.Equal(t, Stats{Total: 40, Makespan: 30, Mean: 20, Imbalance: 1.5}, st)
	assert.Equal(t, 0.0, ComputeStats([]shard.Shard{{}, {}}).Imbalance)
}

func TestPartitionJSON_InfiniteEstTimeStaysValidJSON(t *testing.T) {
	inf := registry.Registration{File: "tests/e2e/test_inf.py", Backend: config.CUDA, Suite: "s", EstTime: math.Inf(1), Labels: []string{"a"}}
	v := &suite.Plan{Backend: config.CUDA, Suite: config.Suite{Name: "s"}, Size: 1,
		Shards: []shard.Shard{{ID: 0, Tests: []registry.Registration{inf}, EstTotal: math.Inf(1)}}}
	var out bytes.Buffer
	require.NoError(t, PartitionJSON(&out, v), "an est_time of 1e999 is legal Python and must not fail the command")
	assert.True(t, json.Valid(out.Bytes()), out.String())
	assert.Contains(t, out.String(), `"est_total":1e999`)
	assert.Contains(t, out.String(), `"est_time":1e999`)
}
