package lint

import (
	"fmt"
	"regexp"

	"gopkg.in/yaml.v3"
)

// How GitHub Actions expands a job's strategy.matrix into the jobs it
// starts, for a command that reads ${{ matrix.KEY }}.

// combo is one job of a matrix: the value node of each key.
type combo map[string]*yaml.Node

// matrixRef matches an expression that is one matrix value.
var matrixRef = regexp.MustCompile(`^\$\{\{\s*matrix\.([A-Za-z_][A-Za-z0-9_-]*)\s*\}\}$`)

// matrixKey returns KEY when text is exactly ${{ matrix.KEY }}.
func matrixKey(text string) (string, bool) {
	m := matrixRef.FindStringSubmatch(text)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// expandMatrix returns the jobs a job's strategy.matrix starts, as GitHub
// builds them: every combination of the axes (the keys other than include
// and exclude), less each combination an exclude entry matches, then each
// include entry merged into every combination whose axis values it does
// not change, or added as a job of its own when it changes them all. A job
// without a matrix is one job with no value. A matrix lint cannot read (an
// expression, a value that is not a list) is a problem, with the node it
// stands on.
func expandMatrix(j *job) ([]combo, *yaml.Node, string) {
	mk, m := j.get("strategy", "matrix")
	if m == nil {
		return []combo{{}}, nil, ""
	}
	if text, ok := scalar(m); ok {
		return nil, mk, fmt.Sprintf("the matrix is %s, which lint cannot expand", cut(text))
	}
	if m.Kind != yaml.MappingNode {
		return nil, mk, "the matrix is " + describeNode(m) + ", not a mapping of keys to lists"
	}
	var (
		axes             []string
		include, exclude []*yaml.Node
		combos           []combo
	)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], deref(m.Content[i+1])
		switch k.Value {
		case "include", "exclude":
			if v == nil || v.Kind != yaml.SequenceNode {
				return nil, k, fmt.Sprintf("matrix.%s is %s, not a list of entries", k.Value, describeNode(v))
			}
			entries := make([]*yaml.Node, len(v.Content))
			for e, n := range v.Content {
				if entries[e] = deref(n); entries[e] == nil || entries[e].Kind != yaml.MappingNode {
					return nil, n, fmt.Sprintf("an entry of matrix.%s is %s, not a mapping", k.Value, describeNode(entries[e]))
				}
			}
			if k.Value == "include" {
				include = entries
			} else {
				exclude = entries
			}
			continue
		}
		if v == nil || v.Kind != yaml.SequenceNode {
			return nil, k, fmt.Sprintf("matrix.%s is %s, which lint cannot expand: write a list", k.Value, describeNode(v))
		}
		if len(axes) == 0 {
			combos = []combo{{}}
		}
		axes = append(axes, k.Value)
		var next []combo
		for _, c := range combos {
			for _, val := range v.Content {
				n := c.with(k.Value, deref(val))
				next = append(next, n)
			}
		}
		combos = next
	}
	combos = withoutExcluded(combos, exclude)
	original := len(combos)
	for _, e := range include {
		merged := false
		for i := range combos[:original] {
			if keepsAxes(combos[i], e, axes) {
				combos[i] = combos[i].merge(e)
				merged = true
			}
		}
		if !merged {
			combos = append(combos, combo{}.merge(e))
		}
	}
	return combos, nil, ""
}

// with returns a copy of c with key set to v.
func (c combo) with(key string, v *yaml.Node) combo {
	out := make(combo, len(c)+1)
	for k, n := range c {
		out[k] = n
	}
	out[key] = v
	return out
}

// merge returns a copy of c with every key of the mapping e set.
func (c combo) merge(e *yaml.Node) combo {
	out := c
	for i := 0; i+1 < len(e.Content); i += 2 {
		out = out.with(e.Content[i].Value, deref(e.Content[i+1]))
	}
	return out
}

// keepsAxes reports whether the include entry e leaves every axis value of
// c as it is: only then is it merged into c.
func keepsAxes(c combo, e *yaml.Node, axes []string) bool {
	for _, a := range axes {
		if _, v := lookup(e, a); v != nil && !sameValue(c[a], v) {
			return false
		}
	}
	return true
}

// withoutExcluded drops each combination that an exclude entry
// matches: every key of the entry has the combination's value.
func withoutExcluded(combos []combo, exclude []*yaml.Node) []combo {
	var out []combo
	for _, c := range combos {
		excluded := false
		for _, e := range exclude {
			match := true
			for i := 0; i+1 < len(e.Content); i += 2 {
				if !sameValue(c[e.Content[i].Value], deref(e.Content[i+1])) {
					match = false
				}
			}
			excluded = excluded || match
		}
		if !excluded {
			out = append(out, c)
		}
	}
	return out
}

// sameValue compares two matrix values: scalars by their text, anything
// else only with itself.
func sameValue(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Kind == yaml.ScalarNode && b.Kind == yaml.ScalarNode {
		return a.Value == b.Value
	}
	return a == b
}
