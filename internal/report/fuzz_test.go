package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseGPUTools feeds the same text to every GPU tool parser: what a
// hung, half-written or hostile tool prints must give GPUs or an error,
// never a panic, and what is accepted must be storable in a report (valid
// numbers, text that survives a JSON round trip).
func FuzzParseGPUTools(f *testing.F) {
	for _, seed := range []string{
		"0, GPU-1b6a, NVIDIA H100 80GB HBM3, 81559 MiB, 550.54.15\n",
		"0, GPU-x, NVIDIA A100-SXM4-80GB, [N/A], 535.129.03\r\n1, GPU-y, name, with, commas, 1 MiB, 1\n",
		"4242, python3, GPU-1b6a, 70000 MiB\n",
		"No running processes found\n",
		`{"card0": {"Unique ID": "0x1", "Card Series": "AMD Instinct MI300X"}, "system": {}}`,
		`[{"gpu": 0, "asic": {"market_name": "MI300X", "asic_serial": "0x1"}, "vram": {"size": {"value": 196592, "unit": "MB"}}}]`,
		`{"gpu_data": [{"gpu": 1, "asic": {"market_name": "N/A"}}]}`,
		`[{"gpu": 0, "process_list": [{"process_info": {"name": "python3", "pid": 7, "mem_usage": {"value": 12, "unit": "MB"}}}]}]`,
		"Failed to initialize NVML: Unknown Error\n",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, out string) {
		gpuLists := []func(string) ([]GPU, error){ParseNvidiaSMI, ParseRocmSMI, ParseAmdSMIStatic}
		for _, parse := range gpuLists {
			gpus, err := parse(out)
			if err != nil {
				continue
			}
			if len(gpus) == 0 {
				t.Fatalf("no GPU and no error for %q", out)
			}
			for _, g := range gpus {
				if g.Index < 0 || g.MemoryMiB < 0 {
					t.Fatalf("GPU %+v from %q", g, out)
				}
			}
			checkStorable(t, gpus)
		}
		for _, parse := range []func(string) ([]ForeignProcess, error){ParseNvidiaComputeApps, ParseAmdSMIProcess} {
			procs, err := parse(out)
			if err != nil {
				continue
			}
			for _, p := range procs {
				if p.UsedMiB < 0 {
					t.Fatalf("process %+v from %q", p, out)
				}
			}
			checkStorable(t, procs)
		}
	})
}

// checkStorable fails unless v encodes to JSON (a NaN or infinite number
// would not): what a parser accepts lands in a report as it is.
func checkStorable(t *testing.T, v any) {
	t.Helper()
	if _, err := json.Marshal(v); err != nil {
		t.Fatalf("cannot encode %+v: %v", v, err)
	}
}

// FuzzReadReport feeds a report's reader what a downloaded artifact may
// hold: any bytes. It must answer with a report or an error, never panic;
// a report it accepts is written back (MarshalReadable) and read again to
// the same document, so report merge, report hosts and the history can
// all take it.
func FuzzReadReport(f *testing.F) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "docs", "hosts", "*", "*", "*.json"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no report of testdata/docs/hosts to seed from (%v)", err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"version": 1, "suite": "s", "backend": "cuda", "files": [{"file": "a.py", "status": "FAIL", "cause": "infra", "attempts": 1, "attempts_detail": [{"attempt": 1, "status": "FAIL", "cause": "infra", "cause_line": "Error 802", "fingerprint": "cuda-802"}]}]}`))
	f.Add([]byte(`{"version": 1, "suite": "s", "backend": "cuda", "partition": {"id": 0, "size": 2}, "host": {"runner": "r", "pr": 3}, "preflights": [{"when": "start", "status": "not ready"}], "host_not_ready": true, "files": []}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			return
		}
		out, err := MarshalReadable(r)
		if err != nil {
			return // sums beyond what a report may hold; refused, not panicked
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("a report written back does not read: %v\n%s", err, out)
		}
		out2, err := MarshalReadable(again)
		if err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("a report read back writes differently (%v):\n%s\n---\n%s", err, out, out2)
		}
	})
}
