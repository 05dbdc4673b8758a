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
// fills a host the first query left without them. The suite's compute
// probe, when the configuration has one, runs in root and its output is
// read for fps, the suite's infra fingerprints.
func preflightFunc(s Spec, p *suite.Plan, root string, env []string, fps []runner.Fingerprint, host *report.Host, into *[]report.Preflight) func(context.Context, string) bool {
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
		Preflight: s.Preflight.Config.ForSuite(p.Suite), GPUsNeeded: p.Suite.GPUsNeeded(),
		ToolRequired: ghactions.InJob(s.Getenv), Dir: root, Fingerprints: fps, Now: s.Now, Sleep: s.Preflight.Sleep,
	}
	return func(ctx context.Context, when string) bool {
		pf, gpus := check.CheckGPUs(ctx, when)
		*into = append(*into, pf)
		if gpus != nil && host.Gpus == nil && host.GpuTool == pf.Tool {
			host.Gpus, host.GpusError = gpus, ""
		}
		logPreflight(s.Out, actions, host, pf, gpus, runStops)
		return pf.Status != report.PreflightNotReady
	}
}

// stops says what a host found not ready stops: the end of the log line,
// the annotation's last sentences, and what follows the reason of a host
// without its GPU tool.
type stops struct{ line, annotation, toolMissing string }

// runStops are a run's: the rest of its tests.
var runStops = stops{
	line:       "; no further test runs here",
	annotation: ". No further test ran on this host; the tests not run say nothing about the code.",
	// Not ready without a try: the tool is not on PATH, which only a
	// GitHub Actions job holds against the host.
	toolMissing: "; a GPU suite in GitHub Actions needs its GPU tool (run --no-preflight to go without the check)",
}

// checkStops are `miles-ci preflight`'s: whatever the check guards (a
// job, as its job-started hook; the steps after it).
var checkStops = stops{
	line:       "; exit status 75",
	annotation: ". The preflight exits 75: what it guards does not run on this host; another runner may pass.",
}

// LogCheck writes what `miles-ci preflight` found, as a run logs its
// preflight; the annotations only where GitHub Actions reads them.
func LogCheck(w io.Writer, actions bool, host *report.Host, pf report.Preflight, gpus []report.GPU) {
	logPreflight(w, actions, host, pf, gpus, checkStops)
}

// logPreflight writes what a preflight found (see preflightFunc), a host
// not ready ending as st says; the annotations only where GitHub Actions
// reads them.
func logPreflight(w io.Writer, actions bool, host *report.Host, pf report.Preflight, gpus []report.GPU, st stops) {
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
		fmt.Fprintln(w, textfmt.Term(line+on+", "+took+probePassed(pf)))
	case report.PreflightNotReady:
		msg := fmt.Sprintf("host not ready%s: %s", on, pf.Reason)
		if pf.LastWords != "" {
			msg += "; " + pf.Speaker() + " said: " + pf.LastWords
		}
		msg = textfmt.Term(msg)
		line := "[CI Preflight] " + msg + " (" + took + ")"
		if pf.Tries == 0 {
			msg += st.toolMissing
			line = "[CI Preflight] " + msg
		}
		fmt.Fprintln(w, line+st.line)
		if actions {
			fmt.Fprintln(w, ghactions.Annotation{Level: ghactions.LevelError, Title: "GPU preflight: host not ready",
				Message: msg + st.annotation}.String())
		}
	}
}

// probePassed is what the ready line says of a probe that passed: what it
// cost ("" without one).
func probePassed(pf report.Preflight) string {
	if pf.Probe == nil || pf.Probe.Status != report.ProbePassed {
		return ""
	}
	return fmt.Sprintf("; the probe passed in %.1fs", pf.Probe.Elapsed)
}

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
