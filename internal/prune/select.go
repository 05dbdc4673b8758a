package prune

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
)

// broadScopeLabels are the raw labels that make every runnable stage
// affected, whatever the diff holds.
var broadScopeLabels = []string{policy.LabelNightly, policy.LabelRunCIAll, policy.LabelRunCIImg}

// Why a stage is affected.
const (
	CauseTestFile    = "test_file"    // a changed registered test file names the stage
	CauseUnknownPath = "unknown_path" // a changed path not known to spare GPU stages
	CauseBroadLabel  = "broad_label"  // a broad scope label is present
	CauseDomainLabel = "domain_label" // an explicitly requested domain label
	CauseNoPruning   = "no_pruning"   // selection did not run; nothing is skipped
)

// Stage is the decision for one PR GPU stage and why it was taken.
type Stage struct {
	Name string `json:"name"`
	Runs bool   `json:"runs"`
	// Reason is one human sentence saying why the stage runs or is skipped.
	Reason string `json:"reason"`
	// Runnable: the stage holds an enabled registration the policy selects.
	Runnable bool `json:"runnable"`
	// Affected: a changed path or a label makes the stage relevant.
	Affected bool `json:"affected"`
	// Cause is one of the Cause* constants, empty when not affected.
	Cause string `json:"cause,omitempty"`
	// Path is the changed path behind a test_file or unknown_path cause
	// (the first one met in diff order).
	Path string `json:"path,omitempty"`
	// Labels are the raw labels behind a broad_label or domain_label cause.
	Labels []string `json:"labels,omitempty"`
}

// Result is the outcome of stage selection.
type Result struct {
	// Skipped lists the PR GPU stages that need not run, sorted; never nil.
	Skipped []string
	// Stages holds one decision per PR GPU stage, sorted by name.
	Stages []Stage
}

// Input is what stage selection looks at.
type Input struct {
	Config        *config.Config
	Registrations []registry.Registration
	Policy        policy.Policy
	// RawLabels are the kept raw PR labels the policy was resolved from.
	RawLabels []string
	// Diff is a usable diff (from ReadDiff).
	Diff []Entry
}

// Stages returns the PR GPU stages a pull request with a usable diff can
// skip: every PR GPU stage that is not both runnable and affected. Only a
// registration's suite matters, never its backend.
func Stages(in Input) Result {
	stages := in.Config.PRGPUStages()
	isStage := make(map[string]bool, len(stages))
	for _, s := range stages {
		isStage[s] = true
	}

	runnable := map[string]bool{}
	eligibleLabels := map[string][]string{} // labels of enabled, cadence-eligible tests
	for _, r := range in.Registrations {
		if !isStage[r.Suite] || !r.Enabled() {
			continue
		}
		if in.Policy.Selects(r.Labels, r.Nightly) {
			runnable[r.Suite] = true
		}
		if !r.Nightly || in.Policy.AdmitNightly {
			for _, l := range r.Labels {
				if !slices.Contains(eligibleLabels[r.Suite], l) {
					eligibleLabels[r.Suite] = append(eligibleLabels[r.Suite], l)
				}
			}
		}
	}

	decisions := make(map[string]*Stage, len(stages))
	for _, s := range stages {
		decisions[s] = &Stage{Name: s, Runnable: runnable[s]}
	}
	affect := func(stage, cause, path string, labels []string) {
		d := decisions[stage]
		if d.Affected {
			if d.Cause == CauseDomainLabel && cause == CauseDomainLabel {
				// Name every requested label that selects the stage.
				for _, l := range labels {
					if !slices.Contains(d.Labels, l) {
						d.Labels = append(d.Labels, l)
					}
				}
				sort.Strings(d.Labels)
			}
			return
		}
		d.Affected, d.Cause, d.Path, d.Labels = true, cause, path, labels
	}

	// Paths first, in diff order, so the explanation names the first change
	// that made a stage relevant.
	stagesOf := map[string][]string{}
	for _, r := range in.Registrations {
		list := stagesOf[r.File] // present, possibly empty, for every registered file
		if isStage[r.Suite] && !slices.Contains(list, r.Suite) {
			list = append(list, r.Suite)
		}
		stagesOf[r.File] = list
	}
paths:
	for _, e := range in.Diff {
		for _, p := range e.Paths {
			if named, registered := stagesOf[p]; registered {
				for _, s := range named {
					affect(s, CauseTestFile, p, nil)
				}
				continue
			}
			if in.Config.IsNoGPUPath(p) {
				continue
			}
			for _, s := range stages {
				affect(s, CauseUnknownPath, p, nil)
			}
			break paths
		}
	}

	if broad := present(in.RawLabels, broadScopeLabels); len(broad) > 0 {
		for _, s := range stages {
			if runnable[s] {
				affect(s, CauseBroadLabel, "", broad)
			}
		}
	} else {
		requested, _ := policy.Requested(in.Config, in.RawLabels)
		for _, r := range in.Registrations {
			if !isStage[r.Suite] || !r.Enabled() || (r.Nightly && !in.Policy.AdmitNightly) {
				continue
			}
			if by := requestedBy(r.Labels, requested); len(by) > 0 {
				affect(r.Suite, CauseDomainLabel, "", by)
			}
		}
	}

	res := Result{Skipped: []string{}, Stages: make([]Stage, 0, len(stages))}
	for _, s := range stages {
		d := decisions[s]
		d.Runs = d.Runnable && d.Affected
		d.Reason = reason(d, eligibleLabels[s])
		if !d.Runs {
			res.Skipped = append(res.Skipped, s)
		}
		res.Stages = append(res.Stages, *d)
	}
	return res
}

// NoPruning is the result when selection does not run (not a pull request,
// or no usable diff): every PR GPU stage runs, for the reason given.
func NoPruning(cfg *config.Config, why string) Result {
	stages := cfg.PRGPUStages()
	res := Result{Skipped: []string{}, Stages: make([]Stage, 0, len(stages))}
	for _, s := range stages {
		res.Stages = append(res.Stages, Stage{Name: s, Runs: true, Reason: "runs: " + why, Cause: CauseNoPruning})
	}
	return res
}

// present returns the members of want that occur in raw, in want's order.
func present(raw, want []string) []string {
	var out []string
	for _, w := range want {
		if slices.Contains(raw, w) {
			out = append(out, w)
		}
	}
	return out
}

// requestedBy returns run-ci-X for each label X of a registration that was
// requested, sorted and unique.
func requestedBy(labels, requested []string) []string {
	var out []string
	for _, l := range labels {
		if _, ok := slices.BinarySearch(requested, l); ok {
			name := policy.RunCIPrefix + l
			if !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// reason words a decision; labels are the domain labels of the stage's
// enabled, cadence-eligible tests, which say what would make it runnable.
func reason(d *Stage, labels []string) string {
	switch {
	case !d.Runnable && len(labels) == 0:
		return "skipped: not runnable under this policy (no enabled test in it is eligible at this cadence)"
	case !d.Runnable:
		sort.Strings(labels)
		requests := make([]string, len(labels))
		for i, l := range labels {
			requests[i] = policy.RunCIPrefix + l
		}
		return fmt.Sprintf("skipped: not runnable under this policy (its tests carry %s, none included; %s would select it)",
			joinLabels(labels), strings.Join(requests, " or "))
	case !d.Affected:
		return "skipped: no changed path affects it and no requested label selects it"
	}
	switch d.Cause {
	case CauseTestFile:
		return fmt.Sprintf("runs: affected by %s (a changed test file registered in it)", showPath(d.Path))
	case CauseUnknownPath:
		return fmt.Sprintf("runs: affected by %s (a changed path not known to spare GPU stages)", showPath(d.Path))
	case CauseBroadLabel:
		return fmt.Sprintf("runs: broad scope label %s", joinLabels(d.Labels))
	default:
		return fmt.Sprintf("runs: selected by %s", joinLabels(d.Labels))
	}
}

func joinLabels(labels []string) string { return strings.Join(labels, ", ") }

// showPath writes a path as is unless it holds a byte that would break the
// line, then Go-quoted.
func showPath(p string) string {
	if strings.ContainsFunc(p, func(r rune) bool { return !unicode.IsPrint(r) }) {
		return strconv.Quote(p)
	}
	return p
}

// The classes of a changed path (PathClass.Class), in the order Stages
// tries them.
const (
	PathTest    = "test"    // a registered test file: it affects its own suites
	PathSpared  = "spared"  // a no_gpu_paths match: it affects no stage
	PathUnknown = "unknown" // anything else: it affects every PR GPU stage
)

// PathClass is how stage selection reads one changed path.
type PathClass struct {
	Path  string
	Class string
	// Rule is the no_gpu_paths pattern that spares the path.
	Rule string
	// Suites are the suites a test file is registered in, sorted.
	Suites []string
}

// ClassifyPaths classes every path of diff (both paths of a rename or
// copy), in diff order, as Stages reads them. Stages stops at the first
// unknown path, which already affects every stage; this goes on, so that an
// explanation can account for every changed path.
func ClassifyPaths(cfg *config.Config, regs []registry.Registration, diff []Entry) []PathClass {
	suitesOf := map[string][]string{}
	for _, r := range regs {
		if !slices.Contains(suitesOf[r.File], r.Suite) {
			suitesOf[r.File] = append(suitesOf[r.File], r.Suite)
		}
	}
	var out []PathClass
	for _, e := range diff {
		for _, p := range e.Paths {
			c := PathClass{Path: p, Class: PathUnknown}
			if suites, ok := suitesOf[p]; ok {
				c.Class, c.Suites = PathTest, slices.Sorted(slices.Values(suites))
			} else if rule, ok := cfg.NoGPURule(p); ok {
				c.Class, c.Rule = PathSpared, rule
			}
			out = append(out, c)
		}
	}
	return out
}
