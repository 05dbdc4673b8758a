package lint

import (
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleInstallVersion names a MILES_CI_VERSION pin of another version than
// the one most pins give.
const RuleInstallVersion = "install-version"

// versionKey is the env key that pins the version miles-ci installs.
const versionKey = "MILES_CI_VERSION"

var _ = register(Rule{Name: RuleInstallVersion, Severity: Error,
	Summary: "the MILES_CI_VERSION pins of the repository are not all one",
	onRepo:  (*checker).checkInstallVersions})

// versionPin is one MILES_CI_VERSION env key's value and where it stands.
type versionPin struct {
	path      string
	value     string
	line, col int
}

// envPins collects the MILES_CI_VERSION values of every env: mapping of a
// document, in document order. A value that is an expression pins
// nothing. Aliases are not followed: what they name is read where it is
// written.
func envPins(file string, n *yaml.Node, depth int) []versionPin {
	if n == nil || n.Kind == yaml.AliasNode || depth > 100 {
		return nil
	}
	var out []versionPin
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value != "env" {
				continue
			}
			if _, v := lookup(n.Content[i+1], versionKey); v != nil {
				if s, ok := scalar(v); ok && s != "" && !strings.Contains(s, "${{") {
					out = append(out, versionPin{file, s, v.Line, v.Column})
				}
			}
		}
	}
	for _, ch := range n.Content {
		out = append(out, envPins(file, ch, depth+1)...)
	}
	return out
}

// checkInstallVersions reports every pin of another version than the one
// most pins give. Local actions are read first (by path), then the
// workflows (by name), and a tie goes to the version read first: the
// one install definition is an action.
func (c *checker) checkInstallVersions() {
	var pins []versionPin
	var dirs []string
	for dir, a := range c.actions {
		if a.root != nil {
			dirs = append(dirs, dir)
		}
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		a := c.actions[dir]
		pins = append(pins, envPins(a.path, a.root, 0)...)
	}
	for _, wf := range c.workflows {
		if !wf.broken {
			pins = append(pins, envPins(wf.path, wf.root, 0)...)
		}
	}
	count := map[string]int{}
	first := map[string]versionPin{}
	var order []string
	for _, p := range pins {
		if count[p.value] == 0 {
			order = append(order, p.value)
			first[p.value] = p
		}
		count[p.value]++
	}
	if len(order) < 2 {
		return
	}
	chosen := order[0]
	for _, v := range order[1:] {
		if count[v] > count[chosen] {
			chosen = v
		}
	}
	at := first[chosen]
	for _, p := range pins {
		if p.value == chosen {
			continue
		}
		c.found.add(Finding{Path: p.path, Line: max(p.line, 1), Col: max(p.col, 1), Severity: Error, Rule: RuleInstallVersion,
			Message: fmt.Sprintf("%s is %s here but %s at %s:%d (%d of the %d pins), so jobs install two versions of miles-ci: write %s, or install with the one step `uses: %s`",
				versionKey, pyfmt.Repr(p.value), pyfmt.Repr(chosen), at.path, at.line, count[chosen], len(pins), chosen, setupAction)})
	}
}
