package selection

import (
	"strconv"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

// Diff says where a workflow run's changed-file diff is: the file at Path
// (read with Read; nil is ReadDiffBytes), which the variable Env names in
// messages.
type Diff struct {
	Path string
	Env  string
	Read func(string) ([]byte, error)
}

// Decision is stage selection for one workflow run.
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

// Decide runs stage selection for a workflow run (SPEC §4): for a pull
// request with a usable diff it collects the registry (collect) and prunes
// the stages the diff cannot affect; any other run, or an unusable diff,
// prunes nothing (fail open). Only collect's error is returned.
func Decide(cfg *config.Config, wf policy.Workflow, event string, diff Diff,
	collect func() (*config.Config, *registry.Registry, error)) (Decision, error) {
	if event != policy.EventPullRequest {
		return Decision{
			Pruning: "not applied: stage pruning applies to pull_request events only",
			Result:  NoPruning(cfg, "stage pruning applies to pull_request events only"),
		}, nil
	}
	var entries []Entry
	why := diff.Env + " is not set"
	if diff.Path != "" {
		read := diff.Read
		if read == nil {
			read = ReadDiffBytes
		}
		entries, why = ReadDiffFile(read, diff.Path)
	}
	if why != "" {
		return Decision{
			Pruning:  "disabled: " + why,
			Unusable: true,
			Result:   NoPruning(cfg, "the changed-file diff is unusable ("+why+"), so pruning is disabled"),
		}, nil
	}
	_, reg, err := collect()
	if err != nil {
		return Decision{}, err
	}
	pruning := "applied to " + strconv.Itoa(len(entries)) + " changed entries"
	if len(entries) == 1 {
		pruning = "applied to 1 changed entry"
	}
	return Decision{
		Pruning: pruning,
		Paths:   ClassifyPaths(cfg, reg.Registrations, entries),
		Result: Select(Input{Config: cfg, Registrations: reg.Registrations, Policy: wf.Policy,
			RawLabels: wf.RawLabels, Diff: entries}),
	}, nil
}
