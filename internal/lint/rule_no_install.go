package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// The no-install rule. A job that calls miles-ci by its bare name finds it
// only on the PATH an earlier step of the same job made: without one,
// GitHub fails the step with "miles-ci: command not found", which nothing
// before the run would show. (That the pinned version is one value in the
// repository is install-version, rule_install_version.go; it shares
// setupAction and the reading of local actions kept here.)
//
// An install step is one of:
//   - `uses: ./DIR`, a composite action of this repository
//     (DIR/action.yml or action.yaml below the root) that holds an
//     install step itself;
//   - a step whose run: appends to $GITHUB_PATH and mentions miles-ci
//     (the pinned download, or the build job's archives);
//   - a step whose run: does `go install …/cmd/miles-ci[@…]`.

// RuleNoInstall names a job that calls miles-ci by name with no install
// step before it.
const RuleNoInstall = "no-install"

var _ = register(Rule{Name: RuleNoInstall, Severity: Error,
	Summary: "a job calls miles-ci by name with no install step before it",
	onRepo:  (*checker).checkInstalls})

// setupAction is the install step lint's messages propose: the local
// composite action that holds the pins (miles-ci help migrate).
const setupAction = "./.github/actions/setup-miles-ci"

// maxActionDepth bounds how deep composite actions calling composite
// actions are followed.
const maxActionDepth = 8

var (
	// appendsToPath matches a script line that appends to $GITHUB_PATH.
	appendsToPath = regexp.MustCompile(`(>>\s*|\btee\s+(-a|--append)\s+)"?\$(\{GITHUB_PATH\}|GITHUB_PATH\b)`)
	// goInstall matches `go install` of miles-ci's main package.
	goInstall = regexp.MustCompile(`\bgo\s+install\s+(-\S+\s+)*\S*/cmd/miles-ci(@\S*)?(\s|$)`)
	// runsExecuteCommand matches a called workflow's script that runs the
	// command its caller passes.
	runsExecuteCommand = regexp.MustCompile(`\$\{\{\s*inputs\.execute_command\s*\}\}`)
)

// installScript reports whether a step's run: script installs miles-ci.
func installScript(s string) bool {
	return appendsToPath.MatchString(s) && strings.Contains(s, "miles-ci") || goInstall.MatchString(s)
}

// localAction is a composite action of this repository that a step uses.
type localAction struct {
	path string // the file read, from the root: .github/actions/setup-miles-ci/action.yml
	// problem says why the action installs nothing lint can see: its file
	// is missing or unreadable, or it is not a composite action; "" when
	// it was read.
	problem string
	root    *yaml.Node // the file's top-level mapping
	steps   []*yaml.Node
	// installs is known once state is done: whether a step installs.
	state    int // 0 unread, 1 being followed (a cycle), 2 done
	installs bool
}

// readActions reads every local action the workflows' steps use, and
// every one those use in turn, keyed by the directory from the root.
func readActions(root string, wfs []*workflow) map[string]*localAction {
	actions := map[string]*localAction{}
	var visit func(steps *yaml.Node)
	visit = func(steps *yaml.Node) {
		if steps == nil || steps.Kind != yaml.SequenceNode {
			return
		}
		for _, st := range steps.Content {
			_, u := lookup(deref(st), "uses")
			uses, _ := scalar(u)
			dir, ok := localActionDir(uses)
			if !ok || actions[dir] != nil {
				continue
			}
			a := readAction(root, dir)
			actions[dir] = a
			if a.problem == "" {
				visit(&yaml.Node{Kind: yaml.SequenceNode, Content: a.steps})
			}
		}
	}
	for _, wf := range wfs {
		if wf.broken {
			continue
		}
		for _, j := range wf.jobs {
			_, steps := j.get("steps")
			visit(steps)
		}
	}
	return actions
}

// localActionDir is the directory from the root that uses: ./DIR names,
// or not ok when it names no action of this repository.
func localActionDir(uses string) (string, bool) {
	if !strings.HasPrefix(uses, "./") {
		return "", false
	}
	return path.Clean(uses), true
}

// readAction reads the action.yml (or action.yaml) of dir below root.
func readAction(root, dir string) *localAction {
	a := &localAction{path: path.Join(dir, "action.yml")}
	if dir == ".." || strings.HasPrefix(dir, "../") {
		a.problem = "it names a directory outside the repository"
		return a
	}
	var (
		data []byte
		err  error
	)
	for _, name := range []string{"action.yml", "action.yaml"} {
		a.path = path.Join(dir, name)
		data, err = fsutil.ReadRegular(filepath.Join(root, filepath.FromSlash(a.path)), MaxWorkflowSize)
		if !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		a.path = path.Join(dir, "action.yml")
		a.problem = fmt.Sprintf("%s does not exist below the root (nor action.yaml), so GitHub fails that step", a.path)
		return a
	case err != nil:
		a.problem = fmt.Sprintf("%s cannot be read: %v", a.path, fsutil.StripPath(err))
		return a
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		_, msg := yamlErrorLine(err)
		a.problem = fmt.Sprintf("%s is not valid YAML: %s", a.path, msg)
		return a
	}
	if len(doc.Content) > 0 {
		a.root = deref(doc.Content[0])
	}
	_, runs := lookup(a.root, "runs")
	_, using := lookup(runs, "using")
	if u, _ := scalar(using); u != "composite" {
		a.problem = fmt.Sprintf("%s is not a composite action (runs.using: composite), so lint cannot see what it installs", a.path)
		return a
	}
	if _, steps := lookup(runs, "steps"); steps != nil && steps.Kind == yaml.SequenceNode {
		for _, st := range steps.Content {
			a.steps = append(a.steps, deref(st))
		}
	}
	return a
}

// actionInstalls reports whether the local action holds an install step,
// following the local actions it uses, so deep and no deeper; a cycle
// installs nothing.
func (c *checker) actionInstalls(a *localAction, depth int) bool {
	switch {
	case a.problem != "" || a.state == 1 || depth > maxActionDepth:
		return false
	case a.state == 2:
		return a.installs
	}
	a.state = 1
	installs := false
	for _, st := range a.steps {
		if ok, _ := c.stepInstalls(st, depth+1); ok {
			installs = true
			break
		}
	}
	a.state, a.installs = 2, installs
	return installs
}

// stepInstalls reports whether a step installs miles-ci. When the step
// uses a local action that does not, why says what is wrong with it, for
// the message of a command after it.
func (c *checker) stepInstalls(st *yaml.Node, depth int) (ok bool, why string) {
	_, u := lookup(st, "uses")
	if uses, _ := scalar(u); uses != "" {
		dir, local := localActionDir(uses)
		a := c.actions[dir]
		if !local || a == nil {
			return false, ""
		}
		if c.actionInstalls(a, depth) {
			return true, ""
		}
		why = a.problem
		if why == "" {
			why = fmt.Sprintf("%s holds no install step (a run: that appends miles-ci's directory to $GITHUB_PATH, or go install …/cmd/miles-ci@…)", a.path)
		}
		return false, fmt.Sprintf("the step at line %d uses %s, but %s", u.Line, uses, why)
	}
	_, run := lookup(st, "run")
	s, _ := scalar(run)
	return installScript(s), ""
}

// runsMilesCI returns the word of a command that calls miles-ci by its
// bare name, which an install step puts on PATH: the program of an entry
// point classify reads (through wrappers), or the command's own program
// (`miles-ci file-run`, `miles-ci lint`). A miles-ci called by a path
// says where it comes from, and is not this rule's.
//
// compat, when not "", is the repository's compatibility entry point
// (tests/ci/run_suite.py that runs miles-ci run): a call of it runs
// miles-ci too, and its word is the script's.
func runsMilesCI(words []word, compat string) (i int, ok, viaCompat bool) {
	if inv := classify(words); inv != nil {
		if compat != "" && inv.script >= 0 && inv.entry == compat {
			return inv.script, true, true
		}
		return inv.prog, words[inv.prog].text == "miles-ci", false
	}
	for i < len(words) && (assignmentWord.MatchString(words[i].text) || words[i].text == "exec") {
		i++
	}
	return i, i < len(words) && words[i].text == "miles-ci", false
}

// milesCICall is the first command of a script that calls miles-ci by its
// bare name, and its miles-ci word placed in the file (or the word of the
// compatibility entry point that runs it).
type milesCICall struct {
	inv  *invocation
	word word
	// compat says the word is the compatibility entry point's.
	compat bool
}

// what names what the call runs, for a message.
func (m *milesCICall) what() string {
	if m.compat {
		return m.word.text + " (the compatibility entry point, which runs miles-ci)"
	}
	return "miles-ci"
}

// notFound is how the step fails without miles-ci on PATH.
func (m *milesCICall) notFound() string {
	if m.compat {
		return "the entry point's \"miles-ci is not on the PATH\" and status 127"
	}
	return "\"miles-ci: command not found\""
}

// firstMilesCI returns the first command of the script in the scalar node
// n that calls miles-ci by its bare name (or through compat, see
// runsMilesCI), or nil. A script YAML aliases into many jobs is read once.
func (wf *workflow) firstMilesCI(n *yaml.Node, compat string) *milesCICall {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	if call, ok := wf.milesCICalls[n]; ok {
		return call
	}
	if wf.milesCICalls == nil {
		wf.milesCICalls = map[*yaml.Node]*milesCICall{}
	}
	var call *milesCICall
	cmds := splitScript(n.Value)
	for _, words := range cmds {
		if i, ok, via := runsMilesCI(words, compat); ok {
			wf.placeWords(n, cmds)
			call = &milesCICall{inv: &invocation{node: n, words: words}, word: words[i], compat: via}
			break
		}
	}
	wf.milesCICalls[n] = call
	return call
}

// checkInstalls checks that every job of the workflows that calls
// miles-ci installs it first.
func (c *checker) checkInstalls() {
	for _, wf := range c.workflows {
		if wf.broken {
			continue
		}
		for _, j := range wf.jobs {
			if _, cmd := j.get("with", "execute_command"); cmd != nil {
				c.checkCalledInstall(j, cmd)
				continue
			}
			c.checkJobInstall(j)
		}
	}
}

// installHint is how a missing install step is added.
const installHint = "add the step `uses: " + setupAction + "` after its checkout (miles-ci help migrate)"

// checkJobInstall reports the first command of a job that calls miles-ci
// before any step installed it.
func (c *checker) checkJobInstall(j *job) {
	_, steps := j.get("steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return
	}
	note := ""
	for _, st := range steps.Content {
		st = deref(st)
		ok, why := c.stepInstalls(st, 0)
		if ok {
			return
		}
		if why != "" {
			note = "; " + why
		}
		_, run := lookup(st, "run")
		if call := j.wf.firstMilesCI(run, c.compat); call != nil {
			c.atWord(j, call.inv, call.word, RuleNoInstall, "job %s runs %s with no install step before it, so GitHub fails the step with %s: %s%s",
				pyfmt.Repr(j.id), call.what(), call.notFound(), installHint, note)
			return
		}
	}
}

// checkCalledInstall checks a job that passes a miles-ci command to a
// reusable workflow of this repository: each job there that runs
// ${{ inputs.execute_command }} must install miles-ci before the first
// step that does. The finding stands at the command, where the call
// says it runs miles-ci. Another repository's workflow is not seen.
func (c *checker) checkCalledInstall(j *job, cmd *yaml.Node) {
	call := j.wf.firstMilesCI(cmd, c.compat)
	if call == nil {
		return
	}
	_, u := j.get("uses")
	uses, _ := scalar(u)
	if !strings.HasPrefix(uses, "./"+WorkflowDir+"/") {
		return
	}
	called := c.byName[path.Base(uses)]
	if called == nil || called.broken {
		return
	}
	for _, cj := range called.jobs {
		line, note, missing := c.executeUninstalled(cj)
		if missing {
			c.atWord(j, call.inv, call.word, RuleNoInstall, "job %s runs miles-ci in job %s of %s, whose step at line %d runs ${{ inputs.execute_command }} with no install step before it: there, %s%s",
				pyfmt.Repr(j.id), pyfmt.Repr(cj.id), called.path, line, installHint, note)
			return
		}
	}
}

// executeUninstalled finds the first step of a called job that runs
// ${{ inputs.execute_command }}: missing says no step before it installs
// miles-ci, line is its line.
func (c *checker) executeUninstalled(j *job) (line int, note string, missing bool) {
	_, steps := j.get("steps")
	if steps == nil || steps.Kind != yaml.SequenceNode {
		return 0, "", false
	}
	for _, st := range steps.Content {
		st = deref(st)
		ok, why := c.stepInstalls(st, 0)
		if ok {
			return 0, "", false
		}
		if why != "" {
			note = "; " + why
		}
		_, run := lookup(st, "run")
		if s, _ := scalar(run); runsExecuteCommand.MatchString(s) {
			return run.Line, note, true
		}
	}
	return 0, "", false
}
