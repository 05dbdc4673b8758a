package lint

import "strings"

// RuleRepeatedFlag names a flag a stage command gives more than once.
const RuleRepeatedFlag = "repeated-flag"

var _ = register(Rule{Name: RuleRepeatedFlag, Severity: Warning,
	Summary:   "a stage command gives a flag twice, and the earlier one is ignored",
	onCommand: func(c *checker, sc stageCommand) { c.checkRepeatedFlags(sc.job, sc.inv) }})

// checkRepeatedFlags warns about a flag the command gives more than once:
// the runner, like argparse, keeps the last, and the rules read that one,
// so an earlier one is silently ignored (often the value meant).
func (c *checker) checkRepeatedFlags(j *job, inv *invocation) {
	names, at := inv.repeated()
	for _, name := range names {
		idx := at[name]
		last := inv.showFlag(idx[len(idx)-1], name)
		for _, i := range idx[:len(idx)-1] {
			f, _, _ := inv.flagAt(i, name)
			c.wordFinding(j, inv, f, Warning, RuleRepeatedFlag,
				"%s is given again later in the command (%s) and the runner keeps the last, so this %s is ignored: give %s once",
				name, last, inv.showFlag(i, name), name)
		}
	}
}

// showFlag writes the flag at args[i] with its values, as given.
func (inv *invocation) showFlag(i int, name string) string {
	f, vals, _ := inv.flagAt(i, name)
	if f.text != name {
		return f.text // --name=value
	}
	parts := []string{name}
	for _, v := range vals {
		parts = append(parts, v.text)
	}
	return strings.Join(parts, " ")
}
