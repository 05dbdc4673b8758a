package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/report"
)

// GPUQueryTimeout is how long one GPU tool may take to list the GPUs
// before its process group is killed: a hung nvidia-smi costs this, never
// the job.
const GPUQueryTimeout = 5 * time.Second

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

// Query fills h's GpuTool, Gpus and GpusError: cuda asks nvidia-smi,
// rocm rocm-smi (see report.NvidiaSMIArgs and report.RocmSMIArgs). A tool
// that is missing, fails, hangs past the timeout or says what cannot be
// read is recorded in GpusError, with the end of what it wrote; it never
// fails the run.
func (q GPUQuery) Query(ctx context.Context, h *report.Host) {
	var tool string
	var args []string
	var parse func(string) ([]report.GPU, error)
	switch q.Backend {
	case "cuda":
		tool, args, parse = "nvidia-smi", report.NvidiaSMIArgs, report.ParseNvidiaSMI
	case "rocm":
		tool, args, parse = "rocm-smi", report.RocmSMIArgs, report.ParseRocmSMI
	default:
		return
	}
	h.GpuTool = tool
	bin, ok := lookPath(tool, q.Path)
	if !ok {
		h.GpusError = tool + " not found on PATH"
		return
	}
	timeout := q.Timeout
	if timeout <= 0 {
		timeout = GPUQueryTimeout
	}
	var out, errOut capped
	res, err := runProc(ctx, procSpec{
		argv: append([]string{bin}, args...), env: q.Env, timeout: timeout, grace: time.Second,
		out: &out, errOut: &errOut,
	})
	said := lastWords(errOut.String())
	if said == "" {
		said = lastWords(out.String())
	}
	switch {
	case err != nil:
		h.GpusError = fmt.Sprintf("%s could not start: %v", tool, err)
	case res.timedOut:
		h.GpusError = fmt.Sprintf("%s timed out after %s", tool, timeout)
	case res.interrupted:
		h.GpusError = tool + " interrupted"
	case res.exitCode != 0:
		h.GpusError = fmt.Sprintf("%s exited with status %d", tool, res.exitCode)
		if said != "" {
			h.GpusError += ": " + said
		}
	default:
		gpus, err := parse(out.String())
		if err != nil {
			h.GpusError = fmt.Sprintf("%s output not understood: %v", tool, err)
			return
		}
		h.Gpus = gpus
	}
}

// lastWords is the last non-empty line of a tool's output, at most 500
// bytes of it.
func lastWords(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	w := strings.TrimSpace(lines[len(lines)-1])
	if len(w) > 500 {
		w = w[len(w)-500:]
	}
	return strings.ToValidUTF8(w, "?")
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
