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

// maxMatrixJobs is the most jobs GitHub starts for one matrix; it refuses
// a matrix that would start more.
const maxMatrixJobs = 256

// expandBudget bounds the work of one expansion, in key comparisons and
// copies: far beyond any hand-written matrix, and small enough that a
// crafted one (thousands of axes or include entries) costs milliseconds.
const expandBudget = 1 << 20

// expandMatrix returns the jobs a job's strategy.matrix starts, as GitHub
// builds them: every combination of the axes (the keys other than include
// and exclude), less each combination an exclude entry matches, then each
// include entry merged into every combination whose axis values it does
// not change, or added as a job of its own when it changes them all. A job
// without a matrix is one job with no value. A matrix lint cannot read (an
// expression, a value that is not a list, more jobs than GitHub starts) is
// a problem, with the node it stands on.
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
		values           [][]*yaml.Node
		include, exclude []combo
		budget           = expandBudget
		jobs             = 1
	)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], deref(m.Content[i+1])
		switch k.Value {
		case "include", "exclude":
			entries, at, problem := matrixEntries(k, v, &budget)
			if problem != "" {
				return nil, at, problem
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
		axes = append(axes, k.Value)
		values = append(values, v.Content)
		if jobs *= len(v.Content); jobs > maxMatrixJobs {
			return nil, mk, fmt.Sprintf("the matrix starts more than %d jobs, which GitHub refuses", maxMatrixJobs)
		}
	}
	var combos []combo
	if len(axes) > 0 {
		combos = product(axes, values, jobs)
		budget -= jobs * len(axes)
	}
	combos = withoutExcluded(combos, exclude, &budget)
	if budget < 0 {
		return nil, mk, "the matrix is too large for lint to expand"
	}
	original := len(combos)
	for _, e := range include {
		if budget -= (original + 1) * (len(axes) + len(e)); budget < 0 {
			return nil, mk, "the matrix is too large for lint to expand"
		}
		merged := false
		for i := range combos[:original] {
			if keepsAxes(combos[i], e, axes) {
				combos[i].set(e)
				merged = true
			}
		}
		if !merged {
			c := combo{}
			c.set(e)
			if combos = append(combos, c); len(combos) > maxMatrixJobs {
				return nil, mk, fmt.Sprintf("the matrix starts more than %d jobs, which GitHub refuses", maxMatrixJobs)
			}
		}
	}
	return combos, nil, ""
}

// matrixEntries reads the entries of matrix.include or matrix.exclude (key
// k, value v), each a mapping, charging their keys to budget.
func matrixEntries(k, v *yaml.Node, budget *int) ([]combo, *yaml.Node, string) {
	if v == nil || v.Kind != yaml.SequenceNode {
		return nil, k, fmt.Sprintf("matrix.%s is %s, not a list of entries", k.Value, describeNode(v))
	}
	out := make([]combo, len(v.Content))
	for i, n := range v.Content {
		e := deref(n)
		if e == nil || e.Kind != yaml.MappingNode {
			return nil, n, fmt.Sprintf("an entry of matrix.%s is %s, not a mapping", k.Value, describeNode(e))
		}
		out[i] = make(combo, len(e.Content)/2)
		for p := 0; p+1 < len(e.Content); p += 2 {
			out[i][e.Content[p].Value] = deref(e.Content[p+1])
		}
		*budget -= len(e.Content)
	}
	return out, nil, ""
}

// product returns every combination of the axes' values, n of them, the
// first axis varying slowest, as GitHub orders the jobs.
func product(axes []string, values [][]*yaml.Node, n int) []combo {
	out := make([]combo, n)
	for i := range out {
		c := make(combo, len(axes))
		rest := i
		for a := len(axes) - 1; a >= 0; a-- {
			c[axes[a]] = deref(values[a][rest%len(values[a])])
			rest /= len(values[a])
		}
		out[i] = c
	}
	return out
}

// set sets every key of the entry e in c. Each combination is a map of
// its own, so an include entry changes only the jobs it is merged into.
func (c combo) set(e combo) {
	for k, n := range e {
		c[k] = n
	}
}

// keepsAxes reports whether the include entry e leaves every axis value of
// c as it is: only then is it merged into c.
func keepsAxes(c, e combo, axes []string) bool {
	for _, a := range axes {
		if v, ok := e[a]; ok && !sameValue(c[a], v) {
			return false
		}
	}
	return true
}

// withoutExcluded drops each combination that an exclude entry matches:
// every key of the entry has the combination's value. It stops, returning
// nothing, when the budget runs out.
func withoutExcluded(combos, exclude []combo, budget *int) []combo {
	if len(exclude) == 0 {
		return combos
	}
	var out []combo
	for _, c := range combos {
		excluded := false
		for _, e := range exclude {
			if *budget -= len(e) + 1; *budget < 0 {
				return nil
			}
			match := true
			for k, v := range e {
				match = match && sameValue(c[k], v)
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
