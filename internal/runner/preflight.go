package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
)

// The preflight's defaults: Miles' own wait loop asked `nvidia-smi -L` 60
// times, 2 s apart, about 120 s in all.
const (
	PreflightTimeout      = 120 * time.Second
	PreflightInterval     = 2 * time.Second
	PreflightQueryTimeout = GPUQueryTimeout
)

// Preflight checks, before a GPU test runs, that the host can run one: the
// GPU tool answers, lists at least the GPUs the suite needs, and no
// process of another job holds GPU memory. A tool that fails (the CUDA
// "system not yet initialized" of a driver still tearing down the last
// job's context) or hangs is asked again every Interval until Timeout has
// passed; each call is bounded by QueryTimeout and by what is left of
// Timeout, and its process group killed past it, so a hung tool costs its
// bound, never the job. With a compute probe configured (Probe), the
// probe then runs once, bounded by its own timeout (see withProbe).
type Preflight struct {
	Backend string // "cuda" or "rocm" (see findGPUTool); any other is skipped
	// Path is the PATH the tool is looked for in; Env the tool's
	// environment (nil: ours).
	Path string
	Env  []string
	// Preflight is the configuration's preflight section, passed whole:
	// Timeout bounds the whole check, Interval is the pause between tries
	// and QueryTimeout bounds one call of the tool (0 selects the default);
	// ForeignProcesses "fail" makes a process of another job holding GPU
	// memory keep the host not ready (it may still be exiting, so the check
	// tries again until Timeout); otherwise such processes are only recorded.
	config.Preflight
	// GPUsNeeded is the count the suite needs (0: none checked). Fewer
	// GPUs listed is not ready at once: GPUs do not appear by waiting.
	GPUsNeeded int
	// ToolRequired makes a host with no GPU tool on Path not ready, at
	// once (a tool does not appear by waiting), instead of skipping the
	// check: in GitHub Actions a GPU job's runner is a GPU host, and a
	// missing tool is a broken one, as Miles' wait step failed there.
	ToolRequired bool
	// Dir is where the probe runs (the repository root; "" ours), and
	// Fingerprints the infra fingerprints its output is read for: a line
	// one matches makes the host not ready, whatever its exit status.
	Dir          string
	Fingerprints []Fingerprint

	Now   func() time.Time                                 // nil: time.Now
	Sleep func(ctx context.Context, d time.Duration) error // nil: a timer that ctx ends
}

// Check runs the preflight; when is recorded as report.Preflight.When. Every
// field of the result is filled. A tool not on Path is PreflightSkipped and
// costs nothing: the run goes on as it would without a preflight (with
// ToolRequired, it is PreflightNotReady with no try).
// Cancelling ctx ends the check at once, not ready, reason "interrupted".
func (p Preflight) Check(ctx context.Context, when string) report.Preflight {
	pf, _ := p.CheckGPUs(ctx, when)
	return pf
}

// CheckGPUs is Check, also returning the GPUs the tool listed on the try
// that found them ready (nil otherwise): what the log names, and a host
// record the first query could not fill. With a probe (Preflight.Probe),
// the probe runs once the tool's check passed, and its failure makes the
// host not ready (see withProbe).
func (p Preflight) CheckGPUs(ctx context.Context, when string) (report.Preflight, []report.GPU) {
	p.defaults()
	start := p.Now()
	pf, gpus := p.checkTool(ctx, when, start)
	return p.withProbe(ctx, pf, func() float64 { return p.Now().Sub(start).Seconds() }), gpus
}

// checkTool is the GPU tool's check, begun at start (see CheckGPUs).
func (p Preflight) checkTool(ctx context.Context, when string, start time.Time) (report.Preflight, []report.GPU) {
	pf := report.Preflight{When: when, GpusNeeded: p.GPUsNeeded, Foreign: []report.ForeignProcess{}}
	tool, bin, ok := findGPUTool(p.Backend, p.Path)
	pf.Tool = tool.name
	if !ok {
		pf.Status = report.PreflightSkipped
		pf.Reason = "no GPU tool to ask"
		if tool.name != "" {
			pf.Reason = notFound(p.Backend)
			if p.ToolRequired {
				pf.Status = report.PreflightNotReady
			}
		}
		return pf, nil
	}
	deadline := start.Add(p.Timeout)
	finish := func(status report.PreflightStatus, reason string) {
		pf.Status, pf.Reason = status, reason
		pf.Elapsed = report.Seconds(p.Now().Sub(start).Seconds())
	}
	for {
		pf.Tries++
		gpus, failure, said := p.try(ctx, tool, bin, deadline, &pf)
		switch {
		case ctx.Err() != nil:
			finish(report.PreflightNotReady, "interrupted")
			return pf, nil
		case failure == "":
			finish(report.PreflightReady, "")
			return pf, gpus
		case strings.HasSuffix(failure, errStuck):
			// Every later call would hang the same way, each leaving a
			// process behind: the host is not ready, now.
			finish(report.PreflightNotReady, failure)
			pf.LastWords = said
			return pf, nil
		case failure == errTooFewGPUs:
			finish(report.PreflightNotReady, fmt.Sprintf("%s listed %d GPU(s); the suite needs %d", tool.name, pf.GpusFound, p.GPUsNeeded))
			return pf, nil
		}
		pf.LastWords = said
		if p.Now().Add(p.Interval).After(deadline) {
			finish(report.PreflightNotReady, fmt.Sprintf("not ready within %s: %s", p.Timeout, failure))
			return pf, nil
		}
		if p.Sleep(ctx, p.Interval) != nil {
			finish(report.PreflightNotReady, "interrupted")
			return pf, nil
		}
	}
}

// errTooFewGPUs is try's failure when the tool listed fewer GPUs than
// needed.
const errTooFewGPUs = "too few GPUs"

// errStuck ends the failure of a tool that did not exit after SIGKILL
// (see killWait).
const errStuck = "did not exit after SIGKILL (stuck in the driver?)"

// try asks the tool once: for the GPUs, then, when it can say and the
// count is enough, for the processes holding GPU memory (into pf.Foreign).
// failure is "" when the host is ready.
func (p Preflight) try(ctx context.Context, tool gpuTool, bin string, deadline time.Time, pf *report.Preflight) (gpus []report.GPU, failure, said string) {
	// Every call, the process list's too, is bounded by the check's
	// deadline as well as by its own QueryTimeout: --preflight-timeout 3s
	// must not wait out a query_timeout of 40s. Past the deadline a call
	// still gets a moment, and its failure names the deadline.
	ask := func(args []string) (string, string, string) {
		timeout, limit := p.QueryTimeout, ""
		if left := deadline.Sub(p.Now()); left < timeout {
			timeout, limit = max(left, 100*time.Millisecond), fmt.Sprintf("at the preflight's %s deadline", p.Timeout)
		}
		return tool.ask(ctx, bin, args, p.Env, timeout, limit)
	}
	pf.GpusFound = 0
	out, failure, said := ask(tool.args)
	if failure != "" {
		return nil, failure, said
	}
	gpus, err := tool.parse(out)
	if err != nil {
		return nil, fmt.Sprintf("%s output not understood: %v", tool.name, err), lastWords(out)
	}
	pf.GpusFound = len(gpus)
	if p.GPUsNeeded > 0 && len(gpus) < p.GPUsNeeded {
		return nil, errTooFewGPUs, ""
	}
	if tool.procArgs == nil {
		return gpus, "", ""
	}
	out, failure, said = ask(tool.procArgs)
	var procs []report.ForeignProcess
	if failure == "" {
		if procs, err = tool.parseProcs(out); err != nil {
			failure, said = fmt.Sprintf("%s process list not understood: %v", tool.name, err), lastWords(out)
		}
	}
	if failure != "" {
		if p.failOnForeign() || strings.HasSuffix(failure, errStuck) {
			return nil, failure, said
		}
		// Foreign processes only warn: a list the tool could not give
		// leaves the host as ready as its GPUs say, and the report says
		// why it has no list.
		pf.ForeignError = failure
		return gpus, "", ""
	}
	// Before the first test every process on a GPU is another job's, and
	// after a failed attempt this run's children are already reaped.
	pf.Foreign = append(pf.Foreign[:0], procs...)
	if p.failOnForeign() && len(procs) > 0 {
		return nil, fmt.Sprintf("%d process(es) of another job hold GPU memory", len(procs)), ""
	}
	return gpus, "", ""
}

func (p *Preflight) defaults() {
	if p.Timeout <= 0 {
		p.Timeout = PreflightTimeout
	}
	if p.Interval <= 0 {
		p.Interval = PreflightInterval
	}
	if p.QueryTimeout <= 0 {
		p.QueryTimeout = PreflightQueryTimeout
	}
	if p.Probe.Timeout <= 0 {
		p.Probe.Timeout = config.DefaultProbeTimeout
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	if p.Sleep == nil {
		p.Sleep = sleep
	}
}

// failOnForeign: another job's process on a GPU keeps the host not ready.
func (p Preflight) failOnForeign() bool { return p.ForeignProcesses == config.ForeignFail }
