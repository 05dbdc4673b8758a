package lint

import (
	"fmt"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// RuleHW names a stage command whose --hw is missing or not its suite's
// backend.
const RuleHW = "hw"

var _ = register(Rule{Name: RuleHW, Severity: Error,
	Summary:        "--hw is missing or differs from the suite's backend",
	onSuiteCommand: func(c *checker, sc stageCommand) { c.checkHW(sc.job, sc.inv, sc.suite) }})

// checkHW: the command's --hw is the suite's backend.
func (c *checker) checkHW(j *job, inv *invocation, s config.Suite) {
	hw, ok := inv.value("--hw")
	at := hw
	if !ok {
		at = inv.first()
	}
	if msg := c.hwProblem(hw.text, ok, s); msg != "" {
		c.atWord(j, inv, at, RuleHW, "%s", msg)
	}
}

// hwProblem says what is wrong with a command's --hw (given or not) for
// suite s, or "" when it is the suite's backend.
func (c *checker) hwProblem(hw string, given bool, s config.Suite) string {
	switch {
	case !given:
		return fmt.Sprintf("the command has no --hw; suite %s runs on %s: add --hw %s", s.Name, s.Backend, s.Backend)
	case hw != string(s.Backend):
		return fmt.Sprintf("--hw is %s but suite %s is a %s suite in the roster (%s): write --hw %s",
			pyfmt.Repr(hw), s.Name, s.Backend, c.cfg.Origin(), s.Backend)
	}
	return ""
}
