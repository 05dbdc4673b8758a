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
		if !namesUnknownLabel(cfg, r) {
			continue
		}
		msg := "--labels entry " + pyfmt.Repr(r) + " names no known domain label"
		if parts := strings.Split(r, ","); len(parts) > 1 {
			msg += "; --labels takes labels separated by spaces, not commas: " + strings.Join(parts, " ")
		} else {
			msg += knownLabelHint(cfg, r, "passed")
		}
		out = append(out, Warning{Label: r, Msg: msg})
	}
	return out
}

// namesUnknownLabel reports whether r has the form run-ci-X with X no
// known domain label and r no broad scope label: it selects nothing.
func namesUnknownLabel(cfg *config.Config, r string) bool {
	name, ok := strings.CutPrefix(r, RunCIPrefix)
	return ok && r != LabelRunCIAll && r != LabelRunCIImg && !cfg.IsKnownLabel(name)
}

// knownLabelHint ends the warning about r, a run-ci-X with X unknown: the
// closest known label, else every known one, each "passed" or "added" as
// run-ci-<label>.
func knownLabelHint(cfg *config.Config, r, given string) string {
	if near, ok := suggest.Closest(strings.TrimPrefix(r, RunCIPrefix), cfg.KnownLabels()); ok {
		return "; did you mean " + pyfmt.Repr(RunCIPrefix+near) + "?"
	}
	return " (the known ones, each " + given + " as run-ci-<label>: " + strings.Join(sorted(cfg.KnownLabels()), ", ") + ")"
}

// PRLabelWarnings warns, once per label, about the labels of a pull
// request that a newcomer may have meant to select tests with but that
// select nothing: a kept run-ci-X whose X is no known domain label, with
// the closest known one; an ignored label that resembles a CI label (a
// workflow-only label, run-ci-all, run-ci-image or run-ci-<known label>:
// another case, '_' or a space for '-', a typo), with it; and an ignored
// label that starts with run-ci- but is no well-formed name. Other ignored
// labels (bug, documentation, a bare domain label such as megatron) are a
// repository's own and get no warning. The labels are quoted as Python
// writes a str (pyfmt.Repr), so none can start a line of its own.
func PRLabelWarnings(cfg *config.Config, kept, ignored []string) []Warning {
	var out []Warning
	seen := map[string]bool{}
	quote := pyfmt.Repr // GitHub keeps a label to 50 characters
	for _, r := range kept {
		if seen[r] || !namesUnknownLabel(cfg, r) {
			continue
		}
		seen[r] = true
		out = append(out, Warning{Label: r, Msg: "PR label " + quote(r) + " names no known domain label and selects no test" +
			knownLabelHint(cfg, r, "added")})
	}
	triggers := []string{LabelNightly, LabelBypass, LabelRunCIAll, LabelRunCIImg}
	for _, l := range cfg.KnownLabels() {
		triggers = append(triggers, RunCIPrefix+l)
	}
	for _, r := range ignored {
		if seen[r] {
			continue
		}
		seen[r] = true
		msg := "PR label " + quote(r) + " is no CI label, so it selects nothing"
		near, ok := resembles(r, triggers)
		switch {
		case ok:
			msg += "; did you mean " + pyfmt.Repr(near) + "?"
		case strings.HasPrefix(strings.ToLower(r), RunCIPrefix):
			msg += ": a run-ci-<label> name holds only ASCII letters, digits, '_', '.' and '-'"
		default:
			continue
		}
		out = append(out, Warning{Label: r, Msg: msg})
	}
	return out
}

// resembles returns the trigger label r was most likely meant to be: the
// one it equals but for case, '_' or spaces for '-' and blanks around it,
// else the closest by edit distance.
func resembles(r string, triggers []string) (string, bool) {
	norm := strings.ToLower(strings.TrimSpace(r))
	norm = strings.NewReplacer("_", "-", " ", "-").Replace(norm)
	if slices.Contains(triggers, norm) {
		return norm, true
	}
	return suggest.Closest(r, triggers)
}
