package report

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseNvidiaSMI(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      []GPU
		err       string
	}{
		{name: "two H100s",
			out: "0, GPU-aaaa-1111, NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15\n" +
				"1, GPU-bbbb-2222, NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15\n",
			want: []GPU{{Index: 0, UUID: "GPU-aaaa-1111", Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559, Driver: "550.54.15"},
				{Index: 1, UUID: "GPU-bbbb-2222", Name: "NVIDIA H100 80GB HBM3", MemoryMiB: 81559, Driver: "550.54.15"}}},
		{name: "a comma in the name, CRLF, no final newline",
			out:  "3, GPU-c, Odd, Name, 1024 MiB, 535.1\r",
			want: []GPU{{Index: 3, UUID: "GPU-c", Name: "Odd, Name", MemoryMiB: 1024, Driver: "535.1"}}},
		{name: "memory not available",
			out:  "0, GPU-d, NVIDIA GB200, [N/A], 570.1\n",
			want: []GPU{{Index: 0, UUID: "GPU-d", Name: "NVIDIA GB200", MemoryMiB: 0, Driver: "570.1"}}},
		{name: "nothing listed", out: "\n\n", err: "no GPU listed"},
		{name: "an error message instead of a list",
			out: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n", err: "line 1: 1 fields"},
		{name: "index not a number", out: "x, GPU-e, N, 1 MiB, 1\n", err: `index "x"`},
		{name: "memory without unit", out: "0, GPU-e, N, 1024, 1\n", err: `memory "1024" is not N MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseNvidiaSMI(tc.out)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseRocmSMI(t *testing.T) {
	got, err := ParseRocmSMI(`{"card1": {"Card Series": "AMD Instinct MI300X", "Unique ID": "0x2"},
		"card0": {"Card series": "AMD Instinct MI300X", "Unique ID": "0x1"}, "system": {"Driver version": "6.8"}}`)
	require.NoError(t, err)
	assert.Equal(t, []GPU{{Index: 0, UUID: "0x1", Name: "AMD Instinct MI300X"}, {Index: 1, UUID: "0x2", Name: "AMD Instinct MI300X"}}, got)

	_, err = ParseRocmSMI(`{"system": {}}`)
	assert.EqualError(t, err, "no GPU listed")
	_, err = ParseRocmSMI("ERROR: GPU[0] : something went wrong")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a JSON object")
}

func TestPRNumber(t *testing.T) {
	n := func(v int) *int { return &v }
	for ref, want := range map[string]*int{
		"refs/pull/2542/merge": n(2542), "refs/pull/7/head": n(7), "refs/heads/main": nil,
		"refs/pull/x/merge": nil, "refs/pull/12": nil, "refs/pull/012/merge": nil, "refs/pull/0/merge": nil, "": nil,
	} {
		assert.Equal(t, want, PRNumber(ref), ref)
	}
}

func TestMerge_KeepsEveryShardsHost(t *testing.T) {
	shard := func(id int, runner string) *Report {
		r := &Report{Suite: "s", Backend: "cuda", Partition: &Partition{ID: id, Size: 2},
			Host:  &Host{Runner: runner, Hostname: runner + ".local"},
			Files: []File{{File: runner + ".py", Status: Pass, Attempts: 1}}}
		r.Finish()
		return r
	}
	m, err := Merge(shard(0, "novita-host2"), shard(1, "novita-host4"))
	require.NoError(t, err)
	data, err := Marshal(m)
	require.NoError(t, err)
	back, err := Parse(data)
	require.NoError(t, err)
	assert.Nil(t, back.Host)
	require.Len(t, back.Hosts, 2)
	assert.Equal(t, "novita-host2", back.Hosts[0].Runner)
	assert.Equal(t, "novita-host4", back.Hosts[1].Runner)

	// A merge of merges keeps the list.
	again, err := Merge(back)
	require.NoError(t, err)
	assert.Equal(t, back.Hosts, again.Hosts)
}

func TestMarshalJUnit_TheSuiteCarriesItsHostAsProperties(t *testing.T) {
	pr := 2542
	r := &Report{Suite: "s", Backend: "cuda", Host: &Host{Runner: "novita-host2", Hostname: "box<7>", PR: &pr,
		GpuTool: "nvidia-smi", Gpus: []GPU{{Index: 0, UUID: "GPU-1", Name: "NVIDIA H100", MemoryMiB: 81559, Driver: "550.54.15"}}},
		Files: []File{{File: "a.py", Status: Pass, Attempts: 1}}}
	r.Finish()
	data, err := MarshalJUnit(r)
	require.NoError(t, err)
	var doc struct {
		Suites []struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	got := map[string]string{}
	for _, p := range doc.Suites[0].Props {
		got[p.Name] = p.Value
	}
	assert.Equal(t, map[string]string{"miles-ci.host.runner": "novita-host2", "miles-ci.host.hostname": "box<7>",
		"miles-ci.host.pr": "2542", "miles-ci.host.gpu_tool": "nvidia-smi",
		"miles-ci.host.gpu.0": "NVIDIA H100, GPU-1, 81559 MiB, driver 550.54.15"}, got)

	// Every key of the host is one, as help reports says: the workflow
	// and the event too (once left out).
	r.Host = &Host{Runner: "r", Hostname: "h", Repository: "o/r", RunID: "1", RunAttempt: "2", Workflow: "PR Test",
		Event: "pull_request", Job: "gpu", SHA: "5f1e", PR: &pr, Image: "img:1", GpuTool: "nvidia-smi", GpusError: "none"}
	data, err = MarshalJUnit(r)
	require.NoError(t, err)
	doc.Suites = nil
	require.NoError(t, xml.Unmarshal(data, &doc))
	var names []string
	for _, p := range doc.Suites[0].Props {
		names = append(names, strings.TrimPrefix(p.Name, "miles-ci.host."))
	}
	assert.Equal(t, []string{"runner", "hostname", "repository", "run_id", "run_attempt", "workflow", "event", "job", "sha", "pr",
		"image", "gpu_tool", "gpus_error"}, names, "the JSON report's host keys, in its order")

	r.Host = nil
	data, err = MarshalJUnit(r)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "<properties", "a report without a host has no properties")
}
