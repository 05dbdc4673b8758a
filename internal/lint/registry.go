package lint

import (
	"path/filepath"
	"runtime"
	"sort"

	"github.com/radixark/miles-ci/internal/config"
)

// Rule is one kind of finding: its name, which every finding of it
// carries ([NAME] at the end of its line, "rule" in --json, the title of
// its annotation), the severity its findings have (a Warning rule may
// raise one to an error, as its paragraph in lint-rules.md says), and
// what it checks, in one line.
type Rule struct {
	Name     string
	Severity Severity
	Summary  string
	// File is the file that registers the rule: rule_<name>.go, or the
	// file of the family it belongs to.
	File string

	// onWorkflow, when set, checks a workflow's own keys, given its
	// policy jobs: check calls it for each workflow it can read.
	onWorkflow func(c *checker, wf *workflow, policyJobs []string)
	// onCommand, when set, checks each command of a stage job, before its
	// suite is read (sc.suite is empty); onSuiteCommand each command
	// whose suite is one of the roster that this repository runs (an
	// unknown or external one is reported as such and checked no further).
	onCommand, onSuiteCommand func(c *checker, sc stageCommand)
	// onJob, when set, checks a stage job's own wiring against the roster
	// entry of the (first) suite it runs: checkStageJob calls it for each
	// stage job, after its commands.
	onJob func(c *checker, sj stageJob)
	// onRepo, when set, checks what needs every stage job read first (the
	// roster, the registrations, the fleet, the installs): check calls it
	// once, after the workflows.
	onRepo func(c *checker)
}

// stageCommand is a command of a stage job that runs a suite.
type stageCommand struct {
	job        *job
	inv        *invocation
	suite      config.Suite // its roster suite, for onSuiteCommand
	policyJobs []string     // the policy jobs of its workflow
}

// stageJob is a stage job and what its wiring is checked against.
type stageJob struct {
	job        *job
	suite      config.Suite // the roster entry of the (first) suite it runs
	policyJobs []string     // the policy jobs of its workflow
}

// registered holds every rule, in the order their files register them,
// which is the order the hooks run in. Findings are sorted by place, then
// rule, so that order never shows (TestRegistry_TheOrderOfTheHooksNeverShows);
// a rule whose checks depend on one another calls them from one hook.
var registered []Rule

// register adds r to the registry and returns its name. Each rule_*.go
// registers its own rules, so a new rule is one new file (with its test
// and its paragraph in lint-rules.md) and no list to keep elsewhere.
func register(r Rule) string {
	if _, file, _, ok := runtime.Caller(1); ok {
		r.File = filepath.Base(file)
	}
	registered = append(registered, r)
	return r.Name
}

// Rules lists every rule lint reports, sorted by name.
func Rules() []Rule {
	out := append([]Rule(nil), registered...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupRule finds a rule by its name.
func LookupRule(name string) (Rule, bool) {
	for _, r := range registered {
		if r.Name == name {
			return r, true
		}
	}
	return Rule{}, false
}
