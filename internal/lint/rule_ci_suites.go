package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/pysrc"
)

// The rule that bridges an incremental migration: while the Python runner
// is still in the repository, its CI_SUITES dict and the roster in effect
// must name the same suites per backend. A suite added the Python way only
// (appended to CI_SUITES) would otherwise do nothing for miles-ci, and one
// added to the roster only would make run_suite.py refuse it.

// RuleCISuites names a suite on which tests/ci/run_suite.py's CI_SUITES,
// or tests/ci/stage_selection.py's PR_GPU_STAGES, and the roster disagree.
// Both halves are in this file: one rule, two Python literals read alike.
const RuleCISuites = "ci-suites"

var _ = register(Rule{Name: RuleCISuites, Severity: Error,
	Summary: "the Python runner's CI_SUITES or PR_GPU_STAGES and the roster disagree on a suite",
	onRepo:  (*checker).checkPythonLists})

// checkPythonLists reads the runner and the stage selection below the
// root, when the repository still has them, and compares their literals
// with the roster.
func (c *checker) checkPythonLists() {
	switch src, problem := readRunSuite(c.root); {
	case problem != nil:
		c.found.add(*problem)
	case src != nil:
		c.checkCISuites(src)
	}
	switch src, problem := readPython(c.root, StageSelectionPath, "the stage selection", prStagesName); {
	case problem != nil:
		c.found.add(*problem)
	case src != nil:
		c.checkPRStages(src)
	}
}

// RunSuitePath is the Python runner whose CI_SUITES dict held the roster
// before the configuration did.
const RunSuitePath = "tests/ci/run_suite.py"

// ciSuitesName is the runner's dict of HWBackend → suite names.
const ciSuitesName = "CI_SUITES"

// ciSuitesEnum is the enum CI_SUITES is keyed by: HWBackend.CPU, … .
const ciSuitesEnum = "HWBackend"

// maxRunSuiteSize bounds what lint reads of the runner, as of a workflow.
const maxRunSuiteSize = MaxWorkflowSize

// readRunSuite reads the runner below root: its text, nil when there is
// none (no file and no link), or a finding saying why it cannot be read.
func readRunSuite(root string) ([]byte, *Finding) {
	return readPython(root, RunSuitePath, "the runner", ciSuitesName)
}

// readPython reads the Python file rel below root, named what in a
// finding, whose dict or set name lint compares with the roster: its
// text, nil when there is none (no file and no link), or a finding saying
// why it cannot be read.
func readPython(root, rel, what, name string) ([]byte, *Finding) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	src, err := fsutil.ReadRegular(p, maxRunSuiteSize)
	if err == nil {
		return src, nil
	}
	if _, lerr := os.Lstat(p); errors.Is(err, fs.ErrNotExist) && errors.Is(lerr, fs.ErrNotExist) {
		return nil, nil
	}
	return nil, &Finding{Path: rel, Line: 1, Col: 1, Severity: Error, Rule: RuleCISuites,
		Message: fmt.Sprintf("cannot read %s, so its %s cannot be compared with the roster: %v", what, name, fsutil.StripPath(err))}
}

// ciList is one backend's list of CI_SUITES.
type ciList struct {
	key  pysrc.DictItem
	ref  string // CI_SUITES[HWBackend.CUDA], for messages
	read bool   // every element is a suite name in quotes
	has  map[string]bool
}

// checkCISuites compares the CI_SUITES literal of the runner's source with
// the roster: every suite of a backend's list must be a roster suite of
// that backend, and every roster suite must be in its backend's list. A
// CI_SUITES that cannot be read as such a literal is a finding, never a
// pass; a runner without CI_SUITES has nothing to disagree with.
func (c *checker) checkCISuites(src []byte) {
	lines := lineStarts(src)
	add := func(line, col int, format string, args ...any) {
		c.found.add(Finding{Path: RunSuitePath, Line: max(line, 1), Col: max(col, 1),
			Severity: Error, Rule: RuleCISuites, Message: fmt.Sprintf(format, args...)})
	}
	d, err := pysrc.ReadDict(src, ciSuitesName)
	if err != nil {
		if line, col, msg := literalProblem(src, lines, err, "the runner", ciSuitesName, "{"+ciSuitesEnum+".CPU: [\"suite\", …], …}"); msg != "" {
			add(line, col, "%s", msg)
		}
		return
	}
	for _, l := range d.Changed {
		add(l, firstCol(src, lines, l), "%s", changedMessage(ciSuitesName))
	}
	lists := map[config.Backend]*ciList{}
	for _, it := range d.Items {
		b, ok := enumBackend(it.KeyText)
		if !ok {
			add(it.Line, firstCol(src, lines, it.Line), "%s key %s is not %s.CPU, %s.CUDA or %s.ROCM, so its suites cannot be compared with the roster",
				ciSuitesName, it.KeyText, ciSuitesEnum, ciSuitesEnum, ciSuitesEnum)
			continue
		}
		l := &ciList{key: it, ref: ciSuitesName + "[" + it.KeyText + "]", read: true, has: map[string]bool{}}
		if prev := lists[b]; prev != nil {
			add(prev.key.Line, firstCol(src, lines, prev.key.Line), "%s is given again on line %d, and Python keeps the later list: remove one", prev.ref, it.Line)
		}
		lists[b] = l
		if it.Value.Kind != pysrc.KindList {
			l.read = false
			add(it.Line, firstCol(src, lines, it.Line), "%s is a %s, not a list of suite names in quotes, so it cannot be compared with the roster", l.ref, it.Value.Node)
			continue
		}
		for i, e := range it.Value.Elems {
			line := it.ElemLines[i]
			if e.Kind != pysrc.KindConstant || e.Const.Type != pysrc.Str {
				l.read = false
				add(line, firstCol(src, lines, line), "%s holds a %s, not a suite name in quotes, so it cannot be compared with the roster", l.ref, elemKind(e))
				continue
			}
			l.has[e.Const.Str] = true
			c.checkCISuite(add, b, l, e.Const.Str, line, colOf(src, lines, line, e.Start))
		}
	}
	for _, s := range c.cfg.Suites {
		l := lists[s.Backend]
		switch {
		case l == nil:
			add(d.Line, firstCol(src, lines, d.Line), "suite %s of the roster (%s) is a %s suite, but %s has no %s.%s list: add one holding %s, %s",
				pyfmt.Repr(s.Name), c.cfg.Origin(), s.Backend, ciSuitesName, ciSuitesEnum, s.Backend.Upper(), pyfmt.Repr(s.Name), c.dropHint())
		case l.read && !l.has[s.Name]:
			add(l.key.Line, firstCol(src, lines, l.key.Line), "suite %s of the roster (%s) is not in %s: add it there, %s",
				pyfmt.Repr(s.Name), c.cfg.Origin(), l.ref, c.dropHint())
		}
	}
}

// literalProblem is the finding, its line, column and message, on a
// literal name the Python file what (the runner) holds that lint could
// not read (shape says how to write it); no message when the file has no
// such name, and so nothing to compare.
func literalProblem(src []byte, lines []int, err error, what, name, shape string) (int, int, string) {
	var (
		de *pysrc.DictError
		se *pysrc.SyntaxError
	)
	switch {
	case errors.As(err, &de) && de.Line == 0:
		return 0, 0, ""
	case errors.As(err, &de):
		return de.Line, firstCol(src, lines, de.Line), fmt.Sprintf("%s cannot be read without running Python (%s), so it cannot be compared with the roster: write it as %s",
			name, de.Msg, shape)
	case errors.As(err, &se):
		return se.Line, 1, fmt.Sprintf("Python cannot parse %s (%s), so its %s cannot be compared with the roster", what, se.Msg, name)
	}
	return 1, 1, fmt.Sprintf("%s cannot be read: %v", what, err)
}

// changedMessage is the finding on a statement that changes the literal
// name after it.
func changedMessage(name string) string {
	return name + " is changed here after its literal, and lint compares only the literal with the roster: write the suites into the literal"
}

// checkCISuite reports a suite of backend b's CI_SUITES list that the
// roster lacks for that backend.
func (c *checker) checkCISuite(add func(int, int, string, ...any), b config.Backend, l *ciList, name string, line, col int) {
	s, ok := c.cfg.Suite(name)
	switch {
	case ok && s.Backend == b:
	case ok:
		add(line, col, "suite %s is in %s but the roster (%s) has it as a %s suite, so the two runners disagree on its --hw: make them agree",
			pyfmt.Repr(name), l.ref, c.cfg.Origin(), s.Backend)
	case c.cfg.Source == "default":
		add(line, col, "suite %s is in %s but not in the roster (%s), so miles-ci never runs it: add it under suites: %s of a .miles-ci.yaml (`miles-ci config --init` writes one)",
			pyfmt.Repr(name), l.ref, c.cfg.Origin(), b)
	default:
		add(line, col, "suite %s is in %s but not in the roster (%s), so miles-ci never runs it: add it under suites: %s there",
			pyfmt.Repr(name), l.ref, c.cfg.Origin(), b)
	}
}

// dropHint ends a "not in CI_SUITES" message: the other way to agree.
func (c *checker) dropHint() string {
	if c.cfg.Source == "default" {
		return "or leave it out of a .miles-ci.yaml (`miles-ci config --init` writes one)"
	}
	return "or take it out of the roster"
}

// enumBackend maps a CI_SUITES key written HWBackend.CPU, .CUDA or .ROCM
// to its backend.
func enumBackend(key string) (config.Backend, bool) {
	member, ok := strings.CutPrefix(key, ciSuitesEnum+".")
	if !ok || member != strings.ToUpper(member) {
		return "", false
	}
	return config.ParseBackend(strings.ToLower(member))
}

// elemKind names a list element that is no string: its AST class, or the
// type of a constant.
func elemKind(v pysrc.Value) string {
	if v.Kind == pysrc.KindConstant {
		return v.Const.Type.String()
	}
	return v.Node
}

// lineStarts returns the offset of each line's first byte; a line ends at
// "\n", "\r\n" or a lone "\r", as Python reads the file.
func lineStarts(src []byte) []int {
	out := []int{0}
	for i := 0; i < len(src); i++ {
		switch {
		case src[i] == '\n':
			out = append(out, i+1)
		case src[i] == '\r' && (i+1 >= len(src) || src[i+1] != '\n'):
			out = append(out, i+1)
		}
	}
	return out
}

// colOf is the 1-based column, in characters, of offset at on line.
func colOf(src []byte, starts []int, line, at int) int {
	if line < 1 || line > len(starts) || at < starts[line-1] || at > len(src) {
		return 1
	}
	return utf8.RuneCount(src[starts[line-1]:at]) + 1
}

// firstCol is the column of the first character of line that is not a
// blank.
func firstCol(src []byte, starts []int, line int) int {
	if line < 1 || line > len(starts) {
		return 1
	}
	i := starts[line-1]
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\f') {
		i++
	}
	return colOf(src, starts, line, i)
}

// The other half of ci-suites while the Python policy is in the
// repository: its stage selection names the GPU stages a pull request may
// skip in PR_GPU_STAGES, and miles-ci policy names the roster's GPU
// suites of this repository (not external). A name there that is no such
// suite is a rename or a typo the Python policy would put in
// skipped_stages, where no job reads it: an error. A roster GPU stage
// missing there is one the Python policy never skips: its jobs run on
// every pull request, which costs runners but loses no test, so it is a
// warning.

// StageSelectionPath is the Python policy's stage selection.
const StageSelectionPath = "tests/ci/stage_selection.py"

// prStagesName is its set of the GPU stages a pull request may skip.
const prStagesName = "PR_GPU_STAGES"

// checkPRStages compares the PR_GPU_STAGES literal of the stage
// selection's source with the roster's GPU stages. A PR_GPU_STAGES that
// cannot be read as a literal collection of names is a finding, never a
// pass; a file without it has nothing to disagree with.
func (c *checker) checkPRStages(src []byte) {
	lines := lineStarts(src)
	add := func(sev Severity, line, col int, format string, args ...any) {
		c.found.add(Finding{Path: StageSelectionPath, Line: max(line, 1), Col: max(col, 1),
			Severity: sev, Rule: RuleCISuites, Message: fmt.Sprintf(format, args...)})
	}
	n, err := pysrc.ReadNames(src, prStagesName)
	if err != nil {
		if line, col, msg := literalProblem(src, lines, err, "the stage selection", prStagesName, "frozenset({\"suite\", …})"); msg != "" {
			add(Error, line, col, "%s", msg)
		}
		return
	}
	for _, l := range n.Changed {
		add(Error, l, firstCol(src, lines, l), "%s", changedMessage(prStagesName))
	}
	read := true
	has := map[string]bool{}
	for _, it := range n.Items {
		v := it.Value
		if v.Kind != pysrc.KindConstant || v.Const.Type != pysrc.Str {
			read = false
			add(Error, it.Line, firstCol(src, lines, it.Line), "%s holds a %s, not a suite name in quotes, so it cannot be compared with the roster", prStagesName, elemKind(v))
			continue
		}
		name := v.Const.Str
		has[name] = true
		line, col := it.Line, colOf(src, lines, it.Line, v.Start)
		s, ok := c.cfg.Suite(name)
		switch {
		case !ok:
			meant := ""
			// An external suite belongs no more than the name does.
			if near := c.suiteMeantAmong(name, []config.Backend{config.CUDA, config.ROCM}, nil); near != "" && !c.isExternal(near) {
				meant = "; did you mean " + near + "?"
			}
			add(Error, line, col, "suite %s is in %s but not in the roster (%s), so the Python policy skips a stage no job runs%s",
				pyfmt.Repr(name), prStagesName, c.cfg.Origin(), meant)
		case s.Backend == config.CPU:
			add(Error, line, col, "suite %s is in %s but is a cpu suite in the roster (%s): a pull request skips only GPU stages, so take it out",
				pyfmt.Repr(name), prStagesName, c.cfg.Origin())
		case s.External:
			add(Error, line, col, "suite %s is in %s but is external in the roster (%s): another repository's workflow runs it and a pull request here cannot skip it, so take it out",
				pyfmt.Repr(name), prStagesName, c.cfg.Origin())
		}
	}
	if !read {
		return
	}
	for _, name := range c.cfg.PRGPUStages() {
		if !has[name] {
			add(Warning, n.Line, firstCol(src, lines, n.Line), "suite %s is a GPU stage of the roster (%s) that miles-ci policy may skip, but it is not in %s, so the Python policy runs it on every pull request: add it there",
				pyfmt.Repr(name), c.cfg.Origin(), prStagesName)
		}
	}
}

// isExternal reports whether the roster's suite name is external.
func (c *checker) isExternal(name string) bool {
	s, ok := c.cfg.Suite(name)
	return ok && s.External
}
