// Package drain decides which suspect runners to drain, and how: for each
// runner the verdict of package hostcheck names, the runner label its
// suites ask for that is to be removed from it, under limits that hold
// whatever the verdict says. It decides only: the runner list comes from
// the GitHub REST API at the edge (package ghapi), the suspects from the
// verdict, and the command prints and applies the plan.
//
// It also reads and writes the drain log's records, from and to bytes, and
// says from them which labels give a drained runner back (ToRestore).
package drain

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Label is one label of a runner, as the API lists it: Type is "read-only"
// for the labels GitHub gives every self-hosted runner (self-hosted, the
// OS, the architecture), which cannot be removed, and "custom" otherwise.
type Label struct {
	Name string
	Type string
}

// ReadOnly is the type of a label GitHub gives and no one can remove.
const ReadOnly = "read-only"

// Runner is one self-hosted runner of the API's list.
type Runner struct {
	ID     int64
	Name   string
	OS     string
	Status string // "online" or "offline"
	Busy   bool
	Labels []Label
}

// Online reports whether the runner takes jobs now.
func (r *Runner) Online() bool { return r.Status == "online" }

// Has reports whether the runner carries label. Runner labels match
// without regard to case, as GitHub matches runs-on.
func (r *Runner) Has(label string) bool {
	return slices.ContainsFunc(r.Labels, func(l Label) bool { return strings.EqualFold(l.Name, label) })
}

// Lacking returns the labels of labels that the runner does not carry, in
// their order.
func (r *Runner) Lacking(labels []string) []string {
	var out []string
	for _, l := range labels {
		if !r.Has(l) {
			out = append(out, l)
		}
	}
	return out
}

// Named returns the first runner of runners named name, matched without
// regard to case as GitHub matches runner names, and nil when none is.
func Named(runners []Runner, name string) *Runner {
	for i := range runners {
		if strings.EqualFold(runners[i].Name, name) {
			return &runners[i]
		}
	}
	return nil
}

// carries reports whether the runner carries every label of set.
func (r *Runner) carries(set []string) bool {
	for _, l := range set {
		if !r.Has(l) {
			return false
		}
	}
	return true
}

// label returns the runner's label named name (its own spelling), and false
// when it has none.
func (r *Runner) label(name string) (Label, bool) {
	for _, l := range r.Labels {
		if strings.EqualFold(l.Name, name) {
			return l, true
		}
	}
	return Label{}, false
}

func (r *Runner) remove(name string) {
	r.Labels = slices.DeleteFunc(slices.Clone(r.Labels), func(l Label) bool { return strings.EqualFold(l.Name, name) })
}

// Generic reports whether label is one that says nothing about what a
// suite needs: `self-hosted`, an operating system or an architecture (the
// labels GitHub gives every self-hosted runner). Removing one would take
// the runner away from every suite, or not be allowed at all.
func Generic(label string) bool {
	switch strings.ToLower(label) {
	case "self-hosted", "linux", "windows", "macos", "x64", "x86", "amd64", "arm", "arm64":
		return true
	}
	return false
}

// Suspect is one host the verdict calls suspect on the evidence of the
// window the drain looks at.
type Suspect struct {
	// Host is the host's key (its runner name, else its hostname); Runner
	// its runner name, "" for a host known by its hostname only.
	Host   string
	Runner string
	// Suites are the suites of its jobs in the window.
	Suites []string
	// Evidence is why it is suspect (hostcheck's clauses).
	Evidence []string
}

// Input is everything a plan is decided from.
type Input struct {
	// Suspects in the order the plan considers them (the verdict's: by
	// host).
	Suspects []Suspect
	// Runners is the API's whole runner list.
	Runners []Runner
	// LabelSets holds each suite's runs_on labels, by suite name.
	LabelSets map[string][]string
	// MaxDrain is the most runners drained per label set (at least 1).
	MaxDrain int
}

// DefaultMaxDrain is --max-drain's default: one runner per label set and
// invocation, so that a wrong verdict costs one runner until a person
// looks.
const DefaultMaxDrain = 1

// Action is one label to remove from one runner.
type Action struct {
	RunnerID int64
	Runner   string
	// Label is the label to remove, as the runner spells it.
	Label string
	// LabelSet is the runs_on of the suites that ran there, Suites those
	// suites.
	LabelSet []string
	Suites   []string
	Evidence []string
}

// Kept is a suspect host (and a label set of it) left alone, and why.
type Kept struct {
	Host     string
	LabelSet []string
	Reason   string
}

// Plan is what to drain and what not to.
type Plan struct {
	Actions []Action
	Kept    []Kept
}

// Decide returns the plan: for each suspect runner and each label set its
// suites ask for, the most specific label of the set that the runner
// carries (see candidates), to be removed, unless a limit forbids it:
//   - a host with no runner name, or a runner name not in the list, is
//     left alone (nothing to remove a label from);
//   - a runner that no longer carries the set (drained before) is left;
//   - at most MaxDrain runners per label set;
//   - never the last online runner carrying the set: another online
//     runner must carry it after the removal, counting the removals
//     planned before, so that the suite's jobs still have somewhere to run;
//     and the same for every other suite of the configuration whose set
//     holds the label (removing h100 takes the runner from [h100, 4gpu]
//     too): a label that would strand one gives way to the next candidate.
//
// Runner and label names are compared as GitHub compares them, without
// regard to case. The steps: runnerOf finds a suspect's runner, choose
// picks the label for each of its label sets (limitReason, firstSafe),
// take plans its removal.
func Decide(in Input) Plan {
	pl := newPlanner(in)
	var p Plan
	for _, s := range in.Suspects {
		i, reason := runnerOf(s, pl.byName)
		if reason != "" {
			p.Kept = append(p.Kept, Kept{Host: s.Host, Reason: reason})
			continue
		}
		for _, g := range groups(s.Suites, in.LabelSets) {
			label, reason := pl.choose(i, g)
			if reason != "" {
				p.Kept = append(p.Kept, Kept{Host: s.Host, LabelSet: g.set, Reason: reason})
				continue
			}
			r := pl.take(i, g.set, label)
			p.Actions = append(p.Actions, Action{RunnerID: r.ID, Runner: r.Name, Label: label,
				LabelSet: g.set, Suites: g.suites, Evidence: s.Evidence})
		}
	}
	return p
}

// planner is a plan's state while Decide makes it.
type planner struct {
	// runners is a copy of the runner list, the labels planned for
	// removal removed; byName the index of each lower-case runner name's
	// first runner in it.
	runners []Runner
	byName  map[string]int
	// all is every suite of the configuration, by label set.
	all      []group
	maxDrain int
	drained  map[string]int // label set key → runners drained
}

func newPlanner(in Input) *planner {
	pl := &planner{runners: slices.Clone(in.Runners), byName: map[string]int{}, maxDrain: max(in.MaxDrain, 1),
		drained: map[string]int{}}
	for i := range pl.runners {
		k := strings.ToLower(pl.runners[i].Name)
		if _, dup := pl.byName[k]; !dup {
			pl.byName[k] = i
		}
	}
	var names []string
	for name := range in.LabelSets {
		names = append(names, name)
	}
	pl.all = groups(names, in.LabelSets)
	return pl
}

// runnerOf returns the index of the suspect's runner (byName: see
// planner), or why the suspect has none to take a label from.
func runnerOf(s Suspect, byName map[string]int) (int, string) {
	if s.Runner == "" {
		return -1, "known by its hostname only: no runner to take a label from"
	}
	i, ok := byName[strings.ToLower(s.Runner)]
	if !ok {
		return -1, "not in the runner list (another repository's or organization's runner, or removed)"
	}
	return i, ""
}

// choose returns the label to remove from runners[i] for the suites of g,
// or why none is: the suites are not the configuration's, the runner no
// longer carries their set or carries none of it that can be removed, a
// limit holds (see limitReason), or every candidate would strand a suite
// (see firstSafe).
func (pl *planner) choose(i int, g group) (label, reason string) {
	r := &pl.runners[i]
	switch {
	case g.set == nil:
		return "", "ran " + strings.Join(g.suites, ", ") + ", which the configuration does not name"
	case !r.carries(g.set):
		return "", "no longer carries " + SetString(g.set) + " (drained before)"
	}
	labels := candidates(r, g.set, pl.runners)
	if len(labels) == 0 {
		return "", "carries no label of " + SetString(g.set) + " that can be removed (only self-hosted, OS and architecture labels)"
	}
	if reason := limitReason(g, pl.drained[setKey(g.set)], pl.maxDrain, onlineCarriers(pl.runners, g.set, i)); reason != "" {
		return "", reason
	}
	return firstSafe(pl.runners, i, labels, pl.all)
}

// take plans the removal of label from runners[i] for set, and returns
// the runner.
func (pl *planner) take(i int, set []string, label string) *Runner {
	pl.drained[setKey(set)]++
	r := &pl.runners[i]
	r.remove(label)
	return r
}

// limitReason says which limit keeps a runner carrying the set of g, ""
// for none: drained runners of that set were planned already, at most
// maxDrain are; others is how many other online runners carry the set,
// and one must be left for the suites' jobs to run on.
func limitReason(g group, drained, maxDrain, others int) string {
	switch {
	case drained >= maxDrain:
		return "--max-drain " + strconv.Itoa(maxDrain) + " reached for " + SetString(g.set)
	case others == 0:
		return lastCarrier(g)
	}
	return ""
}

// firstSafe returns the first of labels (candidates, the most specific
// first) whose removal from runners[i] leaves every suite of all an
// online runner: removing h100 also takes the runner from a suite on
// [h100, 4gpu], which it may be the last to serve. When each would strand
// one, it returns why, naming the first suites stranded.
func firstSafe(runners []Runner, i int, labels []string, all []group) (label, reason string) {
	var stranded group
	for _, l := range labels {
		st, ok := strands(runners, i, l, all)
		if !ok {
			return l, ""
		}
		if stranded.set == nil {
			stranded = st
		}
	}
	return "", lastCarrier(stranded)
}

// lastCarrier is why the last online runner carrying g's set is kept.
func lastCarrier(g group) string {
	return "the last online runner carrying " + SetString(g.set) + ": draining it would leave " +
		strings.Join(g.suites, ", ") + " nowhere to run"
}

// group is the suites of one label set.
type group struct {
	set    []string // nil for suites the configuration does not name
	suites []string
}

// groups gathers suites by their label set, the sets in order of their
// first suite by name.
func groups(suites []string, sets map[string][]string) []group {
	sorted := slices.Clone(suites)
	sort.Strings(sorted)
	sorted = slices.Compact(sorted)
	var out []group
	at := map[string]int{}
	for _, name := range sorted {
		set, ok := sets[name]
		key := "\x00unknown"
		if ok {
			key = setKey(set)
		} else {
			set = nil
		}
		if j, seen := at[key]; seen {
			out[j].suites = append(out[j].suites, name)
			continue
		}
		at[key] = len(out)
		out = append(out, group{set: set, suites: []string{name}})
	}
	return out
}

// candidates are the labels that could be removed from r for set, the
// most specific first: the labels of set that r carries, not generic (see
// Generic) and not read-only, by how few runners of the list carry them
// (`h100` before `8gpu` when every H100 runner has 8 GPUs but not every
// 8-GPU runner is an H100), ties in the order of set. Each is spelled as
// r spells it.
func candidates(r *Runner, set []string, runners []Runner) []string {
	type cand struct {
		name string
		n    int
	}
	var cs []cand
	for _, name := range set {
		l, ok := r.label(name)
		if !ok || Generic(name) || l.Type == ReadOnly {
			continue
		}
		n := 0
		for i := range runners {
			if runners[i].Has(name) {
				n++
			}
		}
		cs = append(cs, cand{l.Name, n})
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].n < cs[j].n })
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// strands returns the first group of all (suites by label set) that
// removing label from runners[i] would leave with no online runner: a set
// holding the label, which the runner carries and no other online runner
// does.
func strands(runners []Runner, i int, label string, all []group) (group, bool) {
	for _, g := range all {
		if g.set == nil || !runners[i].carries(g.set) || !slices.ContainsFunc(g.set, func(l string) bool { return strings.EqualFold(l, label) }) {
			continue
		}
		if onlineCarriers(runners, g.set, i) == 0 {
			return g, true
		}
	}
	return group{}, false
}

// onlineCarriers counts the online runners other than runners[skip] that
// carry every label of set.
func onlineCarriers(runners []Runner, set []string, skip int) int {
	n := 0
	for i := range runners {
		if i != skip && runners[i].Online() && runners[i].carries(set) {
			n++
		}
	}
	return n
}

// setKey is a label set's identity: its labels in lower case, sorted.
func setKey(set []string) string {
	k := make([]string, len(set))
	for i, l := range set {
		k[i] = strings.ToLower(l)
	}
	sort.Strings(k)
	return strings.Join(slices.Compact(k), ",")
}

// SetString writes a label set as runs_on lists it: [h100, 8gpu].
func SetString(set []string) string { return "[" + strings.Join(set, ", ") + "]" }
