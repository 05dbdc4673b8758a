package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func parsePartition(t *testing.T, args ...string) (*PartitionOptions, error) {
	t.Helper()
	f, _, _ := suitesFactory(".", nil)
	var got *PartitionOptions
	cmd := NewCmdPartition(f, func(o *PartitionOptions) error { got = o; return nil })
	// Never nil: cobra would parse the test binary's own arguments.
	cmd.SetArgs(append([]string{}, args...))
	cmd.SetOut(&bytes.Buffer{})
	cmd.SetErr(&bytes.Buffer{})
	err := cmd.Execute()
	return got, err
}

func TestNewCmdPartition_ParsesFlags(t *testing.T) {
	o, err := parsePartition(t, "--suite", "s", "--labels", "run-ci-a", "--size", "3", "--id", "2", "--json")
	require.NoError(t, err)
	assert.Equal(t, "", o.HW, "--hw is optional")
	assert.Equal(t, "regular", o.Cadence)
	assert.Equal(t, []string{"run-ci-a"}, o.Labels)
	assert.True(t, o.SizeSet)
	assert.Equal(t, 3, o.Size)
	assert.True(t, o.IDSet)
	assert.Equal(t, 2, o.ID)
	assert.True(t, o.JSON)

	o, err = parsePartition(t, "--suite", "s", "--auto-partition-size", "3", "--auto-partition-id", "2")
	require.NoError(t, err)
	assert.True(t, o.SizeSet, "run's spellings are accepted")
	assert.Equal(t, 3, o.Size)
	assert.True(t, o.IDSet)
	assert.Equal(t, 2, o.ID)

	o, err = parsePartition(t, "--suite", "s", "--nightly", "--labels")
	require.NoError(t, err)
	assert.Equal(t, "nightly", o.Cadence)
	assert.Empty(t, o.Labels)
	assert.False(t, o.SizeSet)
	assert.False(t, o.IDSet)
}

func TestNewCmdPartition_UsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no suite", nil, "the following arguments are required: --suite"},
		{"a mistyped flag comes before the flag it leaves missing", []string{"--sute", "X"}, "unrecognized arguments: --sute X"},
		{"size zero", []string{"--suite", "s", "--size", "0"}, "--size must be positive, got 0"},
		{"size beyond any matrix", []string{"--suite", "s", "--size", "1000000000"}, "--size must be at most 100000, got 1000000000"},
		{"negative id", []string{"--suite", "s", "--id", "-1"}, "--id must not be negative, got -1"},
		{"id out of range", []string{"--suite", "s", "--size", "2", "--id", "2"}, "--id must be in range [0, 2), but got 2"},
		{"run's size spelling", []string{"--suite", "s", "--auto-partition-size", "0"}, "--auto-partition-size must be positive, got 0"},
		{"run's id spelling", []string{"--suite", "s", "--size", "2", "--auto-partition-id", "2"}, "--auto-partition-id must be in range [0, 2), but got 2"},
		{"the last spelling wins", []string{"--suite", "s", "--auto-partition-size", "0", "--size", "-1"}, "--size must be positive, got -1"},
		{"a bad value names its spelling", []string{"--suite", "s", "--auto-partition-id", "x"}, "argument --auto-partition-id: invalid int value: 'x'"},
		{"both cadence flags", []string{"--suite", "s", "--cadence", "weekly", "--nightly"}, "argument --nightly: not allowed with argument --cadence"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parsePartition(t, tt.args...)
			var ue *UsageError
			require.ErrorAs(t, err, &ue)
			assert.Equal(t, tt.want, ue.Msg)
		})
	}
}

func TestPartition_Golden(t *testing.T) {
	tests := []struct {
		golden string
		args   []string
		err    string
	}{
		{"cuda-weekly-default-size.golden", []string{"--suite", "stage-c-8-gpu-h100", "--cadence", "weekly"}, ""},
		{"cuda-fsdp-size3.golden", []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--labels", "run-ci-fsdp", "--size", "3"}, ""},
		{"cpu-default-size.golden", []string{"--suite", "stage-a-cpu"}, ""},
		{"cuda-empty.golden", []string{"--suite", "stage-c-4-gpu-h200"}, ""},
		{"cuda-empty-id0-files.golden", []string{"--suite", "stage-c-4-gpu-h200", "--auto-partition-id", "0"}, "exit status 3"},
		{"cuda-labels-drop-all.golden", []string{"--suite", "stage-c-8-gpu-h100", "--labels", "run-ci-megatorn"}, ""},
		{"cuda-weekly-id1-files.golden", []string{"--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--id", "1"}, ""},
		{"cuda-weekly-id1-json.golden", []string{"--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--id", "1", "--json"}, ""},
		{"cuda-weekly-json.golden", []string{"--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--size", "3", "--json"}, ""},
		{"mismatched-hw.golden", []string{"--hw", "cpu", "--suite", "stage-c-8-gpu-h100"}, "Unknown suite stage-c-8-gpu-h100 for backend CPU"},
		{"unknown-suite.golden", []string{"--suite", "stage-x"}, "Unknown suite stage-x; known suites: stage-a-cpu, stage-b-cpu, stage-b-2-gpu-h200, stage-c-8-gpu-h100, stage-c-8-gpu-h200, stage-c-4-gpu-h200, stage-c-2-gpu-h200, stage-c-4-gpu-mi350, nightly-stage-c-8-gpu-mi350, nightly-stage-c-4-gpu-mi350, nightly-stage-c-2-gpu-mi350"},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			f, out, errOut := suitesFactory(runRepo, nil)
			opts, err := parsePartition(t, tt.args...)
			require.NoError(t, err)
			err = partitionRun(context.Background(), f, opts)
			if tt.err != "" {
				require.EqualError(t, err, tt.err)
			} else {
				require.NoError(t, err)
			}
			assertGolden(t, "partition", tt.golden, out.String()+"--- stderr\n"+errOut.String())
		})
	}
}

func TestPartition_IDBeyondTheDefaultSizeIsAUsageError(t *testing.T) {
	f, _, _ := suitesFactory(runRepo, nil)
	opts, err := parsePartition(t, "--suite", "stage-c-8-gpu-h100", "--id", "2")
	require.NoError(t, err)
	err = partitionRun(context.Background(), f, opts)
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, ue.Msg, "[0, 2)")
}

func TestPartition_JSONShardsAgreeWithRun(t *testing.T) {
	f, out, _ := suitesFactory(runRepo, nil)
	opts, err := parsePartition(t, "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--size", "3", "--json")
	require.NoError(t, err)
	require.NoError(t, partitionRun(context.Background(), f, opts))
	var view struct {
		Shards []struct {
			Tests []struct{ File string } `json:"tests"`
		} `json:"shards"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &view))
	require.Len(t, view.Shards, 3)

	for id, sh := range view.Shards {
		f, out, _ := suitesFactory(runRepo, nil)
		ro, err := parseRun(t, "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly",
			"--auto-partition-id", string(rune('0'+id)), "--auto-partition-size", "3", "--list-only", "--json")
		require.NoError(t, err)
		require.NoError(t, runRun(context.Background(), f, ro))
		var plan struct {
			Enabled []struct{ File string } `json:"enabled"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
		assert.Equal(t, sh.Tests, plan.Enabled, "shard %d", id)
	}
}
