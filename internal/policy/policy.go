// Package policy resolves a CI cadence and a run's raw PR labels into the
// selection policy of that run: which domain labels are included, whether
// nightly-only tests are admitted, whether fast-fail is bypassed and whether
// the run writes metric baselines. It is pure: no I/O, no printing.
package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// Cadences.
const (
	Regular = "regular"
	Nightly = "nightly"
	Weekly  = "weekly"
	Release = "release"
)

// Raw labels with a meaning of their own.
const (
	RunCIPrefix    = "run-ci-"
	LabelNightly   = "nightly"
	LabelBypass    = "bypass-fastfail"
	LabelRunCIAll  = "run-ci-all"
	LabelRunCIImg  = "run-ci-image"
	scopeNightly   = config.ScopeNightly
	scopeImageName = config.ScopeImage
)

// IsWorkflowOnly reports whether a raw label is consumed by the workflow
// itself rather than naming a domain label.
func IsWorkflowOnly(raw string) bool { return raw == LabelNightly || raw == LabelBypass }

// Policy is the resolved selection and failure behaviour of one run.
type Policy struct {
	Cadence string `json:"cadence"`
	// IncludeLabels is sorted.
	IncludeLabels []string `json:"include_labels"`
	AdmitNightly  bool     `json:"admit_nightly_tests"`
	Bypass        bool     `json:"bypass_fastfail"`
	WriteBaseline bool     `json:"write_baseline"`
}

// Error is a policy the inputs cannot resolve to; its message is exactly the
// Python reference's. Input, when set, names the trigger input at fault
// (InputEvent, ...) and Expected what it may be, for a hint the reference
// does not give.
type Error struct {
	Msg      string
	Input    string
	Expected string
}

// The trigger inputs an Error may name (Trigger's fields).
const (
	InputEvent           = "event"
	InputSchedule        = "schedule"
	InputPRLabelsJSON    = "labels"
	InputCadenceOverride = "cadence-override"
)

func (e *Error) Error() string { return e.Msg }

// Warning is a raw label that was ignored, with the reason.
type Warning struct {
	Label string
	Msg   string
}

// Strip turns raw PR-side labels into domain label names: empty strings and
// workflow-only labels are skipped silently, run-ci-X becomes X, and
// anything else is skipped with a warning. The result is sorted and unique;
// a label is warned about once however often it appears, in the order of
// its first appearance.
func Strip(raw []string) (stripped []string, warnings []Warning) {
	set := map[string]bool{}
	warned := map[string]bool{}
	for _, r := range raw {
		switch {
		case r == "" || IsWorkflowOnly(r):
		case strings.HasPrefix(r, RunCIPrefix):
			set[r[len(RunCIPrefix):]] = true
		case !warned[r]:
			warned[r] = true
			warnings = append(warnings, Warning{Label: r, Msg: fmt.Sprintf(
				"--labels entry %s is missing the expected %s prefix; ignoring. Domain labels must be raw `run-ci-<X>` strings.",
				pyfmt.Repr(r), pyfmt.Repr(RunCIPrefix))})
		}
	}
	stripped = make([]string, 0, len(set))
	for s := range set {
		stripped = append(stripped, s)
	}
	sort.Strings(stripped)
	return stripped, warnings
}

// Requested returns the known domain labels the raw labels ask for
// explicitly (run-ci-X with X known), sorted, and the warnings of Strip.
func Requested(cfg *config.Config, raw []string) ([]string, []Warning) {
	stripped, warnings := Strip(raw)
	out := stripped[:0]
	for _, s := range stripped {
		if cfg.IsKnownLabel(s) {
			out = append(out, s)
		}
	}
	return out, warnings
}

// ValidCadence reports whether c is one of the four cadences.
func ValidCadence(c string) bool { return slices.Contains(config.Cadences, c) }

// Resolve computes the policy of a cadence and raw labels.
func Resolve(cfg *config.Config, cadence string, raw []string) (Policy, []Warning, error) {
	if !ValidCadence(cadence) {
		return Policy{}, nil, &Error{Msg: fmt.Sprintf("Unknown CI cadence %s; expected one of %s",
			pyfmt.Repr(cadence), pyfmt.ReprList(config.Cadences))}
	}
	if slices.Contains(raw, LabelNightly) && cadence != Nightly {
		return Policy{}, nil, &Error{Msg: "The nightly workflow label requires cadence='nightly'"}
	}
	requested, warnings := Requested(cfg, raw)
	scope, _ := Scope(cfg, cadence, raw)
	full := cadence == Nightly || cadence == Weekly || cadence == Release
	return Policy{
		Cadence:       cadence,
		IncludeLabels: union(scope, requested),
		AdmitNightly:  full,
		Bypass:        full || slices.Contains(raw, LabelBypass),
		WriteBaseline: cadence == Nightly || cadence == Weekly,
	}, warnings, nil
}

// ForRun resolves the policy of one stage job from the flags of `run` and
// `partition`: the cadence, the raw PR labels as given (a repeated one
// counts once, as the Python runner makes a set of them) and
// --match-all-labels, which adds every known label. Its warnings are
// Resolve's, then one per run-ci-X label naming no known label.
func ForRun(cfg *config.Config, cadence string, raw []string, matchAll bool) (Policy, []Warning, error) {
	labels := UniqueInOrder(raw)
	pol, warnings, err := Resolve(cfg, cadence, labels)
	if err != nil {
		return Policy{}, nil, err
	}
	warnings = append(warnings, UnknownLabels(cfg, labels)...)
	if matchAll {
		pol = pol.WithAllLabels(cfg)
	}
	return pol, warnings, nil
}

// UniqueInOrder drops repeated raw labels, keeping first occurrences in
// order so that warnings come out once each. It is linear: a workflow may
// expand thousands of labels.
func UniqueInOrder(raw []string) []string {
	seen := make(map[string]bool, len(raw))
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	return out
}

// Scope rules, as Scope names the one that applied.
const (
	ScopeRunCIAll = "run-ci-all"
	ScopeWeekly   = "weekly cadence"
	ScopeRelease  = "release cadence"
	ScopeNightly  = "nightly cadence"
	ScopeImage    = "run-ci-image"
)

// Scope returns the broad label scope of a cadence and raw labels, sorted,
// and the rule that produced it (one of the Scope* constants), or nothing
// when no broad scope applies. The first matching rule wins: run-ci-all or
// a weekly or release cadence include every known label, a nightly cadence
// every label but nightly's subtraction, run-ci-image every label but its
// subtraction.
func Scope(cfg *config.Config, cadence string, raw []string) (labels []string, rule string) {
	switch {
	case slices.Contains(raw, LabelRunCIAll):
		return sorted(cfg.KnownLabels()), ScopeRunCIAll
	case cadence == Weekly:
		return sorted(cfg.KnownLabels()), ScopeWeekly
	case cadence == Release:
		return sorted(cfg.KnownLabels()), ScopeRelease
	case cadence == Nightly:
		return sorted(without(cfg.KnownLabels(), cfg.ScopeSubtractions[scopeNightly])), ScopeNightly
	case slices.Contains(raw, LabelRunCIImg):
		return sorted(without(cfg.KnownLabels(), cfg.ScopeSubtractions[scopeImageName])), ScopeImage
	}
	return nil, ""
}

func sorted(s []string) []string {
	sort.Strings(s)
	return s
}

// WithAllLabels returns p with every known label included, as
// --match-all-labels asks.
func (p Policy) WithAllLabels(cfg *config.Config) Policy {
	p.IncludeLabels = union(p.IncludeLabels, cfg.KnownLabels())
	return p
}

// Includes reports whether label is in the include set.
func (p Policy) Includes(label string) bool {
	_, ok := slices.BinarySearch(p.IncludeLabels, label)
	return ok
}

// Selects reports whether a registration with these labels and nightly flag
// is selected: cadence-eligible, and either unlabeled or sharing a label
// with the include set.
func (p Policy) Selects(labels []string, nightly bool) bool {
	if nightly && !p.AdmitNightly {
		return false
	}
	if len(labels) == 0 {
		return true
	}
	for _, l := range labels {
		if p.Includes(l) {
			return true
		}
	}
	return false
}

func without(all, drop []string) []string {
	out := make([]string, 0, len(all))
	for _, l := range all {
		if !slices.Contains(drop, l) {
			out = append(out, l)
		}
	}
	return out
}

func union(a, b []string) []string {
	set := make(map[string]bool, len(a)+len(b))
	for _, l := range a {
		set[l] = true
	}
	for _, l := range b {
		set[l] = true
	}
	out := make([]string, 0, len(set))
	for l := range set {
		out = append(out, l)
	}
	sort.Strings(out)
	return out
}
