package suite

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/timings"
)

// previous is a report of stage-c-8-gpu-h100 on cuda by shard id of 2
// (the whole suite for AllShards) on the est_time plan, listing files
// with statuses, Passed as Finish decides it.
func previous(id int, files map[string]report.Status, order ...string) *report.Report {
	r := &report.Report{Suite: "stage-c-8-gpu-h100", Backend: "cuda", Files: []report.File{}}
	if id != AllShards {
		r.Partition = &report.Partition{ID: id, Size: 2}
		r.Plan = estPlan()
	}
	for _, f := range order {
		r.Files = append(r.Files, report.File{File: f, Status: files[f]})
	}
	r.Finish()
	return r
}

// estPlan is the digest of the two shards rerunInputs splits into on
// est_time.
func estPlan() string {
	pol, _, err := policy.ForRun(config.Default(), policy.Regular, nil, true)
	if err != nil {
		panic(err)
	}
	p, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Policy: pol, Shards: 2, ID: AllShards})
	if err != nil {
		panic(err)
	}
	return p.Digest
}

// rerunInputs selects every label of stage-c-8-gpu-h100 (a 300, b 200,
// c 100 enabled; d disabled), in two shards: a | b c on est_time.
func rerunInputs(t *testing.T, id int, prev *report.Report) Inputs {
	return Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100", Policy: resolve(t, policy.Regular, true),
		Shards: 2, ID: id, Previous: prev}
}

// TestRerun_AFailedFileMovedToAnotherShardIsRerunWhereItsReportListsIt:
// newer timings moved test_c from shard 1 to shard 0; shard 1's report
// lists it as failed, so shard 1 reruns it, and shard 0 (whose report
// passed and does not list it) does not.
func TestRerun_AFailedFileMovedToAnotherShardIsRerunWhereItsReportListsIt(t *testing.T) {
	const a, b, c = "tests/e2e/test_a.py", "tests/e2e/test_b.py", "tests/e2e/test_c.py"
	moved := &Timings{Path: "t.json", Seconds: timings.Timings{c: 1000}}
	in := rerunInputs(t, 0, nil)
	in.Timings = moved
	today, err := Select(config.Default(), regs(), in)
	require.NoError(t, err)
	require.Equal(t, []string{c}, files(today.Tests), "the fixture: test_c is in shard 0 today")

	shard1 := previous(1, map[string]report.Status{b: report.Pass, c: report.Fail}, b, c)
	in = rerunInputs(t, 1, shard1)
	in.Timings = moved
	p, err := Select(config.Default(), regs(), in)
	require.NoError(t, err)
	assert.Equal(t, []string{c}, files(p.Tests))
	assert.Equal(t, &Rerun{Count: 1, Total: 2, Elsewhere: 1, PlanChanged: true}, p.Rerun)

	shard0 := previous(0, map[string]report.Status{a: report.Pass}, a)
	in = rerunInputs(t, 0, shard0)
	in.Timings = moved
	p, err = Select(config.Default(), regs(), in)
	require.NoError(t, err)
	assert.Empty(t, p.Tests, "its report passed")
	assert.Equal(t, &Rerun{Count: 0, Total: 1, PlanChanged: true}, p.Rerun)
}

// TestRerun_ThePolicyDoesNotNarrowIt: the report is what the earlier run
// ran; a rerun whose labels leave a failed file out still reruns it.
func TestRerun_ThePolicyDoesNotNarrowIt(t *testing.T) {
	const b = "tests/e2e/test_b.py"
	prev := previous(AllShards, map[string]report.Status{b: report.Fail}, b)
	p, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false, "run-ci-megatron"), ID: AllShards, Previous: prev})
	require.NoError(t, err)
	assert.Equal(t, []string{b}, files(p.Tests), "test_b is fsdp, the run's label megatron")
}

// TestRerun_NeverNothingAfterAFailure goes through every way a rerun could
// run nothing and exit 0 after a failure: each is an error naming the
// report.
func TestRerun_NeverNothingAfterAFailure(t *testing.T) {
	const a, d = "tests/e2e/test_a.py", "tests/e2e/test_d.py"
	withPath := func(r *report.Report) *report.Report {
		// The path is the reader's; Parse and Read set it.
		data, err := report.Marshal(r)
		require.NoError(t, err)
		dir := t.TempDir() + "/r.json"
		require.NoError(t, os.WriteFile(dir, data, 0o644))
		got, err := report.Read(dir)
		require.NoError(t, err)
		return got
	}
	allPassedButFailed := previous(0, map[string]report.Status{a: report.Pass}, a)
	allPassedButFailed.Passed = false
	tests := []struct {
		name string
		prev *report.Report
		id   int
		want string
	}{
		{"a failed file no longer registered", previous(0, map[string]report.Status{a: report.Pass, "tests/e2e/gone.py": report.Fail}, a, "tests/e2e/gone.py"), 0,
			`shows "tests/e2e/gone.py" did not pass, but it is no longer registered in suite stage-c-8-gpu-h100; rerun the whole shard without --rerun-failed`},
		{"a failed file disabled since", previous(0, map[string]report.Status{d: report.Timeout}, d), 0,
			`shows "tests/e2e/test_d.py" did not pass, but it is disabled in suite stage-c-8-gpu-h100 ("flaky"); rerun the whole shard without --rerun-failed`},
		{"a failed file of another suite", previous(0, map[string]report.Status{"tests/e2e/test_e.py": report.Fail}, "tests/e2e/test_e.py"), 0,
			`shows "tests/e2e/test_e.py" did not pass, but it is no longer registered in suite stage-c-8-gpu-h100`},
		{"a passed report listing no file", previous(0, nil), 0,
			`lists no file, but this run selects 1; is it the report of another shard? Rerun without --rerun-failed`},
		{"a failed report listing no file", func() *report.Report { r := previous(1, nil); r.Interrupted = true; r.Finish(); return r }(), 1,
			`lists no file but did not pass; rerun the whole shard without --rerun-failed`},
		{"a failed report whose every file passed", allPassedButFailed, 0,
			`did not pass but shows all 1 file(s) it lists passed; rerun the whole shard without --rerun-failed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := withPath(tt.prev)
			_, err := Select(config.Default(), regs(), rerunInputs(t, tt.id, prev))
			require.Error(t, err)
			assert.Contains(t, err.Error(), `report "`+prev.Path()+`" `)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestRerun_AnEmptyReportIsFineForAShardThatSelectsNothing(t *testing.T) {
	p, err := Select(config.Default(), regs(), Inputs{Backend: config.CUDA, Suite: "stage-c-8-gpu-h100",
		Policy: resolve(t, policy.Regular, false), ID: AllShards, Previous: previous(AllShards, nil)})
	require.NoError(t, err)
	assert.Empty(t, p.Tests)
	assert.Equal(t, &Rerun{}, p.Rerun)
}

// TestRerun_RunsInTheReportsOrder: the files run again in the order they
// ran before, not the registry's.
func TestRerun_RunsInTheReportsOrder(t *testing.T) {
	const a, c = "tests/e2e/test_a.py", "tests/e2e/test_c.py"
	prev := previous(AllShards, map[string]report.Status{c: report.Fail, a: report.NotRun}, c, a)
	p, err := Select(config.Default(), regs(), rerunInputs(t, AllShards, prev))
	require.NoError(t, err)
	assert.Equal(t, []string{c, a}, files(p.Tests))
}

// TestRerun_TakesOnlyAReportOfThisJob: a report of another shard, count,
// suite or kind would rerun the wrong tests, or none (shard 0's passing
// report once made shard 1's rerun say "Nothing to rerun" and pass); each
// is refused, naming the report, what differs and what to give.
func TestRerun_TakesOnlyAReportOfThisJob(t *testing.T) {
	const a, b, c = "tests/e2e/test_a.py", "tests/e2e/test_b.py", "tests/e2e/test_c.py"
	shard0 := previous(0, map[string]report.Status{a: report.Pass}, a)
	shard1 := previous(1, map[string]report.Status{b: report.Pass, c: report.Fail}, b, c)
	p, err := Select(config.Default(), regs(), rerunInputs(t, 1, shard1))
	require.NoError(t, err)
	assert.Equal(t, []string{c}, files(p.Tests))
	assert.Equal(t, &Rerun{Count: 1, Total: 2}, p.Rerun, "the same plan")

	ofThree := previous(1, map[string]report.Status{c: report.Fail}, c)
	ofThree.Partition.Size = 3
	whole := previous(AllShards, map[string]report.Status{c: report.Fail}, c)
	merged, err := report.Merge(shard0, shard1)
	require.NoError(t, err)
	lacking, err := report.Merge(shard0)
	require.NoError(t, err)
	require.Equal(t, []int{1}, lacking.Shards.Missing)
	other := previous(1, map[string]report.Status{c: report.Fail}, c)
	other.Suite = "stage-c-8-gpu-h200"
	unscoped, err := report.Parse([]byte(`{"version": 1, "suite": "stage-c-8-gpu-h100", "backend": "cuda", "passed": false, "interrupted": false, "elapsed": 1,
		"files": [{"file": "tests/e2e/test_c.py", "status": "FAIL"}]}`))
	require.NoError(t, err)
	const give = `: give the report of shard 1 of 2 of stage-c-8-gpu-h100, or rerun the whole shard without --rerun-failed`
	for _, tc := range []struct {
		name string
		prev *report.Report
		id   int
		want string
	}{
		{"another shard's", shard0, 1, `is of shard 0 of 2, but this run is shard 1 of 2` + give},
		{"another count's", ofThree, 1, `is of shard 1 of 3, but this run is shard 1 of 2` + give},
		{"the whole suite's", whole, 1, `is of the whole suite, but this run is shard 1 of 2` + give},
		{"a shard's for the whole suite", shard1, AllShards, `is of shard 1 of 2, but this run is of the whole suite: give the report this job wrote in its previous attempt`},
		{"a merge", merged, 1, `merges the reports of several shards, but this run is shard 1 of 2` + give},
		{"a merge that lacks a shard", lacking, AllShards, `lacks shard(s) 1 of 2, whose failures it cannot show`},
		{"another suite's", other, 1, `is of suite "stage-c-8-gpu-h200" (cuda), but this run is of "stage-c-8-gpu-h100" (cuda)` + give},
		{"one that does not say", unscoped, 1, `does not say which shard it covers (no "partition": an older miles-ci wrote it, or it merges such a report)` + give},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Select(config.Default(), regs(), rerunInputs(t, tc.id, tc.prev))
			var me *report.RerunMismatchError
			require.ErrorAs(t, err, &me)
			assert.Contains(t, err.Error(), tc.want)
		})
	}

	// A merge of every shard serves a run of the whole suite.
	p, err = Select(config.Default(), regs(), rerunInputs(t, AllShards, merged))
	require.NoError(t, err)
	assert.Equal(t, []string{c}, files(p.Tests))
}
