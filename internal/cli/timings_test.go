package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runTimings measures two of stage-c-8-gpu-h100's files far from their
// est_time, and one file of no suite.
const runTimings = "testdata/run/timings.json"

func TestTimingsFlag_Parses(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"run, full name", []string{"--hw", "cuda", "--suite", "s", "--timings", "t.json"}, "t.json"},
		{"run, with =", []string{"--hw", "cuda", "--suite", "s", "--timings=t.json"}, "t.json"},
		{"run, unique prefix of the two timings flags is --timings-out", []string{"--hw", "cuda", "--suite", "s", "--timings-o", "t.json"}, ""},
		{"run, absent", []string{"--hw", "cuda", "--suite", "s"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseRun(t, tt.args...)
			require.NoError(t, err)
			assert.Equal(t, tt.want, o.Timings)
		})
	}

	o, err := parsePartition(t, "--suite", "s", "--timings", "t.json")
	require.NoError(t, err)
	assert.Equal(t, "t.json", o.Timings)
	// partition has no other flag starting with t.
	o, err = parsePartition(t, "--suite", "s", "--t", "t.json")
	require.NoError(t, err)
	assert.Equal(t, "t.json", o.Timings)
}

// TestTimingsFlag_KeepsRunSuiteAbbreviations checks that adding --timings
// changes none of the abbreviations run_suite.py accepts: its own flags are
// matched first, so every prefix of --timeout-per-file stays that flag.
func TestTimingsFlag_KeepsRunSuiteAbbreviations(t *testing.T) {
	for _, prefix := range []string{"--t", "--ti", "--tim", "--time", "--timeout"} {
		t.Run(prefix, func(t *testing.T) {
			o, err := parseRun(t, "--hw", "cuda", "--suite", "s", prefix, "7")
			require.NoError(t, err)
			assert.Equal(t, 7, o.TimeoutPerFile)
			assert.Empty(t, o.Timings)
		})
	}
	// Past run_suite.py's flags, a prefix of both miles-ci flags is
	// ambiguous, as argparse would say.
	_, err := parseRun(t, "--hw", "cuda", "--suite", "s", "--timi", "x")
	var ue *UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "ambiguous option: --timi could match --timings, --timings-out", ue.Msg)
}

func TestTimings_Golden(t *testing.T) {
	tests := []struct {
		dir, golden string
		args        []string
	}{
		{"partition", "cuda-weekly-timings.golden", []string{"--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--size", "3", "--timings", runTimings}},
		{"partition", "cuda-weekly-timings-json.golden", []string{"--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--size", "2", "--timings", runTimings, "--json"}},
		{"partition", "cuda-weekly-timings-id0-files.golden", []string{"--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--size", "3", "--id", "0", "--timings", runTimings}},
		{"run", "cuda-weekly-timings-0of3.golden", []string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--auto-partition-id", "0", "--auto-partition-size", "3", "--timings", runTimings}},
		{"run", "cuda-weekly-timings-2of3-json.golden", []string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--auto-partition-id", "2", "--auto-partition-size", "3", "--timings", runTimings, "--json"}},
		{"run", "cuda-weekly-timings-full.golden", []string{"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--timings", runTimings}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			f, out, errOut := suitesFactory(runRepo, nil)
			if tt.dir == "run" {
				opts, err := parseRun(t, append(tt.args[1:], "--list-only")...)
				require.NoError(t, err)
				require.NoError(t, runRun(context.Background(), f, opts))
			} else {
				opts, err := parsePartition(t, tt.args...)
				require.NoError(t, err)
				require.NoError(t, partitionRun(context.Background(), f, opts))
			}
			assertGolden(t, tt.dir, tt.golden, out.String()+"--- stderr\n"+errOut.String())
		})
	}
}

// TestTimings_EveryShardJobAgreesWithPartition runs each shard of a suite as
// its own job would, with the same timings file, and checks that the shards
// are those partition shows: disjoint, covering the suite, and balanced on
// the measured times.
func TestTimings_EveryShardJobAgreesWithPartition(t *testing.T) {
	const size = 3
	f, out, _ := suitesFactory(runRepo, nil)
	po, err := parsePartition(t, "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly", "--size", fmt.Sprint(size), "--timings", runTimings, "--json")
	require.NoError(t, err)
	require.NoError(t, partitionRun(context.Background(), f, po))
	var view struct {
		Basis struct {
			Kind     string `json:"kind"`
			Timings  string `json:"timings"`
			Measured int    `json:"measured"`
			Total    int    `json:"total"`
		} `json:"basis"`
		Shards []struct {
			EstTotal   float64                 `json:"est_total"`
			TimedTotal float64                 `json:"timed_total"`
			Tests      []struct{ File string } `json:"tests"`
		} `json:"shards"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &view))
	assert.Equal(t, "measured", view.Basis.Kind)
	assert.Equal(t, runTimings, view.Basis.Timings)
	assert.Equal(t, 2, view.Basis.Measured)
	assert.Equal(t, 6, view.Basis.Total)
	require.Len(t, view.Shards, size)
	// The measured 900.5 s file is alone on the first shard; the 1800 s
	// est_time file that measured 300 s no longer is.
	assert.Equal(t, []struct{ File string }{{"tests/e2e/misc/test_lora_é.py"}}, view.Shards[0].Tests)
	assert.Equal(t, 900.5, view.Shards[0].TimedTotal)
	assert.Equal(t, 120.5, view.Shards[0].EstTotal)

	for id := range size {
		f, out, _ := suitesFactory(runRepo, nil)
		ro, err := parseRun(t, "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly",
			"--auto-partition-id", fmt.Sprint(id), "--auto-partition-size", fmt.Sprint(size), "--timings", runTimings, "--list-only", "--json")
		require.NoError(t, err)
		require.NoError(t, runRun(context.Background(), f, ro))
		var plan struct {
			Enabled []struct{ File string } `json:"enabled"`
		}
		require.NoError(t, json.Unmarshal(out.Bytes(), &plan))
		assert.Equal(t, view.Shards[id].Tests, plan.Enabled, "shard %d", id)
	}
}

// TestTimings_EmptyFileGivesTheDefaultShards: a timings file that measures
// none of the suite's files shards exactly as without --timings.
func TestTimings_EmptyFileGivesTheDefaultShards(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(`{"version": 1, "timings": {"elsewhere.py": 5}}`), 0o644))
	for id := range 3 {
		args := []string{"--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--cadence", "weekly",
			"--auto-partition-id", fmt.Sprint(id), "--auto-partition-size", "3", "--list-only", "--json"}
		f, want, _ := suitesFactory(runRepo, nil)
		ro, err := parseRun(t, args...)
		require.NoError(t, err)
		require.NoError(t, runRun(context.Background(), f, ro))

		f, got, _ := suitesFactory(runRepo, nil)
		ro, err = parseRun(t, append(args, "--timings", empty)...)
		require.NoError(t, err)
		require.NoError(t, runRun(context.Background(), f, ro))

		var w, g map[string]any
		require.NoError(t, json.Unmarshal(want.Bytes(), &w))
		require.NoError(t, json.Unmarshal(got.Bytes(), &g))
		assert.Equal(t, map[string]any{"kind": "measured", "timings": empty, "measured": 0.0, "total": 6.0}, g["basis"])
		delete(g, "basis")
		assert.Equal(t, w, g, "shard %d", id)
	}
}

// TestTimings_BadFileEndToEnd runs the whole command: a timings file that
// cannot be used is one error line naming the file and the problem, exit 1.
func TestTimings_BadFileEndToEnd(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(dir, "missing.json"), "open: no such file or directory"},
		{"not JSON", write("trunc.json", `{"version": 1,`), "invalid JSON: unexpected end of JSON input"},
		{"unknown version", write("v2.json", `{"version": 2, "timings": {}}`), "unsupported version 2; expected 1"},
		{"negative", write("neg.json", `{"version": 1, "timings": {"a.py": -3}}`), `timing of "a.py" is negative (-3); expected seconds >= 0`},
		{"not a number", write("str.json", `{"version": 1, "timings": {"a.py": "3"}}`), `timing of "a.py" is a JSON string; expected seconds`},
	}
	commands := map[string][]string{
		"run sharded":   {"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--auto-partition-id", "0", "--auto-partition-size", "2", "--list-only"},
		"run unsharded": {"run", "--hw", "cuda", "--suite", "stage-c-8-gpu-h100", "--list-only", "--json"},
		"partition":     {"partition", "--suite", "stage-c-8-gpu-h100"},
	}
	for _, tt := range tests {
		for cname, argv := range commands {
			t.Run(tt.name+"/"+cname, func(t *testing.T) {
				f, _, errOut := suitesFactory(runRepo, nil)
				code := Main(append(append([]string{"--root", runRepo}, argv...), "--timings", tt.path), f)
				assert.Equal(t, exitFailure, code)
				assert.Equal(t, fmt.Sprintf("error: read timings %q: %s\n", tt.path, tt.want), errOut.String())
			})
		}
	}
}

func TestSuitesTimings_Golden(t *testing.T) {
	tests := []struct {
		golden string
		argv   []string
		code   int
	}{
		{"timings-detail.golden", []string{"suites", "--suite", "stage-c-8-gpu-h100", "--timings", runTimings}, exitOK},
		{"timings-roster.golden", []string{"suites", "--timings", runTimings}, exitOK},
		{"timings-json.golden", []string{"suites", "--timings", runTimings, "--json"}, exitUsage},
		{"timings-missing.golden", []string{"suites", "--timings", "testdata/run/no-such-timings.json"}, exitFailure},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			f, out, errOut := suitesFactory(runRepo, nil)
			assert.Equal(t, tt.code, Main(append([]string{"--root", runRepo}, tt.argv...), f))
			assertGolden(t, "suites", tt.golden, out.String()+"--- stderr\n"+errOut.String())
		})
	}
}
