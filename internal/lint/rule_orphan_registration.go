package lint

import (
	"fmt"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
)

// RuleOrphan names a registration no job runs. A warning, or an error
// when a roster suite of its backend is meant (a typo, a rename).
const RuleOrphan = "orphan-registration"

var _ = register(Rule{Name: RuleOrphan, Severity: Warning,
	Summary: "a registration no job runs",
	onRepo:  (*checker).checkRegistrations})

// checkRegistrations: a registration that reaches no job never runs.
// Suites the roster marks external run elsewhere, and a roster suite
// without a job is a missing-job error of its own.
func (c *checker) checkRegistrations() {
	for _, r := range c.regs {
		if _, ok := r.Job(c.cfg); ok {
			continue
		}
		var msg string
		sev := Warning
		s, inRoster := c.cfg.Suite(r.Suite)
		switch {
		case inRoster && s.External:
			continue
		case inRoster:
			msg = fmt.Sprintf("suite %s is a %s suite, so its job never runs this %s registration: register it with the suite's backend or in a %s suite",
				pyfmt.Repr(r.Suite), s.Backend, r.Backend, r.Backend)
		default:
			// Not in the roster, but a job may run it anyway (an
			// unknown-suite error of that job): then it runs when the
			// job's --hw is the registration's backend.
			var other *stageRun
			ran := false
			for i, run := range c.runs[r.Suite] {
				if run.hw == string(r.Backend) {
					ran = true
					break
				}
				if other == nil {
					other = &c.runs[r.Suite][i]
				}
			}
			switch {
			case ran:
				continue
			case other != nil:
				msg = fmt.Sprintf("suite %s is run by job %s with --hw %s, so this %s registration never runs",
					pyfmt.Repr(r.Suite), pyfmt.Repr(other.job.id), other.hw, r.Backend)
			case c.registrationMeant(r) != "":
				// A suite of the roster on the same hardware is near: a
				// typo, or a name a rename left behind, and the test
				// never runs until it is fixed.
				sev = Error
				msg = fmt.Sprintf("suite %s is not in the roster (%s) and no job runs it, so this registration never runs: did you mean %s?",
					pyfmt.Repr(r.Suite), c.cfg.Origin(), c.registrationMeant(r))
			default:
				msg = fmt.Sprintf("suite %s is not in the roster and no job runs it, so this registration never runs: use a suite of the roster, or add this one, with its job, to the roster (%s)",
					pyfmt.Repr(r.Suite), c.cfg.Origin())
			}
		}
		c.found.add(Finding{Path: r.File, Line: max(r.Line, 1), Col: 1, Severity: sev, Rule: RuleOrphan, Message: msg})
	}
}

// registrationMeant is the roster suite a registration of a suite the
// roster lacks most likely meant: of its backend, on the hardware its
// suite's name says, the suites of the file's other registrations first.
func (c *checker) registrationMeant(r registry.Registration) string {
	var siblings []string
	for _, o := range c.regs {
		if o.File == r.File && o.Suite != r.Suite {
			siblings = append(siblings, o.Suite)
		}
	}
	return c.suiteMeantAmong(r.Suite, []config.Backend{r.Backend}, siblings)
}
