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

// previous is a report of stage-c-8-gpu-h100 on cuda listing files with
// statuses, Passed as Finish decides it.
func previous(files map[string]report.Status, order ...string) *report.Report {
	r := &report.Report{Suite: "stage-c-8-gpu-h100", Backend: "cuda", Files: []report.File{}}
	for _, f := range order {
		r.Files = append(r.Files, report.File{File: f, Status: files[f]})
	}
	r.Finish()
	return r
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

	shard1 := previous(map[string]report.Status{b: report.Pass, c: report.Fail}, b, c)
	in = rerunInputs(t, 1, shard1)
	in.Timings = moved
	p, err := Select(config.Default(), regs(), in)
	require.NoError(t, err)
	assert.Equal(t, []string{c}, files(p.Tests))
	assert.Equal(t, &Rerun{Count: 1, Total: 2, Elsewhere: 1}, p.Rerun)

	shard0 := previous(map[string]report.Status{a: report.Pass}, a)
	in = rerunInputs(t, 0, shard0)
	in.Timings = moved
	p, err = Select(config.Default(), regs(), in)
	require.NoError(t, err)
	assert.Empty(t, p.Tests, "its report passed")
	assert.Equal(t, &Rerun{Count: 0, Total: 1}, p.Rerun)
}

// TestRerun_ThePolicyDoesNotNarrowIt: the report is what the earlier run
// ran; a rerun whose labels leave a failed file out still reruns it.
func TestRerun_ThePolicyDoesNotNarrowIt(t *testing.T) {
	const b = "tests/e2e/test_b.py"
	prev := previous(map[string]report.Status{b: report.Fail}, b)
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
	allPassedButFailed := previous(map[string]report.Status{a: report.Pass}, a)
	allPassedButFailed.Passed = false
	tests := []struct {
		name string
		prev *report.Report
		id   int
		want string
	}{
		{"a failed file no longer registered", previous(map[string]report.Status{a: report.Pass, "tests/e2e/gone.py": report.Fail}, a, "tests/e2e/gone.py"), 0,
			`shows "tests/e2e/gone.py" did not pass, but it is no longer registered in suite stage-c-8-gpu-h100; rerun the whole shard without --rerun-failed`},
		{"a failed file disabled since", previous(map[string]report.Status{d: report.Timeout}, d), 0,
			`shows "tests/e2e/test_d.py" did not pass, but it is disabled in suite stage-c-8-gpu-h100 ("flaky"); rerun the whole shard without --rerun-failed`},
		{"a failed file of another suite", previous(map[string]report.Status{"tests/e2e/test_e.py": report.Fail}, "tests/e2e/test_e.py"), 0,
			`shows "tests/e2e/test_e.py" did not pass, but it is no longer registered in suite stage-c-8-gpu-h100`},
		{"a passed report listing no file", previous(nil), 0,
			`lists no file, but this run selects 1; is it the report of another shard? Rerun without --rerun-failed`},
		{"a failed report listing no file", func() *report.Report { r := previous(nil); r.Interrupted = true; r.Finish(); return r }(), 1,
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
		Policy: resolve(t, policy.Regular, false), ID: AllShards, Previous: previous(nil)})
	require.NoError(t, err)
	assert.Empty(t, p.Tests)
	assert.Equal(t, &Rerun{}, p.Rerun)
}

// TestRerun_RunsInTheReportsOrder: the files run again in the order they
// ran before, not the registry's.
func TestRerun_RunsInTheReportsOrder(t *testing.T) {
	const a, c = "tests/e2e/test_a.py", "tests/e2e/test_c.py"
	prev := previous(map[string]report.Status{c: report.Fail, a: report.NotRun}, c, a)
	p, err := Select(config.Default(), regs(), rerunInputs(t, AllShards, prev))
	require.NoError(t, err)
	assert.Equal(t, []string{c, a}, files(p.Tests))
}
