package lint

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// WriteText writes one line per finding, PATH:LINE:COL: SEVERITY: MESSAGE
// [RULE], then the summary line `N errors, M warnings`. Each line is
// textfmt.OneLine's, whatever text of a workflow or a file name a finding
// quotes, so no output line can start with a forged workflow command.
func (r *Result) WriteText(w io.Writer) error {
	for _, f := range r.Findings {
		if _, err := fmt.Fprintln(w, textfmt.OneLine(f.String())); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "%s, %s\n", textfmt.CountNoun(r.Errors, "error"), textfmt.CountNoun(r.Warnings, "warning"))
	return err
}

// WriteJSON writes {"findings":[…],"errors":N,"warnings":M}.
func (r *Result) WriteJSON(w io.Writer) error {
	data, err := json.MarshalIndent(struct {
		Findings []Finding `json:"findings"`
		Errors   int       `json:"errors"`
		Warnings int       `json:"warnings"`
	}{r.Findings, r.Errors, r.Warnings}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// WriteAnnotations writes each finding as a GitHub Actions annotation on
// its line, titled with its rule.
func (r *Result) WriteAnnotations(w io.Writer) error {
	for _, f := range r.Findings {
		level := ghactions.LevelError
		if f.Severity == Warning {
			level = ghactions.LevelWarning
		}
		a := ghactions.Annotation{Level: level, File: f.Path, Line: f.Line, Col: f.Col, Title: f.Rule, Message: f.Message}
		if _, err := fmt.Fprintln(w, a.String()); err != nil {
			return err
		}
	}
	return nil
}

// Failed reports whether the run fails: an error, or with strict a warning.
func (r *Result) Failed(strict bool) bool {
	return r.Errors > 0 || strict && r.Warnings > 0
}
