package config

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// Complete returns the configuration as the whole YAML document a
// repository commits as .miles-ci.yaml, so that its roster changes only
// when that file does, never with a new miles-ci: no `extends` (an overlay
// is written merged with the built-in sections it took), the sections in
// the built-in order, the comments of the files it came from kept, every
// alias written out. The labels keep one source: when they came from the
// labels file, the document names labels_file and leaves out the labels:
// list that only stood in for it; otherwise it holds the list in effect and
// no labels_file. The document opens with a comment saying it was written
// from `from` and how to add a suite, then the comment that opened the
// source file (not the built-in file's, which speaks of itself).
func (c *Config) Complete(from string) ([]byte, error) {
	if c.tree == nil {
		return nil, fmt.Errorf("the configuration from %s was not read from a document", c.Source)
	}
	top := plainCopy(c.tree)
	drop, keep := "labels_file", "labels"
	if c.LabelsFromFile {
		drop, keep = keep, drop
	}
	if i := keyIndex(top, drop); i >= 0 {
		top.Content = slices.Delete(top.Content, i, i+2)
		if k := keyIndex(top, keep); k >= 0 {
			// The comments of the two spoke of a file and its fallback.
			top.Content[k].HeadComment = labelsComment(c)
		}
	}
	sortSections(top)
	header := "# The miles-ci configuration of this repository, written by\n" +
		"# `miles-ci config --init` from " + from + ".\n" +
		"# It is whole (no extends:), so its roster changes only when this file does,\n" +
		"# never with a new miles-ci. To add a suite, add a line under its backend\n" +
		"# in suites: below, as\n" +
		"#   - {name: stage-c-8-gpu-b200, runs_on: [b200, 8gpu], shards: 1}\n" +
		"# and its stage job to the workflow (`miles-ci lint` checks that they agree)."
	if c.Source != "default" && c.header != "" {
		header += "\n\n" + c.header
	}
	doc := &yaml.Node{Kind: yaml.DocumentNode, HeadComment: header, Content: []*yaml.Node{top}}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("write the configuration: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("write the configuration: %w", err)
	}
	out := spaceSections(buf.Bytes())
	// What is written must read back; a failure here is miles-ci's bug,
	// and it is better reported than committed.
	if _, err := Parse(FileName, out); err != nil {
		return nil, fmt.Errorf("the configuration written out does not read back: %w", err)
	}
	return out, nil
}

// labelsComment is the comment of the one labels section Complete keeps.
func labelsComment(c *Config) string {
	if c.LabelsFromFile {
		return "# Domain labels: the KNOWN_LABELS dict of " + c.LabelsFile + ", their one source.\n" +
			"# A PR selects label X with the GitHub label run-ci-X."
	}
	return "# Domain labels, in order. A PR selects label X with the GitHub label run-ci-X."
}

// plainCopy copies a node tree, writing out what an alias shared (Parse
// resolved every alias to its anchored node) with no anchor left.
func plainCopy(n *yaml.Node) *yaml.Node {
	c := *n
	c.Anchor = ""
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, k := range n.Content {
		c.Content[i] = plainCopy(k)
	}
	return &c
}

// keyIndex is the index of key in a mapping's Content, or -1.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// sortSections puts the sections of a top-level mapping in topKeys order
// (an overlay's own sections came first).
func sortSections(top *yaml.Node) {
	type pair struct{ k, v *yaml.Node }
	pairs := make([]pair, 0, len(top.Content)/2)
	for i := 0; i+1 < len(top.Content); i += 2 {
		pairs = append(pairs, pair{top.Content[i], top.Content[i+1]})
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		return slices.Index(topKeys, a.k.Value) - slices.Index(topKeys, b.k.Value)
	})
	top.Content = top.Content[:0]
	for _, p := range pairs {
		top.Content = append(top.Content, p.k, p.v)
	}
}

// spaceSections puts a blank line before each top-level section (and the
// comment above it), as a person writes the file; the encoder writes none.
func spaceSections(text []byte) []byte {
	lines := strings.SplitAfter(string(text), "\n")
	var out strings.Builder
	for i, line := range lines {
		if i > 0 && line != "" && line[0] != ' ' && line[0] != '\n' && line[0] != '-' {
			prev := lines[i-1]
			if prev != "\n" && !strings.HasPrefix(prev, "#") {
				out.WriteString("\n")
			}
		}
		out.WriteString(line)
	}
	return []byte(out.String())
}
