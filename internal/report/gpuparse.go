package report

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// NvidiaComputeAppsArgs are the arguments ParseNvidiaComputeApps expects
// nvidia-smi's output of.
var NvidiaComputeAppsArgs = []string{"--query-compute-apps=pid,process_name,gpu_uuid,used_memory", "--format=csv,noheader"}

// ParseNvidiaComputeApps parses the output of nvidia-smi with
// NvidiaComputeAppsArgs: one line per process holding a GPU context, "pid,
// name, gpu_uuid, used_memory", the memory as "N MiB" or "[N/A]" (a
// container cannot see it; read as 0). A process name may itself hold a
// comma, so the fields are taken from both ends. No line is no process.
func ParseNvidiaComputeApps(out string) ([]ForeignProcess, error) {
	var procs []ForeignProcess
	for n, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" || strings.HasPrefix(line, "No running processes") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 4 {
			return nil, fmt.Errorf("line %d: %d fields, expected 4: %q", n+1, len(f), line)
		}
		last := len(f) - 1
		pid, err := strconv.Atoi(strings.TrimSpace(f[0]))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("line %d: pid %q is not a number: %q", n+1, strings.TrimSpace(f[0]), line)
		}
		mem, err := parseMiB(strings.TrimSpace(f[last]))
		if err != nil {
			return nil, fmt.Errorf("line %d: %v: %q", n+1, err, line)
		}
		procs = append(procs, ForeignProcess{PID: pid, Name: strings.TrimSpace(strings.Join(f[1:last-1], ",")),
			GPU: strings.TrimSpace(f[last-1]), UsedMiB: mem})
	}
	return procs, nil
}

// AmdSMIStaticArgs are the arguments ParseAmdSMIStatic expects amd-smi's
// output of: the ASIC (for the name), the driver and the VRAM of every
// GPU, as JSON.
var AmdSMIStaticArgs = []string{"static", "--asic", "--driver", "--vram", "--json"}

// AmdSMIProcessArgs are the arguments ParseAmdSMIProcess expects amd-smi's
// output of.
var AmdSMIProcessArgs = []string{"process", "--json"}

// amdSMIGPUs reads the list of per-GPU objects amd-smi prints with --json:
// a top-level list in the releases of ROCm 6, an object whose "gpu_data"
// holds the list in later ones.
func amdSMIGPUs(out string) ([]map[string]json.RawMessage, error) {
	var list []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &list); err == nil {
		return list, nil
	}
	var doc struct {
		GPUData *[]map[string]json.RawMessage `json:"gpu_data"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("not a JSON list or object: %v", err)
	}
	if doc.GPUData == nil {
		return nil, fmt.Errorf(`a JSON object without "gpu_data"`)
	}
	return *doc.GPUData, nil
}

// amdSMIIndex is the "gpu" index of one of amd-smi's per-GPU objects.
func amdSMIIndex(g map[string]json.RawMessage, n int) (int, error) {
	var idx int
	if err := json.Unmarshal(g["gpu"], &idx); err != nil || idx < 0 {
		return 0, fmt.Errorf("entry %d: no \"gpu\" index", n+1)
	}
	return idx, nil
}

// ParseAmdSMIStatic parses the output of amd-smi with AmdSMIStaticArgs
// (either shape amd-smi has printed, see amdSMIGPUs): per GPU its index
// ("gpu"), its name (asic.market_name), its memory (vram.size, {"value",
// "unit"} or "N MB") and its driver (driver.version). amd-smi lists no
// UUID there; it is left "". No GPU listed is an error.
func ParseAmdSMIStatic(out string) ([]GPU, error) {
	list, err := amdSMIGPUs(out)
	if err != nil {
		return nil, err
	}
	var gpus []GPU
	for n, g := range list {
		idx, err := amdSMIIndex(g, n)
		if err != nil {
			return nil, err
		}
		var asic struct {
			MarketName string `json:"market_name"`
		}
		var driver struct {
			Version string `json:"version"`
		}
		var vram struct {
			Size json.RawMessage `json:"size"`
		}
		// Each part is "N/A" (a string) where the tool could not read it.
		_ = json.Unmarshal(g["asic"], &asic)
		_ = json.Unmarshal(g["driver"], &driver)
		_ = json.Unmarshal(g["vram"], &vram)
		gpu := GPU{Index: idx, Name: naEmpty(asic.MarketName), Driver: naEmpty(driver.Version)}
		if b, ok := amdSMIBytes(vram.Size, "MB"); ok {
			gpu.MemoryMiB = int(b >> 20)
		}
		gpus = append(gpus, gpu)
	}
	if len(gpus) == 0 {
		return nil, fmt.Errorf("no GPU listed")
	}
	sort.Slice(gpus, func(i, j int) bool { return gpus[i].Index < gpus[j].Index })
	return gpus, nil
}

// ParseAmdSMIProcess parses the output of amd-smi with AmdSMIProcessArgs:
// per GPU a "process_list" whose entries hold a "process_info" object
// (name, pid, and the memory as memory_usage.vram_mem, else mem_usage),
// or the sentence "No running processes detected". The GPU of a process
// is its index, amd-smi naming none by UUID here.
func ParseAmdSMIProcess(out string) ([]ForeignProcess, error) {
	list, err := amdSMIGPUs(out)
	if err != nil {
		return nil, err
	}
	var procs []ForeignProcess
	for n, g := range list {
		idx, err := amdSMIIndex(g, n)
		if err != nil {
			return nil, err
		}
		var entries []map[string]json.RawMessage
		if raw, ok := g["process_list"]; ok {
			if err := json.Unmarshal(raw, &entries); err != nil {
				return nil, fmt.Errorf("entry %d: process_list is not a list", n+1)
			}
		}
		for _, e := range entries {
			raw, ok := e["process_info"]
			if !ok {
				continue
			}
			var info struct {
				Name        string          `json:"name"`
				PID         int             `json:"pid"`
				MemUsage    json.RawMessage `json:"mem_usage"`
				MemoryUsage struct {
					VRAM json.RawMessage `json:"vram_mem"`
				} `json:"memory_usage"`
			}
			if json.Unmarshal(raw, &info) != nil || info.PID <= 0 {
				continue // "No running processes detected"
			}
			p := ForeignProcess{PID: info.PID, Name: info.Name, GPU: strconv.Itoa(idx)}
			b, ok := amdSMIBytes(info.MemoryUsage.VRAM, "B")
			if !ok {
				b, _ = amdSMIBytes(info.MemUsage, "B")
			}
			p.UsedMiB = int(b >> 20)
			procs = append(procs, p)
		}
	}
	return procs, nil
}

// naEmpty is s, or "" for amd-smi's "N/A".
func naEmpty(s string) string {
	if s == "N/A" {
		return ""
	}
	return s
}

// amdSMIBytes reads an amount amd-smi printed as {"value": N, "unit": U},
// as "N U", or as a bare number in unit bare; ok is false for "N/A" or
// anything else.
func amdSMIBytes(raw json.RawMessage, bare string) (uint64, bool) {
	var v struct {
		Value json.Number `json:"value"`
		Unit  string      `json:"unit"`
	}
	var s string
	var num json.Number
	switch {
	case json.Unmarshal(raw, &v) == nil && v.Value != "":
	case json.Unmarshal(raw, &s) == nil:
		f := strings.Fields(s)
		if len(f) != 2 {
			return 0, false
		}
		v.Value, v.Unit = json.Number(f[0]), f[1]
	case json.Unmarshal(raw, &num) == nil:
		v.Value, v.Unit = num, bare
	default:
		return 0, false
	}
	x, err := v.Value.Float64()
	if err != nil || x < 0 || math.IsInf(x, 0) {
		return 0, false
	}
	scale := map[string]float64{"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40,
		"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}[v.Unit]
	if scale == 0 || x*scale > 1<<62 {
		return 0, false
	}
	return uint64(x * scale), true
}
