package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	"github.com/radixark/miles-ci/internal/report"
)

// GPUQueryTimeout is how long one GPU tool may take to list the GPUs
// before its process group is killed: a hung nvidia-smi costs this, never
// the job.
const GPUQueryTimeout = 5 * time.Second

// toolKillGrace is how long a GPU tool's call, or the preflight's probe,
// has between SIGTERM and SIGKILL when the run is interrupted (past its
// bound it is killed at once).
const toolKillGrace = time.Second

// gpuToolOutputMax bounds what is kept of a GPU tool's output.
const gpuToolOutputMax = 64 << 10

// GPUQuery asks the GPU tool of a backend for its GPUs.
type GPUQuery struct {
	Backend string // "cuda" or "rocm"; any other asks nothing
	// Path is the PATH the tool is looked for in (the run's, through its
	// injected environment); Env the tool's environment (nil: ours).
	Path    string
	Env     []string
	Timeout time.Duration // 0: GPUQueryTimeout
}

// gpuTool is a GPU tool and how to ask it: for the GPUs, and, where it
// can say, for the processes holding GPU memory.
type gpuTool struct {
	name       string
	args       []string
	parse      func(string) ([]report.GPU, error)
	procArgs   []string // nil: the tool is not asked for processes
	parseProcs func(string) ([]report.ForeignProcess, error)
}

var (
	nvidiaSMI = gpuTool{name: "nvidia-smi", args: report.NvidiaSMIArgs, parse: report.ParseNvidiaSMI,
		procArgs: report.NvidiaComputeAppsArgs, parseProcs: report.ParseNvidiaComputeApps}
	amdSMI = gpuTool{name: "amd-smi", args: report.AmdSMIStaticArgs, parse: report.ParseAmdSMIStatic,
		procArgs: report.AmdSMIProcessArgs, parseProcs: report.ParseAmdSMIProcess}
	rocmSMI = gpuTool{name: "rocm-smi", args: report.RocmSMIArgs, parse: report.ParseRocmSMI}
)

// findGPUTool picks the tool of a backend found on path: cuda asks
// nvidia-smi; rocm asks amd-smi, the tool AMD replaced rocm-smi with, and
// rocm-smi where amd-smi is not installed. ok is false when none is on
// path (tool then names the one looked for first); a backend without GPUs
// has no tool ("").
func findGPUTool(backend, path string) (tool gpuTool, bin string, ok bool) {
	tools := gpuTools(backend)
	if tools == nil {
		return gpuTool{}, "", false
	}
	for _, t := range tools {
		if bin, ok := lookPath(t.name, path); ok {
			return t, bin, true
		}
	}
	return tools[0], "", false
}

// gpuTools are the tools of a backend, in the order findGPUTool tries
// them.
func gpuTools(backend string) []gpuTool {
	switch backend {
	case "cuda":
		return []gpuTool{nvidiaSMI}
	case "rocm":
		return []gpuTool{amdSMI, rocmSMI}
	}
	return nil
}

// DetectBackend is the GPU backend whose tool is on path: cuda where
// nvidia-smi is, else rocm where amd-smi or rocm-smi is; "" where none is
// (NoGPUTool says so).
func DetectBackend(path string) string {
	for _, b := range []string{"cuda", "rocm"} {
		if _, _, ok := findGPUTool(b, path); ok {
			return b
		}
	}
	return ""
}

// NoGPUTool is the reason of a host where DetectBackend found no tool.
const NoGPUTool = "no GPU tool on PATH (nvidia-smi, amd-smi or rocm-smi)"

// notFound says that no tool of backend is on PATH.
func notFound(backend string) string {
	tools := gpuTools(backend)
	if len(tools) == 1 {
		return tools[0].name + " not found on PATH"
	}
	return "neither " + tools[0].name + " nor " + tools[1].name + " found on PATH"
}

// ask runs bin (the tool t) with args, bounded by timeout, and returns
// what it wrote to stdout, or why it gave no answer (failure) with the
// last line it wrote (said). limit names the bound in a failure ("" is
// "after TIMEOUT"). ctx's cancellation ends it at once.
func (t gpuTool) ask(ctx context.Context, bin string, args, env []string, timeout time.Duration, limit string) (out, failure, said string) {
	var stdout, stderr capped
	res, err := runProc(ctx, procSpec{
		argv: append([]string{bin}, args...), env: env, timeout: timeout, grace: toolKillGrace,
		out: &stdout, errOut: &stderr,
	})
	if limit == "" {
		limit = "after " + timeout.String()
	}
	said = lastWords(stderr.String())
	if said == "" {
		said = lastWords(stdout.String())
	}
	switch {
	case err != nil:
		return "", fmt.Sprintf("%s could not start: %v", t.name, err), ""
	case res.unkillable:
		return "", fmt.Sprintf("%s timed out %s and %s", t.name, limit, errStuck), said
	case res.timedOut:
		return "", fmt.Sprintf("%s timed out %s", t.name, limit), said
	case res.interrupted:
		return "", t.name + " interrupted", said
	case res.exitCode != 0:
		return "", fmt.Sprintf("%s exited with status %d", t.name, res.exitCode), said
	}
	return stdout.String(), "", ""
}

// Query fills h's GpuTool, Gpus and GpusError: cuda asks nvidia-smi,
// rocm amd-smi, else rocm-smi (see findGPUTool and report.NvidiaSMIArgs,
// report.AmdSMIStaticArgs, report.RocmSMIArgs). A tool that is missing,
// fails, hangs past the timeout or says what cannot be read is recorded in
// GpusError, with the end of what it wrote; it never fails the run.
func (q GPUQuery) Query(ctx context.Context, h *report.Host) {
	tool, bin, ok := findGPUTool(q.Backend, q.Path)
	if tool.name == "" {
		return
	}
	h.GpuTool = tool.name
	if !ok {
		h.GpusError = notFound(q.Backend)
		return
	}
	timeout := q.Timeout
	if timeout <= 0 {
		timeout = GPUQueryTimeout
	}
	out, failure, said := tool.ask(ctx, bin, tool.args, q.Env, timeout, "")
	if failure != "" {
		h.GpusError = failure
		if said != "" && !strings.Contains(failure, "timed out") && !strings.HasSuffix(failure, "interrupted") {
			h.GpusError += ": " + said
		}
		return
	}
	gpus, err := tool.parse(out)
	if err != nil {
		h.GpusError = fmt.Sprintf("%s output not understood: %v", tool.name, err)
		return
	}
	h.Gpus = gpus
}

// lastWords is the last non-empty line of a tool's output, at most 500
// bytes of it.
func lastWords(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	w := strings.TrimSpace(lines[len(lines)-1])
	if len(w) > 500 {
		w = w[len(w)-500:]
	}
	// The words go to the log, annotations and reports as text: a tool's
	// terminal escapes (ESC, BEL, a carriage return) must not act there.
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && r != '\t' {
			return '?'
		}
		return r
	}, strings.ToValidUTF8(w, "?"))
}

// lookPath finds an executable name in the directories of path, as the
// shell would, without reading this process's PATH.
func lookPath(name, path string) (string, bool) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, true
			}
		}
	}
	return "", false
}

// capped keeps the first gpuToolOutputMax bytes written to it and drops
// the rest, so a tool that floods its output costs no memory.
type capped struct{ b []byte }

func (c *capped) Write(p []byte) (int, error) {
	if room := gpuToolOutputMax - len(c.b); room > 0 {
		c.b = append(c.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (c *capped) String() string { return string(c.b) }
