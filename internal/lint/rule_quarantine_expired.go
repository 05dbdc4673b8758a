package lint

import (
	"github.com/radixark/miles-ci/internal/quarantine"
)

// RuleQuarantineExpired names an entry of the configuration's quarantine
// past its until: it protects nothing any more (run counts the file's
// failures again), so it is either stale or a decision due.
const RuleQuarantineExpired = "quarantine-expired"

var _ = register(Rule{Name: RuleQuarantineExpired, Severity: Warning,
	Summary: "a quarantine entry past its until, which protects nothing",
	onRepo:  (*checker).checkQuarantine})

// checkQuarantine reports each expired entry at its line of the
// configuration.
func (c *checker) checkQuarantine() {
	for _, e := range quarantine.Expired(c.cfg.Quarantine, c.now) {
		c.found.add(Finding{Path: c.cfg.Place(e.At), Line: max(e.At.Line, 1), Col: max(e.At.Col, 1), Severity: Warning,
			Rule: RuleQuarantineExpired, Message: quarantine.ExpiredMessage(e)})
	}
}
