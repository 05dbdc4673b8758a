package lint

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A test asserts the findings of the rules it is about, and no others:
// many tests lint the same few repositories (smallWorkflow and its copies
// under testdata/rules, the trimmed Miles copy, the sample), so a new rule
// that fires on one of them would otherwise change the expectations of
// every test that lints it. A test says what it is about once, first:
//
//	about(t, RuleHW)                      // the findings of hw, all of them
//	wholeOutput(t, "why the whole of it") // every finding, on purpose
//
// and each helper that lints (lintSmall, lintFixture, lintRepoResult,
// lintTree, lintWith and those built on them) returns only those findings.
// A test that lints and says neither fails, so none sees a new rule's
// findings by accident. Its subtests inherit what it said.
//
// The tests that take the whole output on purpose are few, and each says
// why: three assert that no rule finds an error in a repository
// (TestRules_TheSmallWorkflowHasNoError, TestMiles_TheWorkflowsAsTheyAreHaveNoError,
// and on a Miles checkout TestExternal_OnAMilesCheckout); the others
// compare two runs, so a new rule changes neither side's expectation
// unless it tells them apart (TestMiles_TheMigratedCommandLinesReadTheSame,
// TestRegistry_TheOrderOfTheHooksNeverShows,
// TestExternal_TheRepositorysOwnFindingsAreUnchanged,
// TestFleet_MilesWithEveryLabelSetAddsNoFinding, and the three
// TestMigrateTopic_ tests of the recipes, which compare Miles before and
// after them).
var scopes sync.Map // test name → testScope

// testScope is what a test said it is about: rules, or the whole output
// (rules nil) for the reason why.
type testScope struct {
	rules map[string]bool
	why   string
}

// about says that t asserts the findings of rules: all of theirs, and
// none of another rule's.
func about(t *testing.T, rules ...string) {
	t.Helper()
	require.NotEmpty(t, rules, "about: name the rules the test asserts")
	s := testScope{rules: map[string]bool{}}
	for _, r := range rules {
		_, ok := LookupRule(r)
		require.True(t, ok, "about: no rule %s is registered", r)
		s.rules[r] = true
	}
	setScope(t, s)
}

// wholeOutput says that t asserts every finding of a lint run, on purpose
// (why): a new rule that fires on its repository changes what it expects.
func wholeOutput(t *testing.T, why string) {
	t.Helper()
	require.NotEmpty(t, why, "wholeOutput: say why the test takes the whole output")
	setScope(t, testScope{why: why})
}

func setScope(t *testing.T, s testScope) {
	t.Helper()
	name := t.Name()
	_, twice := scopes.LoadOrStore(name, s)
	require.False(t, twice, "%s says what it is about twice", name)
	t.Cleanup(func() { scopes.Delete(name) })
}

// scopeOf is what t, or the test it is a subtest of, said it is about.
func scopeOf(t *testing.T) (testScope, bool) {
	for name := t.Name(); ; {
		if s, ok := scopes.Load(name); ok {
			return s.(testScope), true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return testScope{}, false
		}
		name = name[:i]
	}
}

// scoped is res as t sees it: the findings of the rules t is about, and
// the totals less the findings of the others (a line that counts findings
// not listed takes its count off, at its severity: exact unless a rule
// left out mixes errors and warnings past the cap in one file). It fails
// t when t said nothing of what it is about.
func scoped(t *testing.T, res *Result) *Result {
	t.Helper()
	s, ok := scopeOf(t)
	if !ok {
		require.FailNow(t, "a test that lints says first what it is about",
			"%s lints: call about(t, RuleX, …) with the rules whose findings it asserts, or wholeOutput(t, why) (scope_test.go)", t.Name())
	}
	if s.rules == nil {
		return res
	}
	out := &Result{Findings: []Finding{}, Errors: res.Errors, Warnings: res.Warnings}
	for _, f := range res.Findings {
		if s.rules[f.Rule] {
			out.Findings = append(out.Findings, f)
			continue
		}
		n := max(f.Omitted, 1)
		if f.Severity == Error {
			out.Errors -= n
		} else {
			out.Warnings -= n
		}
	}
	return out
}

// findingsOf is the finding lines of res of the given rules, for a test
// that takes the whole output and asserts part of it.
func findingsOf(res *Result, rules ...string) []string {
	out := []string{}
	for _, f := range res.Findings {
		if slices.Contains(rules, f.Rule) {
			out = append(out, f.String())
		}
	}
	return out
}

// errorLines is the finding lines of res that are errors.
func errorLines(res *Result) []string {
	out := []string{}
	for _, f := range res.Findings {
		if f.Severity == Error {
			out = append(out, f.String())
		}
	}
	return out
}

// rulesIn are the rules the finding lines name ([RULE] at their end).
func rulesIn(lines []string) []string {
	var out []string
	for _, l := range lines {
		if i := strings.LastIndex(l, " ["); i >= 0 && strings.HasSuffix(l, "]") {
			out = append(out, l[i+2:len(l)-1])
		}
	}
	return out
}

// requireAbout fails t when want names a rule t is not about: its
// findings never reach the test, so the expectation could not hold.
func requireAbout(t *testing.T, want []string) {
	t.Helper()
	s, ok := scopeOf(t)
	if !ok || s.rules == nil {
		return
	}
	for _, r := range rulesIn(want) {
		require.True(t, s.rules[r], "the test expects a finding of %s: add it to its about(t, …)", r)
	}
}

// Scoping keeps the rules a test is about, whole and in order, and takes
// the others off the totals, a line that counts findings not listed by its
// count; a test that says nothing of what it is about cannot lint.
func TestScope_ATestSeesTheFindingsOfItsRules(t *testing.T) {
	f := func(rule string, sev Severity, omitted int) Finding {
		return Finding{Path: "p.yml", Line: 1, Col: 1, Severity: sev, Rule: rule, Message: "m", Omitted: omitted}
	}
	res := &Result{Findings: []Finding{
		f(RuleHW, Error, 0), f(RuleEmptySuite, Warning, 0), f(RuleJobName, Error, 0),
		f(RuleJobName, Error, 7), f(RuleOrphan, Warning, 0), f(RuleHW, Error, 0),
	}, Errors: 10, Warnings: 2}

	t.Run("about", func(t *testing.T) {
		about(t, RuleHW, RuleOrphan)
		got := scoped(t, res)
		assert.Equal(t, []Finding{f(RuleHW, Error, 0), f(RuleOrphan, Warning, 0), f(RuleHW, Error, 0)}, got.Findings)
		assert.Equal(t, 2, got.Errors, "less job-name's one and its seven not listed")
		assert.Equal(t, 1, got.Warnings, "less empty-suite's")
		t.Run("a subtest", func(t *testing.T) {
			assert.Len(t, scoped(t, res).Findings, 3, "inherits its test's")
		})
	})
	t.Run("none of its rules", func(t *testing.T) {
		about(t, RuleCron)
		got := scoped(t, res)
		assert.Equal(t, []Finding{}, got.Findings)
		assert.Equal(t, 0, got.Errors)
		assert.Equal(t, 0, got.Warnings)
	})
	t.Run("the whole output", func(t *testing.T) {
		wholeOutput(t, "the test of scoping")
		assert.Same(t, res, scoped(t, res))
	})
	assert.Equal(t, []string{"job-name", "hw"}, rulesIn([]string{
		"p.yml:1:1: error: job 'x' [y] runs suite 'unit' [job-name]", "no rule", "p.yml:2:1: error: [x] [hw]"}))

	// Without about or wholeOutput, a test has no scope, and scoped fails
	// it (a failing subtest would fail this test, so only the lookup is
	// run here).
	t.Run("nothing said", func(t *testing.T) {
		_, ok := scopeOf(t)
		assert.False(t, ok)
	})
}
