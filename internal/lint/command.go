package lint

import (
	"path"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// invocationKind says which miles-ci entry point a command line calls.
type invocationKind int

const (
	// runSuite runs one stage's suite: `python tests/ci/run_suite.py …`,
	// `python -m tests.ci.run_suite …` or `miles-ci run …`.
	runSuite invocationKind = iota
	// runFile runs one registered file (`miles-ci run --file …`, the
	// /rerun-test workflow): not a stage.
	runFile
	// resolvePolicy resolves the CI policy: `python -m tests.ci.ci_policy`,
	// `python tests/ci/ci_policy.py` or `miles-ci policy`.
	resolvePolicy
	// resolveFileRun resolves a /rerun-test request's job: `python -m
	// tests.ci.file_run` (`miles-ci file-run` is read by runsMilesCI).
	resolveFileRun
)

// pythonEntries are the Python entry points of the repository a workflow
// calls, by their path from the root: what `-m tests.ci.X` imports too.
var pythonEntries = []struct {
	path string
	kind invocationKind
}{
	{"tests/ci/run_suite.py", runSuite},
	{"tests/ci/ci_policy.py", resolvePolicy},
	{"tests/ci/file_run.py", resolveFileRun},
}

// invocation is one command line of a job that calls a miles-ci entry point.
type invocation struct {
	kind invocationKind
	// node is the scalar holding the command: with.execute_command or a
	// step's run.
	node  *yaml.Node
	words []word // the whole command
	args  []word // the words after the entry point (its flags)
	// prog is the index in words of the program that starts the entry
	// point: python3, or miles-ci as written (a path, or the bare name
	// that only an install step puts on PATH).
	prog int
	// script is, for the Python form, the index in words of the word
	// naming the script or module, and entry the script's path from the
	// repository's root (tests/ci/run_suite.py); -1 and "" otherwise.
	script int
	entry  string
}

// first is the command's first word, where problems of the whole command
// are reported.
func (inv *invocation) first() word { return inv.words[0] }

// flag returns the word of the last occurrence of --name (or --name=…),
// the one argparse keeps when a flag is given twice, and the values after
// it: the words up to the next one starting with "-" (expressions are
// values whatever they expand to), or the text after "=".
func (inv *invocation) flag(name string) (flag word, values []word, ok bool) {
	for i := len(inv.args) - 1; i >= 0; i-- {
		if f, vals, isFlag := inv.flagAt(i, name); isFlag {
			return f, vals, true
		}
	}
	return word{}, nil, false
}

// flagAt reads args[i] as --name (or --name=…) with its values.
func (inv *invocation) flagAt(i int, name string) (flag word, values []word, ok bool) {
	w := inv.args[i]
	switch {
	case w.text == name:
		j := i + 1
		for j < len(inv.args) && !strings.HasPrefix(inv.args[j].text, "-") {
			j++
		}
		return w, inv.args[i+1 : j], true
	case strings.HasPrefix(w.text, name+"="):
		v := w
		v.text = strings.TrimPrefix(w.text, name+"=")
		return w, []word{v}, true
	}
	return word{}, nil, false
}

// flagName is the long option a word gives (--name or --name=…), or "".
func flagName(w word) string {
	if !strings.HasPrefix(w.text, "--") || len(w.text) == 2 || w.isExpr() {
		return ""
	}
	name, _, _ := strings.Cut(w.text, "=")
	return name
}

// repeated returns, in command order, each long option the command gives
// more than once, with all its occurrences.
func (inv *invocation) repeated() (names []string, at map[string][]int) {
	at = map[string][]int{}
	for i, w := range inv.args {
		if w.text == "--" {
			break
		}
		if name := flagName(w); name != "" {
			at[name] = append(at[name], i)
			if len(at[name]) == 2 {
				names = append(names, name)
			}
		}
	}
	return names, at
}

// value returns the single value of --name, if the flag is given with one.
func (inv *invocation) value(name string) (word, bool) {
	_, vals, ok := inv.flag(name)
	if !ok || len(vals) == 0 {
		return word{}, false
	}
	return vals[0], true
}

var (
	pythonName     = regexp.MustCompile(`^python(3(\.[0-9]+)?)?$`)
	assignmentWord = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
)

// readInvocations finds the entry points the job calls: in its
// reusable-workflow call's with.execute_command and in its steps' run:
// scripts, in that order.
func (j *job) readInvocations() {
	j.invocations = nil
	_, cmd := j.get("with", "execute_command")
	j.invocations = append(j.invocations, j.wf.findInvocations(cmd)...)
	if _, steps := j.get("steps"); steps != nil && steps.Kind == yaml.SequenceNode {
		for _, st := range steps.Content {
			_, run := lookup(deref(st), "run")
			j.invocations = append(j.invocations, j.wf.findInvocations(run)...)
		}
	}
}

// findInvocations returns the miles-ci entry points the script in the
// scalar node n calls, with every word placed in the file.
func (wf *workflow) findInvocations(n *yaml.Node) []*invocation {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	// A command YAML aliases into many jobs is read once.
	if invs, ok := wf.invocations[n]; ok {
		return invs
	}
	if wf.invocations == nil {
		wf.invocations = map[*yaml.Node][]*invocation{}
	}
	invs := wf.readInvocations(n)
	wf.invocations[n] = invs
	return invs
}

// readInvocations is findInvocations without the memory.
func (wf *workflow) readInvocations(n *yaml.Node) []*invocation {
	cmds := splitScript(n.Value)
	var out []*invocation
	for _, words := range cmds {
		if inv := classify(words); inv != nil {
			inv.node = n
			out = append(out, inv)
		}
	}
	if len(out) > 0 {
		// The invocations' words share their arrays with cmds, so this
		// places them too.
		wf.placeWords(n, cmds)
	}
	return out
}

// printers are the commands whose words are text they print or test,
// never a command they run: `echo miles-ci run` only mentions the runner.
var printers = map[string]bool{"echo": true, "printf": true, ":": true, "true": true, "false": true, "test": true, "[": true, "[[": true}

// classify recognises a command that calls a miles-ci entry point, in its
// Python form or its miles-ci form, after any leading VAR=value words and
// any wrapper that runs it (`timeout 3600 …`, `docker exec ctr …`, `bash
// amd_ci_exec.sh -w /root/miles …`): the first word that starts an entry
// point starts it.
func classify(words []word) *invocation {
	i := 0
	for i < len(words) && (assignmentWord.MatchString(words[i].text) || words[i].text == "exec") {
		i++
	}
	if i >= len(words) || printers[path.Base(words[i].text)] {
		return nil
	}
	for k := i; k < len(words); k++ {
		if inv := classifyAt(words, k); inv != nil {
			inv.prog = k
			return inv
		}
	}
	return nil
}

// classifyAt recognises an entry point whose program is words[k]; the
// invocation holds the whole command.
func classifyAt(words []word, k int) *invocation {
	prog := path.Base(words[k].text)
	rest := words[k+1:]
	switch {
	case pythonName.MatchString(prog):
		// Interpreter options (-u, -S, -X dev, …) may come before the
		// script or -m.
		j := 0
		for j < len(rest) && strings.HasPrefix(rest[j].text, "-") && rest[j].text != "-m" {
			j++
		}
		if j >= len(rest) {
			return nil
		}
		target, script := rest[j].text, k+1+j
		args := rest[j+1:]
		if target == "-m" {
			if j+1 >= len(rest) {
				return nil
			}
			target = strings.ReplaceAll(rest[j+1].text, ".", "/") + ".py"
			script++
			args = rest[j+2:]
		}
		target = strings.TrimPrefix(target, "./")
		for _, e := range pythonEntries {
			if target == e.path || strings.HasSuffix(target, "/"+e.path) {
				return &invocation{kind: e.kind, words: words, args: args, script: script, entry: e.path}
			}
		}
	case prog == "miles-ci":
		// Global flags may come before the command.
		j := 0
		for j < len(rest) && strings.HasPrefix(rest[j].text, "-") {
			if rest[j].text == "--root" || rest[j].text == "--config" {
				j++
			}
			j++
		}
		if j >= len(rest) {
			return nil
		}
		args := rest[j+1:]
		switch rest[j].text {
		case "run":
			inv := &invocation{kind: runSuite, words: words, args: args, script: -1}
			if _, _, ok := inv.flag("--file"); ok {
				inv.kind = runFile
			}
			return inv
		case "policy":
			return &invocation{kind: resolvePolicy, words: words, args: args, script: -1}
		}
	}
	return nil
}
