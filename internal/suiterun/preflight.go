package suiterun

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/runner"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// PreflightSpec is the GPU preflight of a run: the configuration's
// section, with --preflight-timeout already applied, or Off
// (--no-preflight).
type PreflightSpec struct {
	Off    bool
	Config config.Preflight
	// Sleep waits between tries; nil is a timer that ctx ends (tests
	// replace it).
	Sleep func(ctx context.Context, d time.Duration) error
}

// preflightFunc returns the runner's Options.Preflight of a run of plan
// p, or nil when the run has none (a CPU suite, --no-preflight). Each
// check is appended to *into and logged to s.Out: one line when it ran,
// nothing when no GPU tool was there to ask (the run then goes on as it
// would without a preflight, its output unchanged); a host found not ready
// is also an error annotation naming it (in a GitHub Actions job, also a
// host with no GPU tool on PATH), and a process of another job holding GPU
// memory a warning. A ready check whose tool listed the GPUs
// fills a host the first query left without them.
func preflightFunc(s Spec, p *suite.Plan, env []string, host *report.Host, into *[]report.Preflight) func(context.Context, string) bool {
	if p.Backend == config.CPU || s.Preflight.Off {
		return nil
	}
	// In a GitHub Actions job a GPU suite runs on a GPU runner, where a
	// missing GPU tool is a broken host (Miles' wait step failed on it);
	// elsewhere (a developer's machine) the check is skipped, as Python
	// has none.
	actions := s.Getenv("GITHUB_ACTIONS") == "true"
	check := runner.Preflight{
		Backend: string(p.Backend), Path: s.Getenv("PATH"), Env: env,
		Preflight: s.Preflight.Config, GPUsNeeded: p.Suite.GPUsNeeded(),
		ToolRequired: ghactions.InJob(s.Getenv), Now: s.Now, Sleep: s.Preflight.Sleep,
	}
	return func(ctx context.Context, when string) bool {
		pf, gpus := check.CheckGPUs(ctx, when)
		*into = append(*into, pf)
		if gpus != nil && host.Gpus == nil && host.GpuTool == pf.Tool {
			host.Gpus, host.GpusError = gpus, ""
		}
		logPreflight(s.Out, actions, host, pf, gpus)
		return pf.Status != report.PreflightNotReady
	}
}

// logPreflight writes what a preflight found (see preflightFunc); the
// annotations only where GitHub Actions reads them.
func logPreflight(w io.Writer, actions bool, host *report.Host, pf report.Preflight, gpus []report.GPU) {
	on := view.OnHost(host)
	took := fmt.Sprintf("%s, %.1fs", textfmt.CountNoun(pf.Tries, "try", "tries"), pf.Elapsed)
	for _, fp := range pf.Foreign {
		// The name and the GPU are the tool's words, any process's name:
		// shown as text, in the log and in the annotation.
		msg := textfmt.Term(fmt.Sprintf("process %d (%s) holds %d MiB on GPU %s%s; it is not this run's (an earlier job's, still running or orphaned)",
			fp.PID, fp.Name, fp.UsedMiB, fp.GPU, on))
		fmt.Fprintln(w, "[CI Preflight] warning: "+msg)
		if actions {
			fmt.Fprintln(w, ghactions.Annotation{Level: ghactions.LevelWarning, Title: "GPU preflight", Message: msg}.String())
		}
	}
	switch pf.Status {
	case report.PreflightReady:
		line := fmt.Sprintf("[CI Preflight] ready: %s", textfmt.CountNoun(pf.GpusFound, "GPU"))
		if names := gpuNames(gpus); names != "" {
			line += " (" + names + ")"
		}
		fmt.Fprintln(w, textfmt.Term(line+on+", "+took))
	case report.PreflightNotReady:
		msg := fmt.Sprintf("host not ready%s: %s", on, pf.Reason)
		if pf.LastWords != "" {
			msg += "; " + pf.Tool + " said: " + pf.LastWords
		}
		msg = textfmt.Term(msg)
		line := "[CI Preflight] " + msg + " (" + took + ")"
		if pf.Tries == 0 {
			// Not ready without a try: the tool is not on PATH, which
			// only a GitHub Actions job holds against the host.
			msg += toolMissing
			line = "[CI Preflight] " + msg
		}
		fmt.Fprintln(w, line+"; no further test runs here")
		if actions {
			fmt.Fprintln(w, ghactions.Annotation{Level: ghactions.LevelError, Title: "GPU preflight: host not ready",
				Message: msg + ". No further test ran on this host; the tests not run say nothing about the code."}.String())
		}
	}
}

// toolMissing follows the reason of a GitHub Actions host found not ready
// for want of its GPU tool: why that is not ready, and the way out for a
// job that is meant to run without one.
const toolMissing = "; a GPU suite in GitHub Actions needs its GPU tool (run --no-preflight to go without the check)"

// gpuNames names the GPUs listed, each distinct name once, in order.
func gpuNames(gpus []report.GPU) string {
	var names []string
	for _, g := range gpus {
		if g.Name != "" && !slices.Contains(names, g.Name) {
			names = append(names, g.Name)
		}
	}
	return strings.Join(names, ", ")
}
