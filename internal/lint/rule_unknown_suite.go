package lint

import (
	"fmt"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleUnknownSuite names a stage command whose --suite is missing, an
// expression, or not in the roster.
const RuleUnknownSuite = "unknown-suite"

var _ = register(Rule{Name: RuleUnknownSuite, Severity: Error,
	Summary: "--suite is missing, an expression, or not in the roster"})

// suiteMeant is "did you mean X?" for a suite name the roster lacks: the
// suite of the command's --hw (of any backend without one) it most likely
// meant (suiteMeantAmong: never one on other hardware), else the job's
// own id when it names a roster suite, else "".
func (c *checker) suiteMeant(name, jobID, hw string) string {
	var backends []config.Backend
	if b, ok := config.ParseBackend(hw); ok {
		backends = []config.Backend{b}
	}
	if near := c.suiteMeantAmong(name, backends, nil); near != "" {
		return "did you mean " + near + "?"
	}
	if s, ok := c.cfg.Suite(jobID); ok && !s.External {
		return fmt.Sprintf("did you mean %s, the job's own name?", jobID)
	}
	return ""
}

// suiteNames lists the roster's suites in configured order.
func (c *checker) suiteNames() []string {
	out := make([]string, len(c.cfg.Suites))
	for i, s := range c.cfg.Suites {
		out[i] = s.Name
	}
	return out
}

// suiteWord is the --suite word of a stage command, when it names a
// suite; a missing --suite or an expression is reported.
func (c *checker) suiteWord(j *job, inv *invocation) (word, bool) {
	sw, ok := inv.value("--suite")
	switch {
	case !ok:
		c.atWord(j, inv, inv.first(), RuleUnknownSuite, "the command has no --suite; a stage job runs one suite of the roster")
		return word{}, false
	case sw.isExpr() || strings.Contains(sw.text, "${{"):
		c.atWord(j, inv, sw, RuleUnknownSuite, "--suite is the expression %s; write the suite's name so the job can be checked against the roster", sw.text)
		return word{}, false
	}
	return sw, true
}

// unknownSuite reports the command's suite sw, not in the roster, with
// the suite it most likely meant (or the roster's suites); hw is the
// command's --hw, "" when none.
func (c *checker) unknownSuite(j *job, inv *invocation, sw word, hw string) {
	name := sw.text
	next := c.suiteMeant(name, j.id, hw)
	if next == "" {
		next = "known suites: " + strings.Join(c.suiteNames(), ", ")
	}
	c.atWord(j, inv, sw, RuleUnknownSuite, "suite %s is not in the roster (%s); %s", pyfmt.Repr(name), c.cfg.Origin(), next)
}
