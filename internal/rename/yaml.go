package rename

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pysrc"
)

// A YAML file (the roster, a workflow) keeps the name in many forms: a job
// id, a needs: entry, a skip guard's expression, a --suite word of a
// command, a matrix value, a comment. Every whole-word mention in its text
// is replaced, and the result is read back: each of its documents must be
// the old one with the name replaced in every value, key and comment, and
// nothing else changed (no tag, no style, no node). A mention the text
// holds in a form whose value would change otherwise (an escape sequence,
// a name that reads as a boolean) is refused, and so is a mention inside a
// longer word that is no suite or job id, and an anchor named after it.

// yamlFile is one parsed YAML file.
type yamlFile struct {
	docs []*yaml.Node
}

// parseYAML reads every document of f, or refuses the file when it cannot
// be read and mentions the name.
func (d *decider) parseYAML(f File) *yamlFile {
	docs, err := readYAML(f.Src)
	if err != nil {
		if bytes.Contains(f.Src, []byte(d.old)) {
			d.refuse(f.Path, yamlErrorLine(err), "the file is not valid YAML (%s), so its mentions of the name cannot be read", oneLine(err.Error()))
		}
		return nil
	}
	return &yamlFile{docs: docs}
}

func readYAML(src []byte) ([]*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var docs []*yaml.Node
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		docs = append(docs, &n)
	}
}

// jobIDs are the keys of the jobs: mapping of a workflow's first document.
func (y *yamlFile) jobIDs() []*yaml.Node {
	if len(y.docs) == 0 || len(y.docs[0].Content) == 0 {
		return nil
	}
	top := y.docs[0].Content[0]
	if top.Kind != yaml.MappingNode {
		return nil
	}
	var out []*yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "jobs" && top.Content[i+1].Kind == yaml.MappingNode {
			jobs := top.Content[i+1]
			for j := 0; j+1 < len(jobs.Content); j += 2 {
				out = append(out, jobs.Content[j])
			}
		}
	}
	return out
}

// yaml plans the edits of a YAML file.
func (d *decider) yaml(f File, y *yamlFile) {
	if y == nil {
		return
	}
	before := len(d.plan.Refused)
	for _, doc := range y.docs {
		d.anchors(f, doc)
	}
	if len(d.plan.Refused) > before {
		return
	}
	var edits []Edit
	for _, o := range occurrences(f.Src, d.old) {
		line := pysrc.LineOf(f.Src, o.at)
		switch d.judge(o) {
		case renameIt:
			edits = append(edits, Edit{Start: o.at, End: o.at + len(d.old), Line: line})
		case unclear:
			d.refuse(f.Path, line, "it stands inside %q, which is no suite of the roster, no job id and no shard name of the suite, so whether it names the suite is unclear: rename that word by hand, or set the name apart", o.token)
		}
	}
	// The read-back runs without edits too: a value that holds the name
	// only through an escape sequence is then refused, not left behind.
	text := apply(f.Src, edits, d.new)
	docs := y.docs
	if len(edits) > 0 {
		var err error
		if docs, err = readYAML(text); err != nil {
			d.refuse(f.Path, yamlErrorLine(err), "the file would not be valid YAML after it (%s)", oneLine(err.Error()))
			return
		}
	}
	if len(docs) != len(y.docs) {
		d.refuse(f.Path, 1, "the file would hold %d YAML documents after it instead of %d", len(docs), len(y.docs))
		return
	}
	for i := range docs {
		if n, why := d.sameButName(y.docs[i], docs[i]); n != nil {
			d.refuse(f.Path, n.Line, "here the text and the YAML value would not change alike (%s); rename it by hand", why)
			return
		}
	}
	if f.Role == Roster {
		d.roster(f, text)
	}
	if len(d.plan.Refused) == before {
		d.change(f, edits, text)
	}
}

// anchors refuses an anchor or alias whose name holds the name: it names a
// node, not the suite, and renaming one use of it would break the other.
func (d *decider) anchors(f File, n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Anchor != "" && d.replace(n.Anchor) != n.Anchor {
		d.refuse(f.Path, n.Line, "the YAML anchor &%s holds it; rename the anchor and its aliases by hand first", n.Anchor)
	}
	if n.Kind == yaml.AliasNode {
		return
	}
	for _, c := range n.Content {
		d.anchors(f, c)
	}
}

// sameButName compares a document with its rewrite: every node must keep
// its kind, tag, style and children, and its value and comments must be
// the old ones with the name replaced. It returns the first node that
// differs and how, or nil.
func (d *decider) sameButName(a, b *yaml.Node) (*yaml.Node, string) {
	rw := d.replace
	switch {
	case a.Kind != b.Kind || len(a.Content) != len(b.Content):
		return a, "its structure would change"
	case a.Tag != b.Tag:
		return a, fmt.Sprintf("%q would read as %s, not %s", b.Value, b.Tag, a.Tag)
	case a.Style != b.Style:
		return a, "its quoting would change"
	case rw(a.Value) != b.Value:
		return a, fmt.Sprintf("the value %q would not become %q; an escape sequence?", a.Value, rw(a.Value))
	case a.Anchor != b.Anchor:
		return a, "its anchor would change"
	case rw(a.HeadComment) != b.HeadComment || rw(a.LineComment) != b.LineComment || rw(a.FootComment) != b.FootComment:
		return a, "a comment would change otherwise"
	}
	if a.Kind == yaml.AliasNode {
		return nil, ""
	}
	if a.Kind == yaml.MappingNode {
		seen := map[string]bool{}
		for i := 0; i+1 < len(b.Content); i += 2 {
			if k := b.Content[i]; k.Kind == yaml.ScalarNode {
				if seen[k.Value] && k.Value == d.new {
					return a.Content[i], fmt.Sprintf("the mapping would hold the key %s twice", d.new)
				}
				seen[k.Value] = true
			}
		}
	}
	for i := range a.Content {
		if n, why := d.sameButName(a.Content[i], b.Content[i]); n != nil {
			return n, why
		}
	}
	return nil, ""
}

// roster checks the configuration's rewrite as miles-ci reads it: the same
// roster, but for the suite's name in its place and in every needs: and
// the implicit suite. A roster that still holds the old suite extends the
// built-in one, which holds it.
func (d *decider) roster(f File, text []byte) {
	after, err := config.Parse(d.cfg.Source, text)
	if err != nil {
		d.refuse(f.Path, 0, "the configuration would not be valid after it: %s", oneLine(err.Error()))
		return
	}
	before, err := config.Parse(d.cfg.Source, f.Src)
	if err != nil {
		d.refuse(f.Path, 0, "the configuration cannot be read: %s", oneLine(err.Error()))
		return
	}
	if _, still := after.Suite(d.old); still {
		line := 0
		if s, _ := before.Suite(d.old); !s.At.BuiltIn {
			line = s.At.Line
		}
		d.refuse(f.Path, line, "the file extends the built-in configuration, whose roster holds %s: write the whole configuration into the file first (move it away, run `miles-ci config --init`, then bring your changes back)", d.old)
		return
	}
	want := make([]config.Suite, len(before.Suites))
	for i, s := range before.Suites {
		want[i] = d.renamed(s)
	}
	got := make([]config.Suite, len(after.Suites))
	for i, s := range after.Suites {
		got[i] = d.renamed(s)
	}
	imp := before.Implicit
	if imp.Suite == d.old {
		imp.Suite = d.new
	}
	switch {
	case !reflect.DeepEqual(want, got) || imp != after.Implicit:
		d.refuse(f.Path, 0, "the roster would change otherwise than by the name; rename it by hand")
	case !reflect.DeepEqual(rest(before), rest(after)):
		d.refuse(f.Path, 0, "the name is also a value of the configuration that is no suite (a label, a path, a pattern), which must not change; rename the suite by hand")
	}
}

// rest is what a configuration holds besides its suites, to compare a
// configuration with its rewrite.
func rest(c *config.Config) []any {
	fps := make([][2]string, len(c.InfraFingerprints))
	for i, fp := range c.InfraFingerprints {
		fps[i] = [2]string{fp.Name, fp.Pattern}
	}
	return []any{c.Roots, c.Pattern, c.RegisterFuncs, c.KnownLabels(), c.LabelsFile, c.SuiteDefaults, c.Schedules,
		c.ScopeSubtractions, c.NoGPUPaths, c.FileRun, c.Gate, fps, c.Preflight}
}

// renamed is a suite with the name replaced and its places dropped, to
// compare a roster with its rewrite.
func (d *decider) renamed(s config.Suite) config.Suite {
	if s.Name == d.old {
		s.Name = d.new
	}
	s.Needs = append([]string(nil), s.Needs...)
	for i, n := range s.Needs {
		if n == d.old {
			s.Needs[i] = d.new
		}
	}
	s.At, s.RunsOnAt = config.Pos{}, config.Pos{}
	return s
}

// yamlErrorLine is the line a yaml.v3 error names, or 0.
func yamlErrorLine(err error) int {
	var line int
	if _, e := fmt.Sscanf(strings.TrimPrefix(err.Error(), "yaml: "), "line %d:", &line); e == nil {
		return line
	}
	return 0
}

// oneLine keeps a message on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// verdict is what a rename does with one place the old name stands.
type verdict int

const (
	renameIt verdict = iota
	leaveIt
	unclear
)

// judge decides one place the name stands in a workflow or the roster
// file: the name as a word of its own is renamed, and so is the stem of
// one of its shards' names (occurrence.shard: an artifact per shard, a
// download pattern, an example shard); inside the name of another suite
// or job, or of one of their shards, it stays; anywhere else it is
// unclear.
func (d *decider) judge(o occurrence) verdict {
	switch {
	case o.whole():
		return renameIt
	case d.known[o.token]:
		return leaveIt
	}
	stem, ok := o.shard()
	if !ok {
		return unclear
	}
	// report-nightly-NAME-1 is a shard of nightly-NAME, not of NAME.
	for rest := stem; rest != d.old && rest != ""; {
		if d.known[rest] {
			return leaveIt
		}
		_, rest, _ = strings.Cut(rest, "-")
	}
	return renameIt
}

// replace is s with every place judge renames renamed.
func (d *decider) replace(s string) string {
	if !strings.Contains(s, d.old) {
		return s
	}
	var sb strings.Builder
	at := 0
	for _, o := range occurrences([]byte(s), d.old) {
		if o.at < at || d.judge(o) != renameIt {
			continue
		}
		sb.WriteString(s[at:o.at])
		sb.WriteString(d.new)
		at = o.at + len(d.old)
	}
	sb.WriteString(s[at:])
	return sb.String()
}
