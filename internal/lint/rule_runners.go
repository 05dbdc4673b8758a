package lint

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// The rules on the live fleet (lint --runners): every runs_on set of the
// roster, and the labels each stage job lands on, must be carried whole by
// a runner, an online one, and by enough online ones for the shards that
// run at once. One verdict (fleetVerdict) picks which of the three rules
// a set breaks, so the family is one file.

// The rules of lint --runners, on the live fleet.
const (
	RuleRunners        = "runners"
	RuleRunnersOffline = "runners-offline"
	RuleRunnerWaves    = "runner-waves"
)

var (
	// checkFleet decides among the three; it hangs on the first.
	_ = register(Rule{Name: RuleRunners, Severity: Error,
		Summary: "no runner of the fleet carries a runs_on set whole",
		onRepo:  (*checker).checkFleet})
	_ = register(Rule{Name: RuleRunnersOffline, Severity: Warning,
		Summary: "only offline runners carry a runs_on set"})
	_ = register(Rule{Name: RuleRunnerWaves, Severity: Warning,
		Summary: "fewer online runners carry a set than its shards that run at once"})
)

// checkFleet checks every suite this repository runs, at its roster
// entry's runs_on and at each of its stage jobs' runs-on.
func (c *checker) checkFleet() {
	if c.fleet == nil {
		return
	}
	for _, s := range c.cfg.Suites {
		// An external suite's job, and so the runners it needs, is
		// another repository's.
		if s.External {
			continue
		}
		runs := c.runs[s.Name]
		parallel := s.Shards
		if len(runs) > 0 {
			parallel = maxParallel(runs[0].job, s)
		}
		if len(s.RunsOn) > 0 {
			if sev, rule, msg := c.fleetVerdict(s, s.RunsOn, parallel, "the roster's runs_on for "+s.Name); msg != "" {
				p := s.RunsOnAt
				c.found.add(Finding{Path: c.cfg.Place(p), Line: max(p.Line, 1), Col: max(p.Col, 1),
					Severity: sev, Rule: rule, Message: msg})
			}
		}
		for _, r := range runs {
			labels, what, node, problem := c.landsOn(r.job)
			// A job whose labels cannot be read is a runs-on finding.
			if problem != "" || what == "" || len(labels) == 0 {
				continue
			}
			if sev, rule, msg := c.fleetVerdict(s, labels, maxParallel(r.job, s), jobWhat(what, r.job)); msg != "" {
				line, col := at(keyOr(node, r.job.key))
				c.add(r.job.wf, line, col, sev, rule, "%s", msg)
			}
		}
	}
}

// jobWhat names the labels a job lands on, as landsOn's what says.
func jobWhat(what string, j *job) string {
	if !strings.HasPrefix(what, "the ") {
		what = "the " + what
	}
	return what + " of job " + pyfmt.Repr(j.id)
}

// maxParallel is how many shard jobs of s the job runs at once: its
// strategy.max-parallel when that is a number, else (no max-parallel, or
// an expression such as the weekly one) every shard.
func maxParallel(j *job, s config.Suite) int {
	_, v := j.get("strategy", "max-parallel")
	if t, ok := scalar(v); ok {
		if n, err := strconv.Atoi(t); err == nil && n > 0 {
			return min(n, s.Shards)
		}
	}
	return s.Shards
}

// fleetVerdict judges one set of labels of suite s against the fleet; what
// names the set in the message. It returns no message when the fleet
// serves it, or when the labels are GitHub-hosted ones.
func (c *checker) fleetVerdict(s config.Suite, labels []string, parallel int, what string) (Severity, string, string) {
	allHosted := true
	for _, l := range labels {
		allHosted = allHosted && c.fleet.hosted(l)
	}
	if allHosted {
		return "", "", ""
	}
	var carriers, online []Runner
	for _, r := range c.fleet.Runners {
		if r.carries(labels) {
			carriers = append(carriers, r)
			if r.Online {
				online = append(online, r)
			}
		}
	}
	set := jsonList(labels)
	switch {
	case len(carriers) == 0:
		return Error, RuleRunners, fmt.Sprintf("no runner of %s carries all of %s (%s), so the jobs of %s would wait for one forever: GitHub starts a job only on a runner with every label%s",
			c.fleetName(), set, what, s.Name, c.closest(labels))
	case len(online) == 0:
		return Warning, RuleRunnersOffline, fmt.Sprintf("only offline runners carry %s (%s): %s, so the jobs of %s wait until one comes back online",
			set, what, runnerNames(carriers), s.Name)
	case len(online) < parallel:
		waves := (s.Shards + len(online) - 1) / len(online)
		verb := "carry"
		if len(online) == 1 {
			verb = "carries"
		}
		return Warning, RuleRunnerWaves, fmt.Sprintf("%d shard jobs of %s may run at once but only %s %s %s (%s), so its %s run in %d waves, one after another",
			parallel, s.Name, textfmt.CountNoun(len(online), "online runner"), verb, set, what, textfmt.CountNoun(s.Shards, "shard"), waves)
	}
	return "", "", ""
}

// fleetName names the listings the fleet was read from.
func (c *checker) fleetName() string {
	return strings.Join(c.fleet.Sources, ", ")
}

// closest says which runner comes nearest to carrying labels: the one
// missing the fewest, first in the listing on a tie.
func (c *checker) closest(labels []string) string {
	if len(c.fleet.Runners) == 0 {
		return "; the listing holds no runner"
	}
	var best []string
	name := ""
	for _, r := range c.fleet.Runners {
		var miss []string
		for _, l := range labels {
			if r.missing(l) {
				miss = append(miss, l)
			}
		}
		if name == "" || len(miss) < len(best) {
			best, name = miss, r.Name
		}
	}
	return fmt.Sprintf("; the closest, %s, lacks %s", pyfmt.Repr(name), strings.Join(best, ", "))
}

// runnerNames lists a few runners by name.
func runnerNames(rs []Runner) string {
	const shown = 3
	var names []string
	for i, r := range rs {
		if i == shown {
			names = append(names, fmt.Sprintf("and %d more", len(rs)-shown))
			break
		}
		names = append(names, pyfmt.Repr(r.Name))
	}
	return strings.Join(names, ", ")
}
