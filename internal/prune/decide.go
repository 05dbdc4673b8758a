package prune

import (
	"strconv"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

// Diff is a workflow run's changed-file diff as its caller read it: the
// parsed entries, or why it cannot be used.
type Diff struct {
	Entries []Entry
	// Unusable says why the diff cannot be used ("" when it can): the
	// variable naming it is unset, the file cannot be read, or it does not
	// parse.
	Unusable string
}

// Decision is stage pruning for one workflow run.
type Decision struct {
	Result Result
	// Pruning says how pruning went ("applied to 3 changed entries",
	// "disabled: <why>", "not applied: ..."), for --explain and --json.
	Pruning string
	// Unusable is set when a pull request's diff could not be used, so
	// nothing was pruned.
	Unusable bool
	// Paths classifies every changed path (a usable diff only).
	Paths []PathClass
}

// NeedsRegistry reports whether Decide looks at the registrations for
// event and diff: only a pull request with a usable diff does, so the
// caller collects the registry for no other run.
func NeedsRegistry(event string, diff Diff) bool {
	return event == policy.EventPullRequest && diff.Unusable == ""
}

// Decide prunes the stages of a workflow run (SPEC §4): for a pull request
// with a usable diff, the stages the diff and the labels cannot affect;
// any other run, or an unusable diff, prunes nothing (fail open). regs are
// the registrations when NeedsRegistry says they are looked at.
func Decide(cfg *config.Config, wf policy.Workflow, event string, diff Diff, regs []registry.Registration) Decision {
	if event != policy.EventPullRequest {
		return Decision{
			Pruning: "not applied: stage pruning applies to pull_request events only",
			Result:  NoPruning(cfg, "stage pruning applies to pull_request events only"),
		}
	}
	if why := diff.Unusable; why != "" {
		return Decision{
			Pruning:  "disabled: " + why,
			Unusable: true,
			Result:   NoPruning(cfg, "the changed-file diff is unusable ("+why+"), so pruning is disabled"),
		}
	}
	pruning := "applied to " + strconv.Itoa(len(diff.Entries)) + " changed entries"
	if len(diff.Entries) == 1 {
		pruning = "applied to 1 changed entry"
	}
	return Decision{
		Pruning: pruning,
		Paths:   ClassifyPaths(cfg, regs, diff.Entries),
		Result: Stages(Input{Config: cfg, Registrations: regs, Policy: wf.Policy,
			RawLabels: wf.RawLabels, Diff: diff.Entries}),
	}
}
