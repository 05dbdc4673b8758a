package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseNvidiaComputeApps_ReadsEveryLineAndNAMemory(t *testing.T) {
	procs, err := ParseNvidiaComputeApps("1234, /usr/bin/python3, GPU-a, 30512 MiB\n" +
		"99, sglang, scheduler, GPU-b, [N/A]\n\n")
	require.NoError(t, err)
	assert.Equal(t, []ForeignProcess{
		{PID: 1234, Name: "/usr/bin/python3", GPU: "GPU-a", UsedMiB: 30512},
		{PID: 99, Name: "sglang, scheduler", GPU: "GPU-b"}, // a container cannot see the memory
	}, procs)
	for _, none := range []string{"", "\n", "No running processes found\n"} {
		procs, err := ParseNvidiaComputeApps(none)
		require.NoError(t, err)
		assert.Empty(t, procs)
	}
	_, err = ParseNvidiaComputeApps("x, python3, GPU-a, 1 MiB\n")
	assert.EqualError(t, err, `line 1: pid "x" is not a number: "x, python3, GPU-a, 1 MiB"`)
}

func TestParseAmdSMIStatic_ReadsBothShapesAndNA(t *testing.T) {
	const gpu = `{"gpu": 1, "asic": {"market_name": "AMD Instinct MI300X"}, "driver": {"name": "amdgpu", "version": "6.8.5"}, "vram": {"size": {"value": 196592, "unit": "MB"}}}`
	const na = `{"gpu": 0, "asic": "N/A", "driver": {"version": "N/A"}, "vram": {"size": "N/A"}}`
	want := []GPU{{Index: 0}, {Index: 1, Name: "AMD Instinct MI300X", MemoryMiB: 196592, Driver: "6.8.5"}}
	for _, out := range []string{"[" + gpu + "," + na + "]", `{"gpu_data": [` + gpu + "," + na + `]}`} {
		gpus, err := ParseAmdSMIStatic(out)
		require.NoError(t, err, out)
		assert.Equal(t, want, gpus)
	}
	gpus, err := ParseAmdSMIStatic(`[{"gpu": 0, "vram": {"size": "192 GB"}}]`)
	require.NoError(t, err)
	assert.Equal(t, 192<<10, gpus[0].MemoryMiB)
	for out, msg := range map[string]string{
		"[]":              "no GPU listed",
		`{"cpu_data":[]}`: `a JSON object without "gpu_data"`,
		`[{"asic": {}}]`:  `entry 1: no "gpu" index`,
	} {
		_, err := ParseAmdSMIStatic(out)
		assert.EqualError(t, err, msg, out)
	}
}

func TestParseAmdSMIProcess_ReadsProcessesAndSkipsTheNoneSentence(t *testing.T) {
	procs, err := ParseAmdSMIProcess(`[{"gpu": 0, "process_list": [{"process_info": "No running processes detected"}]},
		{"gpu": 3, "process_list": [{"process_info": {"name": "python3", "pid": 5, "mem_usage": {"value": 2097152, "unit": "B"}}},
			{"process_info": {"name": "rvs", "pid": 6, "mem_usage": {"value": 0, "unit": "B"}, "memory_usage": {"vram_mem": {"value": 1, "unit": "GB"}}}}]}]`)
	require.NoError(t, err)
	assert.Equal(t, []ForeignProcess{{PID: 5, Name: "python3", GPU: "3", UsedMiB: 2}, {PID: 6, Name: "rvs", GPU: "3", UsedMiB: 1024}}, procs)
}
