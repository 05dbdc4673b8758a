// Package lint checks a repository's GitHub Actions workflows against the
// miles-ci configuration (the roster of suites) and the test files'
// registrations: every suite has exactly one stage job, wired the way the
// roster says, and every registration lands in a job. Given them, it also
// checks the live fleet of runners and the workflows of other
// repositories that run the roster's external suites.
//
// A rule is a file. Each rule_<name>.go declares its name (the Rule*
// constant findings carry), registers it (register: its severity, a
// one-line summary and the hook that runs its check) and holds its
// checks; a family of rules that one check decides among (the runners and
// the external rules) shares a file that says so. Rules lists the
// registry; the docs test checks it against
// internal/docs/topics/lint-rules.md, and the registry test that each
// rule has its test file. Shared reading stays in shared files:
// workflow.go, command.go and shell.go read workflows and commands,
// rules.go holds the checker and runs the hooks, findings.go gathers the
// findings (sorted by place, so the order checks run in never shows).
//
// To add a rule, three places:
//  1. rule_<name>.go: the constant, and register(Rule{…}) with the check
//     on the hook that fits it: onWorkflow (a workflow's own keys),
//     onCommand or onSuiteCommand (each command of a stage job: its
//     flags), onJob (a stage job's wiring, against its roster suite) or
//     onRepo (once every stage job was read: the roster, the
//     registrations, the installs, the Python lists);
//  2. rule_<name>_test.go, with its fixtures under testdata/rules/<name>/
//     (a copy of the small workflow with one slip, read by lintFixture and
//     testFixtures) and the findings at their places in each fixture;
//  3. its paragraph, "- `<name>`: …" ("- `<name>` (warning): …" for a
//     Warning rule), in internal/docs/topics/lint-rules.md.
//
// Four rules are found while reading, not by a hook: yaml (workflow.go)
// and, as checkStageJob reads which suite a command runs, unknown-suite,
// job-name and external-job (rules.go calls their checks).
package lint

import (
	"fmt"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// Severity is how bad a finding is.
type Severity string

// The two severities: an error fails lint, a warning only with --strict.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Finding is one problem at a place in a file.
type Finding struct {
	Path     string   `json:"path"` // relative to the repository root, / separators
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	Severity Severity `json:"severity"`
	Rule     string   `json:"rule"`
	Message  string   `json:"message"`
	// Omitted is set on the one finding that stands for the findings of
	// its rule in its file past the first MaxPerRule: how many it stands
	// for. Its message says so.
	Omitted int `json:"omitted,omitempty"`
}

// String is the finding as lint prints it: PATH:LINE:COL: SEVERITY: MESSAGE [RULE].
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s [%s]", textfmt.OneLine(f.Path), f.Line, f.Col, f.Severity, textfmt.OneLine(f.Message), f.Rule)
}

// Result is every finding of one lint run, sorted by place.
type Result struct {
	Findings []Finding
	Errors   int
	Warnings int
}

// Options are the optional inputs of a lint run.
type Options struct {
	// Fleet, when not nil, is the live fleet of runners: each roster
	// suite's runs_on, and the labels each stage job lands on, must be
	// carried whole by online runners enough for its shards.
	Fleet *Fleet
	// External, when not empty, are the workflows of other repositories
	// that run the roster's external suites, as one fleet: each external
	// suite must be run by one of their jobs, with its backend's --hw,
	// and no other suite may be.
	External []*External
	// Now is the clock a quarantine entry's expiry is read on; nil is
	// time.Now.
	Now func() time.Time
}

// Run reads the workflows below root and checks them against the
// configuration and the registrations. Only a workflow directory that
// cannot be listed is an error; everything wrong inside a workflow,
// invalid YAML included, is a finding.
func Run(root string, cfg *config.Config, regs []registry.Registration) (*Result, error) {
	return RunWith(root, cfg, regs, Options{})
}

// RunWith is Run with the optional inputs.
func RunWith(root string, cfg *config.Config, regs []registry.Registration, opts Options) (*Result, error) {
	wfs, findings, err := readWorkflows(root)
	if err != nil {
		return nil, err
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	c := &checker{root: root, cfg: cfg, regs: regs, workflows: wfs, found: newFindingSet(), fleet: opts.Fleet, external: opts.External, now: opts.Now(),
		actions: readActions(root, wfs), entries: readEntries(root), compat: readCompat(root)}
	// A node that YAML aliases into two jobs is checked once per job; the
	// same finding at the same place is reported once (see findingSet).
	for _, f := range findings {
		c.found.add(f)
	}
	for _, ext := range opts.External {
		for _, f := range ext.findings {
			c.found.add(f)
		}
	}
	c.check()
	return c.found.result(), nil
}
