package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
)

// Workflow events the adapter understands.
const (
	EventPullRequest      = "pull_request"
	EventSchedule         = "schedule"
	EventWorkflowDispatch = "workflow_dispatch"
)

// Trigger holds the facts of one workflow run, as the workflow passes them.
type Trigger struct {
	Event           string
	Schedule        string
	PRLabelsJSON    string
	CadenceOverride string
}

// Adapted is what a trigger decides before the policy is resolved: the
// cadence and the raw labels the run keeps.
type Adapted struct {
	Cadence string
	// RawLabels are the kept PR labels in their order, duplicates kept;
	// never nil.
	RawLabels []string
	// Overridden reports that a cadence override decided the cadence.
	Overridden bool
	// Ignored are the PR labels the run does not keep (neither
	// workflow-only nor a well-formed run-ci-X), in their order, for the
	// warnings of PRLabelWarnings.
	Ignored []string
}

// Adapt turns a trigger into a cadence and raw labels. A non-empty cadence
// override wins before anything else is looked at (it is validated later,
// by Resolve). Errors are *Error with the reference's messages.
func Adapt(cfg *config.Config, t Trigger) (Adapted, error) {
	switch {
	case t.CadenceOverride != "":
		return Adapted{Cadence: t.CadenceOverride, RawLabels: []string{}, Overridden: true}, nil
	case t.Event == EventPullRequest:
		labels, ignored, err := prLabels(t.PRLabelsJSON)
		if err != nil {
			return Adapted{}, err
		}
		cadence := Regular
		if slices.Contains(labels, LabelNightly) {
			cadence = Nightly
		}
		return Adapted{Cadence: cadence, RawLabels: labels, Ignored: ignored}, nil
	case t.Event == EventSchedule:
		cadence, ok := cfg.Schedules[t.Schedule]
		if !ok {
			return Adapted{}, &Error{Msg: "No CI policy is defined for schedule: " + t.Schedule,
				Input: InputSchedule, Expected: scheduleChoices(cfg)}
		}
		return Adapted{Cadence: cadence, RawLabels: []string{}}, nil
	case t.Event == EventWorkflowDispatch:
		return Adapted{Cadence: Regular, RawLabels: []string{}}, nil
	}
	return Adapted{}, &Error{Msg: "Unsupported PR Test trigger: " + t.Event, Input: InputEvent, Expected: EventChoices}
}

// EventChoices are the workflow events Adapt understands, as a hint says
// them.
const EventChoices = EventPullRequest + ", " + EventSchedule + " or " + EventWorkflowDispatch

// scheduleChoices are the configured schedules, as a hint says them.
func scheduleChoices(cfg *config.Config) string {
	crons := make([]string, 0, len(cfg.Schedules))
	for c := range cfg.Schedules {
		crons = append(crons, c)
	}
	slices.Sort(crons)
	if len(crons) == 0 {
		return "no schedule: the configuration has none"
	}
	for i, c := range crons {
		crons[i] = "'" + c + "' (" + cfg.Schedules[c] + ")"
	}
	return "one of the configured schedules: " + strings.Join(crons, ", ")
}

// labelsError is the error of every PR_LABELS_JSON that is not a JSON
// array of strings.
func labelsError() error {
	return &Error{Msg: errLabelsJSON, Input: InputPRLabelsJSON,
		Expected: `a JSON array of strings, such as '["run-ci-megatron"]' or '[]' (in a workflow, toJSON(github.event.pull_request.labels.*.name))`}
}

// errLabelsJSON is the one message for every PR_LABELS_JSON that is not a
// JSON array of strings.
const errLabelsJSON = "PR labels were not a JSON string array"

// KeptPRLabels parses the PR labels JSON and keeps, in order and with
// duplicates, the labels the policy may act on: the workflow-only labels and
// the well-formed run-ci-X names (IsSafeRunCILabel). Anything but a JSON
// array of strings is an error.
//
// Whatever Python's json.loads accepts beyond strict JSON (NaN, Infinity,
// huge numbers, duplicate object keys) can never be a string element of a
// top-level array, so strict parsing decides the same cases. Lone surrogate
// escapes and invalid UTF-8 inside strings decode here to U+FFFD where
// Python keeps them, but either way the label is not a safe name and is
// dropped. One case differs in kind: input nested deeper than Python's
// recursion limit crashes the reference, and is this error here.
func KeptPRLabels(src string) ([]string, error) {
	kept, _, err := prLabels(src)
	return kept, err
}

// prLabels is KeptPRLabels, also returning the labels it does not keep, in
// order.
func prLabels(src string) (kept, ignored []string, err error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(src)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, nil, labelsError()
	}
	// Only whitespace may follow the value.
	if _, err := dec.Token(); err != io.EOF {
		return nil, nil, labelsError()
	}
	items, ok := v.([]any)
	if !ok {
		return nil, nil, labelsError()
	}
	kept = []string{}
	for _, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, nil, labelsError()
		}
		if IsWorkflowOnly(s) || IsSafeRunCILabel(s) {
			kept = append(kept, s)
		} else {
			ignored = append(ignored, s)
		}
	}
	return kept, ignored, nil
}

// IsSafeRunCILabel reports whether the whole of s is "run-ci-", an ASCII
// letter or digit, then any ASCII letters, digits, '_', '.' or '-'. The
// whole string must match: a trailing newline is not allowed.
func IsSafeRunCILabel(s string) bool {
	rest, ok := strings.CutPrefix(s, RunCIPrefix)
	if !ok || rest == "" || !isASCIIAlnum(rest[0]) {
		return false
	}
	for i := 1; i < len(rest); i++ {
		c := rest[i]
		if !isASCIIAlnum(c) && c != '_' && c != '.' && c != '-' {
			return false
		}
	}
	return true
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Workflow is the resolution of one workflow run, before stage selection.
type Workflow struct {
	Adapted
	Policy   Policy
	Warnings []Warning
}

// ResolveWorkflow adapts the trigger and resolves the policy of the result.
func ResolveWorkflow(cfg *config.Config, t Trigger) (Workflow, error) {
	a, err := Adapt(cfg, t)
	if err != nil {
		return Workflow{}, err
	}
	p, warnings, err := Resolve(cfg, a.Cadence, a.RawLabels)
	if err != nil {
		var pe *Error
		if a.Overridden && !ValidCadence(a.Cadence) && errors.As(err, &pe) {
			pe.Input = InputCadenceOverride
			pe.Expected = strings.Join(config.Cadences, ", ") + ", or empty for the trigger's own cadence"
		}
		return Workflow{}, err
	}
	warnings = append(warnings, PRLabelWarnings(cfg, a.RawLabels, a.Ignored)...)
	return Workflow{Adapted: a, Policy: p, Warnings: warnings}, nil
}
