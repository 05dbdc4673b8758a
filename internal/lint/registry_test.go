package lint

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireRegistered fails the test when a finding names a rule that no
// rule_*.go registers: a finding's code comes from the registry.
func requireRegistered(t *testing.T, res *Result) {
	t.Helper()
	for _, f := range res.Findings {
		_, ok := LookupRule(f.Rule)
		require.True(t, ok, "a finding of a rule no rule_*.go registers: %s", f)
	}
}

// Every rule is registered once, by a rule_*.go file, with a name fit for
// [NAME] and a one-line summary, and has a test file, rule_*_test.go,
// that names it.
func TestRegistry_EachRuleIsAFileWithItsTest(t *testing.T) {
	rules := Rules()
	require.NotEmpty(t, rules)
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[string]bool{}
	for i, r := range rules {
		assert.False(t, seen[r.Name], "%s is registered twice", r.Name)
		seen[r.Name] = true
		if i > 0 {
			assert.Less(t, rules[i-1].Name, r.Name, "Rules is sorted by name")
		}
		assert.Regexp(t, kebab, r.Name)
		assert.Contains(t, []Severity{Error, Warning}, r.Severity, r.Name)
		assert.NotEmpty(t, r.Summary, r.Name)
		assert.NotContains(t, r.Summary, "\n", r.Name)
		assert.False(t, strings.HasSuffix(r.Summary, "."), "%s: a summary has no trailing period", r.Name)
		assert.Regexp(t, `^rule_[a-z_]+\.go$`, r.File, r.Name)
		test, err := os.ReadFile(strings.TrimSuffix(r.File, ".go") + "_test.go")
		if assert.NoError(t, err, "rule %s: its test file", r.Name) {
			assert.Contains(t, string(test), r.Name, "rule %s: %s names it", r.Name, strings.TrimSuffix(r.File, ".go")+"_test.go")
		}
		got, ok := LookupRule(r.Name)
		assert.True(t, ok)
		assert.Equal(t, r.File, got.File)
	}
	_, ok := LookupRule("no-such-rule")
	assert.False(t, ok)
}

// A rule's file is named after it, unless it registers a family (several
// rules one check decides among), named in its doc comment.
func TestRegistry_ARuleFileIsNamedAfterItsRule(t *testing.T) {
	byFile := map[string][]string{}
	for _, r := range Rules() {
		byFile[r.File] = append(byFile[r.File], r.Name)
	}
	for file, names := range byFile {
		if len(names) == 1 {
			assert.Equal(t, "rule_"+strings.ReplaceAll(names[0], "-", "_")+".go", file, "the file of rule %s", names[0])
		}
	}
}

// No hook depends on another having run, and findings are sorted by
// place (then rule), so the order the registry runs its hooks in never
// shows: reversed, it gives the same findings on the Miles tree, the
// docs' migrated repository (with the external nightly and a fleet short
// of H100 runners), and every rule fixture.
func TestRegistry_TheOrderOfTheHooksNeverShows(t *testing.T) {
	wholeOutput(t, "the findings of every rule, run in two orders, compared")
	fixtures, err := filepath.Glob("testdata/rules/*/*")
	require.NoError(t, err)
	fixtures = append(fixtures, "testdata/rules/aliased-step.yml")
	lintAll := func() []string {
		var out []string
		out = append(out, findingLines(lintTree(t, milesFixture))...)
		out = append(out, findingLines(lintWith(t, "../../testdata/docs/migrated", Options{
			External: external(t, [2]string{nightlyFile, readText(t, nightlyFile)}),
			Fleet:    without(readFleet(t, fleetFile), "miles-h100"),
		}))...)
		for _, f := range fixtures {
			rel, err := filepath.Rel("testdata/rules", f)
			require.NoError(t, err)
			out = append(out, lintFixture(t, strings.TrimSuffix(filepath.ToSlash(rel), ".yml"), nil)...)
		}
		return out
	}
	want := lintAll()
	saved := registered
	t.Cleanup(func() { registered = saved })
	registered = slices.Clone(saved)
	slices.Reverse(registered)
	assert.Equal(t, want, lintAll())
	assert.Greater(t, len(want), 50, "the findings compared")
}
