package lint

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/suggest"
)

// The rules of lint --external: the roster's external suites are run by
// another repository's workflow (Miles' MI350 nightly lives in
// sgl-project/sglang), which no rule on this repository's workflows can
// see. Given that workflow's file, every external suite must be run there
// with its backend's --hw, and nothing else of the roster, or outside it.
// One reading of each external command (checkExternalRun) decides among
// the family's rules, so the family is one file.

// The rules of lint --external, on another repository's workflow that
// runs the roster's external suites.
const (
	RuleExternalMissing = "external-missing"
	RuleExternalUnknown = "external-unknown"
	RuleExternalOwned   = "external-owned"
	RuleExternalHW      = "external-hw"
	RuleExternalEmpty   = "external-empty"
	RuleExternalEntry   = "external-entry"
)

var (
	// checkExternal decides among the six; it hangs on the first.
	_ = register(Rule{Name: RuleExternalMissing, Severity: Error,
		Summary: "an external suite of the roster no job of the external files runs",
		onRepo:  (*checker).checkExternal})
	_ = register(Rule{Name: RuleExternalUnknown, Severity: Error,
		Summary: "a suite an external file runs is not in the roster, or cannot be read"})
	_ = register(Rule{Name: RuleExternalOwned, Severity: Error,
		Summary: "a suite an external file runs is one this repository's own workflow runs"})
	_ = register(Rule{Name: RuleExternalHW, Severity: Error,
		Summary: "an external command's --hw is missing or not its suite's backend"})
	_ = register(Rule{Name: RuleExternalEntry, Severity: Error,
		Summary: "an external command calls a Python entry point the repository no longer has"})
	_ = register(Rule{Name: RuleExternalEmpty, Severity: Warning,
		Summary: "no job of an external file runs a suite"})
)

// External is another repository's workflow file, read for lint --external.
type External struct {
	wf *workflow
	// findings are the problems GitHub would refuse the file for that
	// leave its jobs readable (no on: key, a job that is not a mapping).
	findings []Finding
}

// ReadExternal reads the workflow file data, which findings and errors
// name as name (the path the user gave). A file that cannot be read as a
// workflow (invalid YAML, not a mapping, no jobs) is an error naming its
// line: nothing in it could be checked, and every external suite would
// look missing.
func ReadExternal(name string, data []byte) (*External, error) {
	wf := &workflow{path: name, name: path.Base(filepath.ToSlash(name))}
	findings := wf.parse(data)
	if wf.broken {
		f := findings[0]
		return nil, fmt.Errorf("%s:%d: %s", name, f.Line, f.Message)
	}
	return &External{wf: wf, findings: findings}, nil
}

// checkExternal checks each job of the external workflows that runs a
// suite, then that every external suite of the roster is run by one. The
// files are one fleet: a suite may be run by any of them.
func (c *checker) checkExternal() {
	if len(c.external) == 0 {
		return
	}
	var (
		ran   = map[string]bool{}
		files []string
		host  *job // the first external job that runs a suite
	)
	for _, ext := range c.external {
		wf := ext.wf
		files = append(files, wf.path)
		runs := 0
		for _, j := range wf.jobs {
			j.readInvocations()
			for _, inv := range j.invocations {
				c.checkExternalEntry(j, inv)
				if inv.kind != runSuite {
					continue
				}
				runs++
				if host == nil {
					host = j
				}
				for _, name := range c.checkExternalRun(j, inv) {
					ran[name] = true
				}
			}
		}
		if runs == 0 {
			line, col := at(keyOr(wf.jobsKey, wf.root))
			c.add(wf, line, col, Warning, RuleExternalEmpty,
				"no job of %s runs a suite (python tests/ci/run_suite.py … or miles-ci run …), so it runs none of the roster's external suites", wf.name)
		}
	}
	for _, s := range c.cfg.Suites {
		if s.External && !ran[s.Name] {
			c.externalMissing(s, files, host)
		}
	}
}

// checkExternalRun checks one command of an external job that runs a
// suite, in each job its matrix starts, and returns the external suites
// it runs.
func (c *checker) checkExternalRun(j *job, inv *invocation) []string {
	sw, hasSuite := inv.value("--suite")
	hw, hasHW := inv.value("--hw")
	if !hasSuite {
		c.atWord(j, inv, inv.first(), RuleExternalUnknown, "the command has no --suite; an external workflow runs one of the roster's external suites (%s)", c.externalNames())
		return nil
	}
	combos := []combo{{}}
	_, suiteFromMatrix := matrixKey(sw.text)
	_, hwFromMatrix := matrixKey(hw.text)
	if suiteFromMatrix || hasHW && hwFromMatrix {
		var (
			node    *yaml.Node
			problem string
		)
		if combos, node, problem = expandMatrix(j); problem != "" {
			c.atNode(j.wf, node, RuleExternalUnknown, "%s, so the suites the job runs cannot be read from it", problem)
			return nil
		}
	}
	var ran []string
	for _, m := range combos {
		suite, ok := c.valueIn(j, inv, "--suite", sw, m, RuleExternalUnknown)
		if !ok {
			continue
		}
		s, known := c.cfg.Suite(suite.text)
		switch {
		case !known:
			c.add(j.wf, suite.line, suite.col, Error, RuleExternalUnknown, "suite %s is not in the roster (%s); %s",
				pyfmt.Repr(suite.text), c.cfg.Origin(), c.externalMeant(suite.text))
			continue
		case !s.External:
			c.add(j.wf, suite.line, suite.col, Error, RuleExternalOwned, "suite %s is not external in the roster (%s): %s, and another repository's workflow runs only external suites; %s",
				s.Name, c.cfg.Origin(), c.ownJob(s), c.externalMeant(s.Name))
			continue
		}
		ran = append(ran, s.Name)
		if !hasHW {
			c.atWord(j, inv, inv.first(), RuleExternalHW, "%s", c.hwProblem("", false, s))
			continue
		}
		h, ok := c.valueIn(j, inv, "--hw", hw, m, RuleExternalHW)
		if !ok {
			continue
		}
		if msg := c.hwProblem(h.text, true, s); msg != "" {
			c.add(j.wf, h.line, h.col, Error, RuleExternalHW, "%s", msg)
		}
	}
	return ran
}

// entryFix is, per Python entry point, what an external workflow that
// calls it runs instead once the script is gone.
var entryFix = map[string]string{
	"tests/ci/run_suite.py": "keep tests/ci/run_suite.py as the compatibility entry point (miles-ci help migrate), or change the external workflow to miles-ci run with the same arguments",
	"tests/ci/ci_policy.py": "change the external workflow to miles-ci policy",
	"tests/ci/file_run.py":  "change the external workflow to miles-ci file-run",
}

// readEntries says which Python entry points the repository below root
// has (a file, or a link to one).
func readEntries(root string) map[string]bool {
	has := map[string]bool{}
	for _, e := range pythonEntries {
		st, err := os.Stat(filepath.Join(root, filepath.FromSlash(e.path)))
		has[e.path] = err == nil && st.Mode().IsRegular()
	}
	return has
}

// readCompat returns RunSuitePath when the runner below root is the
// compatibility entry point of the migration's last step: a file that
// runs miles-ci and holds no CI_SUITES. "" otherwise.
func readCompat(root string) string {
	src, bad := readRunSuite(root)
	if bad != nil || !bytes.Contains(src, []byte(`"miles-ci"`)) || bytes.Contains(src, []byte(ciSuitesName)) {
		return ""
	}
	return RunSuitePath
}

// checkExternalEntry reports a command of an external job that calls a
// Python entry point this repository no longer has: the job would stop
// at once ("can't open file"), whatever suite it names.
func (c *checker) checkExternalEntry(j *job, inv *invocation) {
	if inv.entry == "" || c.entries[inv.entry] {
		return
	}
	w := inv.words[inv.script]
	what := w.text
	if what != inv.entry && !strings.HasSuffix(what, "/"+inv.entry) {
		what += " (" + inv.entry + ")"
	}
	c.atWord(j, inv, w, RuleExternalEntry, "the command runs %s, which this repository no longer has, so the job fails before it runs a test: %s",
		what, entryFix[inv.entry])
}

// placedValue is a value a command's flag takes and where it is written:
// at the word, or at the matrix value the word reads.
type placedValue struct {
	text      string
	line, col int
}

// valueIn reads the value w of flag in the matrix job m: the word as
// written, or the value of ${{ matrix.KEY }}. A value lint cannot read is
// a finding of rule, and not ok.
func (c *checker) valueIn(j *job, inv *invocation, flag string, w word, m combo, rule string) (placedValue, bool) {
	if key, ok := matrixKey(w.text); ok {
		v := m[key]
		text, isScalar := scalar(v)
		if isScalar && text != "" && !strings.Contains(text, "${{") {
			return placedValue{text, v.Line, v.Column}, true
		}
		what := "no " + key
		if v != nil {
			what = fmt.Sprintf("%s %s (line %d)", key, describeNode(v), v.Line)
		}
		c.atWord(j, inv, w, rule, "%s is %s, but the matrix gives a job of %s %s", flag, w.text, pyfmt.Repr(j.id), what)
		return placedValue{}, false
	}
	if strings.Contains(w.text, "${{") {
		c.atWord(j, inv, w, rule, "%s is the expression %s; lint reads a name written out, or ${{ matrix.KEY }} of the job's matrix", flag, w.text)
		return placedValue{}, false
	}
	line, col := inv.place(w)
	return placedValue{w.text, line, col}, true
}

// externalMissing reports an external suite that no job of the external
// files runs, at its roster entry: the roster is the one place all the
// files answer to, and the message names the job where it belongs.
func (c *checker) externalMissing(s config.Suite, files []string, host *job) {
	msg := fmt.Sprintf("external suite %s is run by no job of %s%s: ", s.Name, strings.Join(files, ", "), c.neverRuns(s.Name))
	if host != nil {
		msg += fmt.Sprintf("run it in job %s (%s:%d) with --hw %s --suite %s", pyfmt.Repr(host.id), host.wf.path, host.key.Line, s.Backend, s.Name)
	} else {
		msg += fmt.Sprintf("add a job running it with --hw %s --suite %s", s.Backend, s.Name)
	}
	msg += ", or drop it from the roster"
	c.found.add(Finding{Path: c.cfg.Place(s.At), Line: max(s.At.Line, 1), Col: max(s.At.Col, 1),
		Severity: Error, Rule: RuleExternalMissing, Message: msg})
}

// ownJob says where this repository runs its own suite s: the job that
// runs it, else the workflow the roster puts it in.
func (c *checker) ownJob(s config.Suite) string {
	if runs := c.runs[s.Name]; len(runs) > 0 {
		j := runs[0].job
		return fmt.Sprintf("job %s of %s runs it", pyfmt.Repr(j.id), j.wf.path)
	}
	return fmt.Sprintf("its job belongs in %s", path.Join(WorkflowDir, s.WorkflowFile()))
}

// externalMeant is "did you mean X?" for a suite an external workflow
// should not run, among the roster's external suites only: the one that
// holds the name whole (nightly-stage-c-2-gpu-mi350 for
// stage-c-2-gpu-mi350, a cadence prefix left out), else the closest;
// else the list of them.
func (c *checker) externalMeant(name string) string {
	var names []string
	for _, s := range c.cfg.Suites {
		if !s.External {
			continue
		}
		if strings.HasSuffix(s.Name, "-"+name) || strings.HasPrefix(s.Name, name+"-") {
			return "did you mean " + s.Name + "?"
		}
		names = append(names, s.Name)
	}
	if near, ok := suggest.Closest(name, names); ok {
		return "did you mean " + near + "?"
	}
	return "the roster's external suites: " + c.externalNames()
}

// externalNames lists the roster's external suites, or says there is none.
func (c *checker) externalNames() string {
	var names []string
	for _, s := range c.cfg.Suites {
		if s.External {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
