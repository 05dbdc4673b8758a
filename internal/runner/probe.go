package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/radixark/miles-ci/internal/report"
)

// withProbe runs the configuration's compute probe (p.Probe) after the
// GPU tool's check pf, when there is one: only on a host the tool found
// ready, since a probe on a host with no GPU answering says nothing new. A
// probe that fails makes the host not ready, with its reason and last
// words; pf.FailedCheck names the check that failed either way. Without a
// probe pf is returned as it is.
func (p Preflight) withProbe(ctx context.Context, pf report.Preflight, started func() float64) report.Preflight {
	if len(p.Probe.Argv) == 0 {
		return pf
	}
	run := &report.ProbeRun{Argv: p.Probe.Argv, Status: report.ProbeNotRun}
	pf.Probe = run
	switch pf.Status {
	case report.PreflightNotReady:
		pf.FailedCheck = report.CheckGPUTool
		return pf
	case report.PreflightSkipped:
		return pf
	}
	p.probe(ctx, run)
	pf.Elapsed = report.Seconds(started())
	if run.Status == report.ProbeFailed {
		pf.Status, pf.Reason, pf.LastWords, pf.FailedCheck = report.PreflightNotReady, run.Reason, run.LastWords, report.CheckProbe
		if ctx.Err() != nil {
			pf.Reason = "interrupted"
		}
	}
	return pf
}

// probe runs the probe once, bounded by its timeout, as the GPU tool's
// calls run (see runProc): in a process group of its own, killed with it
// past the bound, everything it left behind swept before the check goes
// on. Its output, both streams as one, is kept (its first
// gpuToolOutputMax bytes) and read for the infra fingerprints.
func (p Preflight) probe(ctx context.Context, run *report.ProbeRun) {
	start := p.Now()
	defer func() { run.Elapsed = report.Seconds(p.Now().Sub(start).Seconds()) }()
	fail := func(reason string) { run.Status, run.Reason = report.ProbeFailed, reason }
	argv := append([]string(nil), p.Probe.Argv...)
	switch {
	case !strings.Contains(argv[0], "/"):
		// Looked for on the run's PATH, as the shell would, not ours.
		bin, ok := lookPath(argv[0], p.Path)
		if !ok {
			fail(fmt.Sprintf("the probe's program %s is not on PATH", argv[0]))
			return
		}
		argv[0] = bin
	case !filepath.IsAbs(argv[0]) && p.Dir != "":
		argv[0] = filepath.Join(p.Dir, argv[0])
	}
	var out capped
	spec := procSpec{argv: argv, dir: p.Dir, env: p.Env, timeout: p.Probe.Timeout, grace: toolKillGrace, merged: true, out: &out}
	watch := newInfraWatch(p.Fingerprints)
	if watch != nil {
		spec.observe = watch.stream()
	}
	res, err := runProc(ctx, spec)
	run.LastWords = lastWords(out.String())
	var reason string
	switch {
	case err != nil:
		reason = fmt.Sprintf("the probe could not start: %v", err)
	case res.unkillable:
		reason = fmt.Sprintf("the probe timed out after %s and %s", p.Probe.Timeout, errStuck)
	case res.timedOut:
		reason = fmt.Sprintf("the probe timed out after %s", p.Probe.Timeout)
	case res.interrupted:
		reason = "the probe was interrupted"
	case res.exitCode < 0:
		reason = fmt.Sprintf("the probe was killed by signal %d", -res.exitCode)
	case res.exitCode != 0:
		reason = fmt.Sprintf("the probe exited with status %d", res.exitCode)
	}
	if watch != nil {
		if m, ok := watch.result(); ok {
			run.Fingerprint, run.LastWords = m.Fingerprint, lastWords(m.Line)
			if reason == "" {
				reason = "the probe's output matched the infra fingerprint " + m.Fingerprint
			} else {
				reason += "; its output matched the infra fingerprint " + m.Fingerprint
			}
		}
	}
	if reason != "" {
		fail(reason)
		return
	}
	run.Status = report.ProbePassed
}
