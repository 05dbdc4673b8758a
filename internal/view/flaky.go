package view

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// Flaky writes the answer of `history flaky`: a line per file that
// failed or passed only on a retry (files are those at or above the
// rate threshold), then what was left out and, when a file failed on one
// host alone, where to look next. Every name in it comes from the history
// and is written inert (textfmt.Table).
func Flaky(w io.Writer, res *history.Flaky, files []*history.FlakyFile) error {
	if len(files) > 0 {
		rows := [][]string{{"FILE", "SUITE", "RUNS", "FAILED", "RETRIED", "SAME-SHA", "RATE", "ONLY ON"}}
		for _, f := range files {
			rows = append(rows, []string{f.File, f.Suite, strconv.Itoa(f.Runs), strconv.Itoa(f.Failures),
				strconv.Itoa(f.PassedOnRetry), strconv.Itoa(f.PassedSameCommit), Percent(f.Rate), dash(f.OnlyOn)})
		}
		if _, err := io.WriteString(w, textfmt.Table(rows, len(rows[0]))); err != nil {
			return err
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed or passed only on a retry", textfmt.CountNoun(len(files), "file"))
	if hidden := len(res.Files) - len(files); hidden > 0 {
		fmt.Fprintf(&b, " (%d more under --min-rate)", hidden)
	}
	fmt.Fprintf(&b, "; %s: every run passed at the first attempt\n", textfmt.CountNoun(res.Clean, "clean file"))
	for _, f := range files {
		if f.OnlyOn != "" {
			b.WriteString("ONLY ON: the file failed in two runs or more, every time on that host, and passed on another: see miles-ci history hosts\n")
			break
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Percent writes a rate as "20.0%".
func Percent(rate float64) string { return strconv.FormatFloat(rate*100, 'f', 1, 64) + "%" }

// FlakyJSON writes the answer as the JSON document of `history flaky
// --json`: the threshold, the files at or above it, how many were below
// it and how many clean.
func FlakyJSON(w io.Writer, res *history.Flaky, files []*history.FlakyFile, minRate float64) error {
	if files == nil {
		files = []*history.FlakyFile{}
	}
	return writeJSON(w, struct {
		MinRate float64              `json:"min_rate"`
		Files   []*history.FlakyFile `json:"files"`
		Below   int                  `json:"below_min_rate"`
		Clean   int                  `json:"clean"`
	}{minRate, files, len(res.Files) - len(files), res.Clean})
}

// quarantineEntry is one entry of the proposed quarantine, in the form
// of the configuration's quarantine: key (config.QuarantineEntry).
type quarantineEntry struct {
	File   yamlText `yaml:"file"`
	Reason yamlText `yaml:"reason"`
	Until  yamlDate `yaml:"until"`
	Suites yamlList `yaml:"suites"`
}

// yamlDate is a date written plain (2027-01-31), as the configuration
// writes an entry's until.
type yamlDate string

func (d yamlDate) MarshalYAML() (any, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: string(d)}, nil
}

// yamlList is a list of names written on one line ([a, b]), each as
// yamlText.
type yamlList []string

func (l yamlList) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range l {
		v, _ := yamlText(s).MarshalYAML()
		n.Content = append(n.Content, v.(*yaml.Node))
	}
	return n, nil
}

// yamlText is a name from the history written as a YAML value: as the
// encoder chooses, except that a name holding a line break or another
// character that is not printable is double-quoted, its escapes on one
// line. The encoder would write a name with a line break as a block whose
// later lines start with the name's own text, such as a workflow command.
type yamlText string

func (s yamlText) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(s)}
	if !textfmt.Printable(string(s)) {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n, nil
}

// Quarantine writes the files as entries of the configuration's
// quarantine: list, to review and paste into it: each file with the
// measured rate and counts as its reason, until the day given, and the
// suite that measured it. A file that failed on one host alone is left
// out, in a comment: quarantining it would hide the host.
func Quarantine(w io.Writer, files []*history.FlakyFile, minRate float64, until string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# The files of the run history that failed or passed only on a retry in at\n"+
		"# least %s of their runs (miles-ci history flaky --quarantine): entries of\n"+
		"# the configuration's quarantine to review and paste (miles-ci help config).\n", Percent(minRate))
	var list []quarantineEntry
	var tied []*history.FlakyFile
	for _, f := range files {
		if f.OnlyOn != "" {
			tied = append(tied, f)
			continue
		}
		list = append(list, quarantineEntry{File: yamlText(f.File), Until: yamlDate(until), Suites: yamlList{f.Suite},
			Reason: yamlText(fmt.Sprintf("flaky: %s of %d runs (%d failed, %d passed on a retry, %d failed at a commit where another run passed)",
				Percent(f.Rate), f.Runs, f.Failures, f.PassedOnRetry, f.PassedSameCommit))})
	}
	if list == nil {
		list = []quarantineEntry{}
	}
	// Indented as the configuration is (default.yaml), to paste beside it.
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(struct {
		Quarantine []quarantineEntry `yaml:"quarantine"`
	}{list}); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if len(tied) > 0 {
		b.WriteString("# Left out, failing on one host only (see miles-ci history hosts):\n")
		for _, f := range tied {
			fmt.Fprintf(&b, "#   %s (%s): only on %s\n", textfmt.Cell(f.File), textfmt.Cell(f.Suite), textfmt.Cell(f.OnlyOn))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
