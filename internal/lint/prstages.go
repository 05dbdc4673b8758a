package lint

import (
	"fmt"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/pysrc"
)

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
