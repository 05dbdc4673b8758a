package policy

import (
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/suggest"
)

// LabelReason says why a domain label is in a policy's include set, or why
// a requested one is not.
type LabelReason struct {
	Label    string `json:"label"`
	Included bool   `json:"included"`
	Reason   string `json:"reason"`
}

// ExplainLabels explains the include set of the policy resolved from a
// cadence and raw labels: one entry per included label, in sorted order,
// then one per known label a broad scope left out, then one per run-ci-X
// request whose X is not a known label (a typo, or a
// broad scope label with no domain meaning of its own). It assumes Resolve
// succeeded on the same inputs.
func ExplainLabels(cfg *config.Config, cadence string, raw []string) []LabelReason {
	scope, rule := Scope(cfg, cadence, raw)
	requested, _ := Requested(cfg, raw)
	p, _, err := Resolve(cfg, cadence, raw)
	if err != nil {
		return nil
	}
	out := []LabelReason{}
	for _, l := range p.IncludeLabels {
		var why []string
		if _, ok := slices.BinarySearch(requested, l); ok {
			why = append(why, "requested by "+RunCIPrefix+l)
		}
		if _, ok := slices.BinarySearch(scope, l); ok {
			why = append(why, "in the "+rule+" scope")
		}
		out = append(out, LabelReason{Label: l, Included: true, Reason: strings.Join(why, "; ")})
	}
	if rule != "" {
		for _, l := range sorted(cfg.KnownLabels()) {
			if !p.Includes(l) {
				out = append(out, LabelReason{Label: l, Reason: "left out by the " + rule + " scope; request " + RunCIPrefix + l + " to include it"})
			}
		}
	}
	stripped, _ := Strip(raw)
	for _, s := range stripped {
		if cfg.IsKnownLabel(s) {
			continue
		}
		reason := RunCIPrefix + s + " names no known domain label"
		if near, ok := suggest.Closest(s, cfg.KnownLabels()); ok {
			reason += "; did you mean " + RunCIPrefix + near + "?"
		}
		if name := RunCIPrefix + s; name == LabelRunCIAll || name == LabelRunCIImg {
			reason = RunCIPrefix + s + " is a broad scope label, not a domain label"
		}
		out = append(out, LabelReason{Label: RunCIPrefix + s, Reason: reason})
	}
	return out
}

// UnknownLabels warns about each raw label of the form run-ci-X whose X is
// no known domain label (a broad scope label such as run-ci-all is known):
// it selects nothing, which a typo would otherwise do silently. The warning
// names the closest known label when one is near, and says that --labels
// takes space-separated values when the entry is a comma-separated list of
// labels. raw should hold each label once.
func UnknownLabels(cfg *config.Config, raw []string) []Warning {
	var out []Warning
	for _, r := range raw {
		name, ok := strings.CutPrefix(r, RunCIPrefix)
		if !ok || r == LabelRunCIAll || r == LabelRunCIImg || cfg.IsKnownLabel(name) {
			continue
		}
		msg := "--labels entry " + pyfmt.Repr(r) + " names no known domain label"
		if parts := strings.Split(r, ","); len(parts) > 1 {
			msg += "; --labels takes labels separated by spaces, not commas: " + strings.Join(parts, " ")
		} else if near, ok := suggest.Closest(name, cfg.KnownLabels()); ok {
			msg += "; did you mean " + pyfmt.Repr(RunCIPrefix+near) + "?"
		} else {
			msg += " (the known ones, each passed as run-ci-<label>: " + strings.Join(sorted(cfg.KnownLabels()), ", ") + ")"
		}
		out = append(out, Warning{Label: r, Msg: msg})
	}
	return out
}
