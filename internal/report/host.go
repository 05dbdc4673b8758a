package report

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Host says where a run happened: the runner and machine, the workflow
// run it belonged to and, for a GPU suite, the GPUs the machine showed
// before the first test. Every value comes from the environment or a GPU
// tool and is recorded as found (it is data, never interpreted); a value
// that was not available is "" (PR: null). Gpus is null and GpusError
// says why when the GPU tool could not be asked or gave no answer.
type Host struct {
	Runner     string `json:"runner"`
	Hostname   string `json:"hostname"`
	Repository string `json:"repository"`
	RunID      string `json:"run_id"`
	RunAttempt string `json:"run_attempt"`
	// Workflow and Event are the workflow's name and the event that
	// started the run (GITHUB_WORKFLOW, GITHUB_EVENT_NAME).
	Workflow string `json:"workflow"`
	Event    string `json:"event"`
	Job      string `json:"job"`
	SHA      string `json:"sha"`
	PR       *int   `json:"pr"`
	Image    string `json:"image"`
	// GpuTool is the command asked ("nvidia-smi", "rocm-smi").
	GpuTool   string `json:"gpu_tool"`
	Gpus      []GPU  `json:"gpus"`
	GpusError string `json:"gpus_error"`
}

// Name names the machine as people find it: "RUNNER (HOSTNAME)", either
// alone when the other is unknown or the same, "" for a nil Host or one
// with neither.
func (h *Host) Name() string {
	if h == nil {
		return ""
	}
	switch {
	case h.Runner != "" && h.Hostname != "" && h.Runner != h.Hostname:
		return h.Runner + " (" + h.Hostname + ")"
	case h.Runner != "":
		return h.Runner
	}
	return h.Hostname
}

// GPU is one GPU as its tool listed it. MemoryMiB is 0 when the tool did
// not say; Driver is "" when it did not.
type GPU struct {
	Index     int    `json:"index"`
	UUID      string `json:"uuid"`
	Name      string `json:"name"`
	MemoryMiB int    `json:"memory_mib"`
	Driver    string `json:"driver"`
}

// PRNumber is the pull request a GITHUB_REF names (refs/pull/N/merge or
// refs/pull/N/head), nil for any other ref.
func PRNumber(ref string) *int {
	rest, ok := strings.CutPrefix(ref, "refs/pull/")
	if !ok {
		return nil
	}
	num, tail, ok := strings.Cut(rest, "/")
	if !ok || (tail != "merge" && tail != "head") {
		return nil
	}
	n, err := strconv.Atoi(num)
	if err != nil || n <= 0 || strconv.Itoa(n) != num {
		return nil
	}
	return &n
}

// NvidiaSMIArgs are the arguments ParseNvidiaSMI expects nvidia-smi's
// output of.
var NvidiaSMIArgs = []string{"--query-gpu=index,uuid,name,memory.total,driver_version", "--format=csv,noheader"}

// ParseNvidiaSMI parses the output of nvidia-smi with NvidiaSMIArgs: one
// line per GPU, "index, uuid, name, memory, driver", memory as "81559
// MiB" (or "[N/A]", read as 0). A GPU name may itself hold a comma, so
// the fields are taken from both ends. No GPU listed is an error: a tool
// that answers with nothing has not answered.
func ParseNvidiaSMI(out string) ([]GPU, error) {
	var gpus []GPU
	for n, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 5 {
			return nil, fmt.Errorf("line %d: %d fields, expected 5: %q", n+1, len(f), line)
		}
		last := len(f) - 1
		name := strings.TrimSpace(strings.Join(f[2:last-1], ","))
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		idx, err := strconv.Atoi(f[0])
		if err != nil || idx < 0 {
			return nil, fmt.Errorf("line %d: index %q is not a number: %q", n+1, f[0], line)
		}
		mem, err := parseMiB(f[last-1])
		if err != nil {
			return nil, fmt.Errorf("line %d: %v: %q", n+1, err, line)
		}
		gpus = append(gpus, GPU{Index: idx, UUID: f[1], Name: name,
			MemoryMiB: mem, Driver: f[last]})
	}
	if len(gpus) == 0 {
		return nil, fmt.Errorf("no GPU listed")
	}
	return gpus, nil
}

// parseMiB reads nvidia-smi's memory.total: "81559 MiB", or "[N/A]" (0).
func parseMiB(s string) (int, error) {
	if strings.HasPrefix(s, "[") {
		return 0, nil
	}
	num, ok := strings.CutSuffix(s, " MiB")
	v, err := strconv.Atoi(num)
	if !ok || err != nil || v < 0 {
		return 0, fmt.Errorf("memory %q is not N MiB", s)
	}
	return v, nil
}

// RocmSMIArgs are the arguments ParseRocmSMI expects rocm-smi's output of.
var RocmSMIArgs = []string{"--showproductname", "--showuniqueid", "--json"}

// ParseRocmSMI parses the output of rocm-smi with RocmSMIArgs: a JSON
// object with one "cardN" object per GPU, whose "Unique ID" is the UUID
// and "Card Series" (else "Card series", else "Card model") the name.
// rocm-smi lists neither the memory nor the driver version here; they are
// left 0 and "". Other keys (a "system" object) are ignored.
func ParseRocmSMI(out string) ([]GPU, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	var gpus []GPU
	for key, raw := range doc {
		num, ok := strings.CutPrefix(key, "card")
		idx, err := strconv.Atoi(num)
		if !ok || err != nil || idx < 0 {
			continue
		}
		var card map[string]any
		if err := json.Unmarshal(raw, &card); err != nil {
			return nil, fmt.Errorf("%s is not an object", key)
		}
		str := func(keys ...string) string {
			for _, k := range keys {
				if v, ok := card[k].(string); ok && v != "" {
					return v
				}
			}
			return ""
		}
		gpus = append(gpus, GPU{Index: idx, UUID: str("Unique ID"), Name: str("Card Series", "Card series", "Card model", "Card Model")})
	}
	if len(gpus) == 0 {
		return nil, fmt.Errorf("no GPU listed")
	}
	sort.Slice(gpus, func(i, j int) bool { return gpus[i].Index < gpus[j].Index })
	return gpus, nil
}

// Preflight is one GPU preflight: whether the host was ready to run a
// test, and the evidence.
type Preflight struct {
	// When is "start" for the check before the first test, or
	// "after FILE attempt N" for one after an infra failure.
	When string `json:"when"`
	// Status is PreflightReady, PreflightNotReady or PreflightSkipped (no
	// GPU tool on PATH: nothing could be asked, and the run goes on as
	// it would without a preflight).
	Status PreflightStatus `json:"status"`
	// Reason says why the host was not ready, or the check skipped; "" when
	// ready.
	Reason string `json:"reason"`
	// Tool is the GPU tool asked; LastWords the last line it wrote when it
	// failed (at most 500 bytes), or the probe's when the probe failed
	// (FailedCheck; Speaker names who said them).
	Tool      string `json:"tool"`
	LastWords string `json:"last_words"`
	// Tries is how many times the tool was asked, Elapsed how long the
	// check took in seconds.
	Tries   int     `json:"tries"`
	Elapsed float64 `json:"elapsed"`
	// GpusNeeded is the count the suite's runs_on demands (0: none),
	// GpusFound how many the tool listed.
	GpusNeeded int `json:"gpus_needed"`
	GpusFound  int `json:"gpus_found"`
	// Foreign lists GPU memory held by processes that are not this run's
	// (an orphaned context of an earlier job); [] when none.
	Foreign []ForeignProcess `json:"foreign"`
	// ForeignError says why the tool gave no process list when it did
	// not (foreign_processes: warn goes on without one); "" otherwise.
	ForeignError string `json:"foreign_error"`
	// FailedCheck names the check that found the host not ready,
	// CheckGPUTool or CheckProbe, when the preflight has a probe ("" when
	// ready; a preflight without one has only the GPU tool to blame, and
	// its record is what it was before probes).
	FailedCheck string `json:"failed_check,omitempty"`
	// Probe is the compute probe's run, when the configuration has one.
	Probe *ProbeRun `json:"probe,omitempty"`
}

// The checks of a preflight, as FailedCheck names them.
const (
	CheckGPUTool = "gpu_tool"
	CheckProbe   = "probe"
)

// Speaker names who said LastWords: the probe when it failed, else the
// GPU tool.
func (p Preflight) Speaker() string {
	if p.FailedCheck == CheckProbe {
		return "the probe"
	}
	return p.Tool
}

// ProbeRun is one run of the preflight's compute probe.
type ProbeRun struct {
	// Argv is the command as configured.
	Argv []string `json:"argv"`
	// Status is ProbePassed, ProbeFailed, or ProbeNotRun when the GPU
	// tool's check found the host not ready first.
	Status ProbeStatus `json:"status"`
	// Reason says why it failed ("" otherwise): it exited with a non-zero
	// status, timed out, or wrote a line an infra fingerprint matches
	// (Fingerprint names it).
	Reason      string `json:"reason"`
	Fingerprint string `json:"fingerprint"`
	// LastWords is the line of its output that matched a fingerprint, else
	// its last line (at most 500 bytes, control characters made inert);
	// kept when it passed.
	LastWords string `json:"last_words"`
	// Elapsed is how long it ran, in seconds.
	Elapsed float64 `json:"elapsed"`
}

// ProbeStatus is the outcome of a ProbeRun.
type ProbeStatus string

// Probe outcomes.
const (
	ProbePassed ProbeStatus = "passed"
	ProbeFailed ProbeStatus = "failed"
	ProbeNotRun ProbeStatus = "not run"
)

// PreflightStatus is the outcome of a Preflight.
type PreflightStatus string

// Preflight outcomes.
const (
	PreflightReady    PreflightStatus = "ready"
	PreflightNotReady PreflightStatus = "not ready"
	PreflightSkipped  PreflightStatus = "skipped"
)

// ForeignProcess is a process holding GPU memory that the run did not
// start, as the GPU tool listed it.
type ForeignProcess struct {
	PID     int    `json:"pid"`
	Name    string `json:"name"`
	GPU     string `json:"gpu"` // the GPU's UUID (or index, when the tool gives no UUID)
	UsedMiB int    `json:"used_mib"`
}
