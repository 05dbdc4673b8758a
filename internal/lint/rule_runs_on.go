package lint

import (
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleRunsOn names a stage job that lands on other runner labels than the
// roster's runs_on, or where lint cannot tell.
const RuleRunsOn = "runs-on"

var _ = register(Rule{Name: RuleRunsOn, Severity: Error,
	Summary: "the labels a stage job lands on differ from the roster's runs_on",
	onJob:   func(c *checker, sj stageJob) { c.checkRunsOn(sj.job, sj.suite) }})

// checkRunsOn: the runner labels the job lands on are the roster's.
func (c *checker) checkRunsOn(j *job, s config.Suite) {
	labels, what, node, problem := c.landsOn(j)
	if what == "" && problem == "" {
		return
	}
	if problem != "" {
		c.atNode(j.wf, keyOr(node, j.key), RuleRunsOn, "%s; the roster has %s for %s", problem, jsonList(s.RunsOn), s.Name)
		return
	}
	if sameSet(labels, s.RunsOn) {
		return
	}
	c.atNode(j.wf, keyOr(node, j.key), RuleRunsOn, "%s is %s but the roster has %s for %s (%s)",
		what, jsonList(labels), jsonList(s.RunsOn), s.Name, c.cfg.Origin())
}

// landsOn finds the labels a job lands on: its runs_on input (a JSON list
// in a string), its runs-on, or the runs-on of the single job of the local
// reusable workflow it calls. When it cannot tell, problem says why.
func (c *checker) landsOn(j *job) (labels []string, what string, node *yaml.Node, problem string) {
	if k, v := j.get("with", "runs_on"); v != nil {
		text, _ := scalar(v)
		if strings.Contains(text, "${{") {
			return nil, "", k, fmt.Sprintf("runs_on is the expression %s, so lint cannot tell where the job lands; write the labels", text)
		}
		if err := json.Unmarshal([]byte(text), &labels); err != nil || v.Kind != yaml.ScalarNode {
			return nil, "", k, fmt.Sprintf("runs_on is %s, not a JSON list of runner labels in a string", pyfmt.Repr(text))
		}
		return labels, "runs_on", k, ""
	}
	if k, v := j.get("runs-on"); v != nil {
		labels, problem := runsOnLabels(v)
		return labels, "runs-on", k, problem
	}
	k, v := j.get("uses")
	uses, _ := scalar(v)
	if uses == "" {
		return nil, "", j.key, "the job has no runs-on"
	}
	if !strings.HasPrefix(uses, "./"+WorkflowDir+"/") {
		return nil, "", k, fmt.Sprintf("the job calls %s, whose runners lint cannot see; pass runs_on or call a workflow of this repository", uses)
	}
	called := c.byName[path.Base(uses)]
	switch {
	case called == nil:
		return nil, "", k, fmt.Sprintf("the job calls %s, which does not exist", strings.TrimPrefix(uses, "./"))
	case called.broken:
		// Its own finding says why; with no labels, what and problem
		// empty, checkRunsOn has nothing to compare.
		return nil, "", k, ""
	case len(called.jobs) != 1:
		return nil, "", k, fmt.Sprintf("the job calls %s, which has %d jobs; lint follows a called workflow with a single job", called.path, len(called.jobs))
	}
	_, rv := called.jobs[0].get("runs-on")
	if rv == nil {
		return nil, "", k, fmt.Sprintf("the job calls %s, whose job has no runs-on", called.path)
	}
	labels, problem = runsOnLabels(rv)
	if problem != "" {
		return nil, "", k, fmt.Sprintf("the job passes no runs_on and %s's %s", called.path, problem)
	}
	return labels, "the runs-on of " + called.path, k, ""
}

// runsOnLabels reads a runs-on value: one label, a list, or a mapping
// with labels:.
func runsOnLabels(v *yaml.Node) ([]string, string) {
	if _, l := lookup(v, "labels"); l != nil {
		v = l
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if strings.Contains(v.Value, "${{") {
			return nil, fmt.Sprintf("runs-on is the expression %s, so lint cannot tell where the job lands", v.Value)
		}
		return []string{v.Value}, ""
	case yaml.SequenceNode:
		var out []string
		for _, e := range v.Content {
			t, ok := scalar(deref(e))
			if !ok || strings.Contains(t, "${{") {
				return nil, "runs-on holds an expression, so lint cannot tell where the job lands"
			}
			out = append(out, t)
		}
		return out, ""
	}
	return nil, "runs-on is neither a label nor a list of labels"
}
