package view

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/prune"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// PolicyView is the resolution of one workflow run as `policy --explain`
// and `policy --json` show it.
type PolicyView struct {
	Config    *config.Config
	Workflow  policy.Workflow
	Selection prune.Result
	// Pruning says how stage pruning went: "applied to …", or why not.
	Pruning string
	// PullRequest is set for a pull_request event; Paths then holds its
	// changed paths as stage selection read them, nil when the diff was
	// unusable, and DiffEnv names the variable that gives the diff file.
	PullRequest bool
	Paths       []prune.PathClass
	DiffEnv     string
	// ShardMatrix is the shard matrix of every GPU stage, when asked for.
	ShardMatrix []suite.StageMatrix
}

// WriteExplanation writes why each PR GPU stage runs or is skipped, why
// each label is included or not, and how each changed path was read (for
// an unusable diff, how to make a usable one).
func (v *PolicyView) WriteExplanation(w io.Writer) error {
	var b strings.Builder
	wf := v.Workflow
	fmt.Fprintf(&b, "\nPR GPU stages (pruning %s):\n%s", v.Pruning, describeStages(v.Selection.Stages, "  "))
	fmt.Fprintf(&b, "\nInclude labels (cadence %s):\n", wf.Cadence)
	if reasons := policy.ExplainLabels(v.Config, wf.Cadence, wf.RawLabels); len(reasons) == 0 {
		b.WriteString("  none: no broad scope applies and no known run-ci-<label> was requested\n")
	} else {
		b.WriteString(describeLabels(reasons, "  "))
	}
	switch {
	case !v.PullRequest:
	case v.Paths == nil:
		fmt.Fprintf(&b, "\nTo prune, set %s to a file written by: git diff --name-status -z -M origin/main... > FILE\n", v.DiffEnv)
	default:
		fmt.Fprintf(&b, "\nChanged paths (%d):\n%s", len(v.Paths), describePaths(v.Paths, "  "))
	}
	if v.ShardMatrix != nil {
		fmt.Fprintf(&b, "\nShard matrix:\n%s", shardMatrixText(v.ShardMatrix, v.Selection.Skipped))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the whole resolution as one indented JSON document.
func (v *PolicyView) WriteJSON(w io.Writer) error {
	wf := v.Workflow
	doc := struct {
		Cadence       string               `json:"cadence"`
		RawLabels     []string             `json:"raw_labels"`
		IncludeLabels []string             `json:"include_labels"`
		AdmitNightly  bool                 `json:"admit_nightly_tests"`
		Bypass        bool                 `json:"bypass_fastfail"`
		WriteBaseline bool                 `json:"write_baseline"`
		SkippedStages []string             `json:"skipped_stages"`
		Pruning       string               `json:"pruning"`
		Stages        []prune.Stage        `json:"stages"`
		Labels        []policy.LabelReason `json:"labels"`
		ShardMatrix   json.RawMessage      `json:"shard_matrix,omitempty"`
	}{
		Cadence:       wf.Cadence,
		RawLabels:     wf.RawLabels,
		IncludeLabels: wf.Policy.IncludeLabels,
		AdmitNightly:  wf.Policy.AdmitNightly,
		Bypass:        wf.Policy.Bypass,
		WriteBaseline: wf.Policy.WriteBaseline,
		SkippedStages: v.Selection.Skipped,
		Pruning:       v.Pruning,
		Stages:        v.Selection.Stages,
		Labels:        policy.ExplainLabels(v.Config, wf.Cadence, wf.RawLabels),
	}
	if v.ShardMatrix != nil {
		doc.ShardMatrix = json.RawMessage(ShardMatrixJSON(v.ShardMatrix))
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

// describePaths writes one line per path, indented, the classes aligned.
func describePaths(paths []prune.PathClass, indent string) string {
	rows := make([][]string, len(paths))
	for i, p := range paths {
		what := "matches no rule: affects every PR GPU stage"
		switch p.Class {
		case prune.PathTest:
			what = "a registered test file of " + strings.Join(p.Suites, ", ")
		case prune.PathSpared:
			what = "spared by the no-GPU rule " + p.Rule
		}
		rows[i] = []string{textfmt.LineStart(p.Path), what}
	}
	return explainLines(rows, indent)
}

// explainLines lays out an explanation's lines: after indent, a name
// (textfmt.LineStart has made it inert), padded to the widest, then why
// (text miles-ci words).
func explainLines(rows [][]string, indent string) string {
	return textfmt.Layout{Indent: indent, Left: 2, Show: textfmt.AsIs, ByteWidths: true}.Render(rows)
}

// describeStages writes one line per stage, indented, the reasons aligned.
func describeStages(stages []prune.Stage, indent string) string {
	rows := make([][]string, len(stages))
	for i, s := range stages {
		rows[i] = []string{textfmt.LineStart(s.Name), s.Reason}
	}
	return explainLines(rows, indent)
}

// describeLabels writes one line per reason, indented, the labels aligned:
// `label  included: why` or `label  not included: why`.
func describeLabels(reasons []policy.LabelReason, indent string) string {
	rows := make([][]string, len(reasons))
	for i, r := range reasons {
		state := "included: "
		if !r.Included {
			state = "not included: "
		}
		rows[i] = []string{textfmt.LineStart(r.Label), state + r.Reason}
	}
	return explainLines(rows, indent)
}
