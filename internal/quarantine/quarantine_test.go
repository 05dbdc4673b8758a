package quarantine

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
)

const roster = `discovery:
  roots: [tests]
  pattern: "**/test_*.py"
register_functions:
  register_cuda_ci: cuda
labels: [core]
suites:
  cuda:
    - name: a
    - name: b
quarantine:
  - file: tests/test_x.py
    reason: flaky
    until: 2027-01-31
`

func regs(pairs ...string) []registry.Registration {
	var out []registry.Registration
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, registry.Registration{File: pairs[i], Suite: pairs[i+1], Backend: config.CUDA})
	}
	return out
}

// An entry that names a file with no registration, or a suite the file is
// not registered in, is an error at its line (found by anchor text).
func TestCheck_AnEntryMustNameARegisteredFileInItsSuites(t *testing.T) {
	cases := []struct {
		name, entry, anchor string
		regs                []registry.Registration
		want                string // "" for no error
	}{
		{"registered", "", "", regs("tests/test_x.py", "a"), ""},
		{"registered in the suite named", "    suites: [a]\n", "", regs("tests/test_x.py", "a", "tests/test_x.py", "b"), ""},
		{"no registration", "", "- file:", regs("tests/test_y.py", "a"),
			`quarantine file "tests/test_x.py" has no registration: name a registered test file, or delete the entry`},
		{"not in the suite named", "    suites: [a, b]\n", "suites:", regs("tests/test_x.py", "a"),
			`quarantine file "tests/test_x.py" is not registered in suite "b"; its suites: a`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			text := roster + tc.entry
			cfg, err := config.Parse("ci.yaml", []byte(text))
			require.NoError(t, err)
			err = Check(cfg, tc.regs)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			before, _, _ := strings.Cut(text, tc.anchor+" ")
			require.Error(t, err)
			assert.Equal(t, fmt.Sprintf("ci.yaml:%d: %s", strings.Count(before, "\n")+1, tc.want), err.Error())
		})
	}
}

func entry(file, until string, suites ...string) config.QuarantineEntry {
	u, err := time.Parse(config.UntilLayout, until)
	if err != nil {
		panic(err)
	}
	return config.QuarantineEntry{File: file, Reason: "why " + file, Owner: "o", Until: u, Suites: suites}
}

// What a run's outcome says of each file, from a table: a failure under an
// active entry is forgiven and the report passes; a pass is a candidate
// for release; an expired entry changes nothing; a file that did not run,
// or of another suite, is left alone.
func TestApply_MarksTheFilesAndDecidesThePass(t *testing.T) {
	now := time.Date(2027, 1, 15, 12, 0, 0, 0, time.UTC)
	file := func(name string, status report.Status) report.File {
		f := report.File{File: name, Status: status, Attempts: 1}
		if status == report.NotRun {
			f.Attempts = 0
		}
		return f
	}
	cases := []struct {
		name    string
		files   []report.File
		entries []config.QuarantineEntry
		passed  bool
		kinds   []Kind
		marked  []bool
	}{
		{"a forgiven failure", []report.File{file("x", report.Fail), file("y", report.Pass)},
			[]config.QuarantineEntry{entry("x", "2027-01-31")}, true, []Kind{Forgiven}, []bool{true, false}},
		{"a forgiven timeout", []report.File{file("x", report.Timeout)},
			[]config.QuarantineEntry{entry("x", "2027-01-15")}, true, []Kind{Forgiven}, []bool{true}},
		{"another file's failure still fails", []report.File{file("x", report.Fail), file("y", report.Fail)},
			[]config.QuarantineEntry{entry("x", "2027-01-31")}, false, []Kind{Forgiven}, []bool{true, false}},
		{"a candidate for release", []report.File{file("x", report.Pass)},
			[]config.QuarantineEntry{entry("x", "2027-01-31")}, true, []Kind{Candidate}, []bool{true}},
		{"an expired entry", []report.File{file("x", report.Fail)},
			[]config.QuarantineEntry{entry("x", "2027-01-14")}, false, []Kind{Lapsed}, []bool{false}},
		{"a file not run", []report.File{file("y", report.Fail), file("x", report.NotRun)},
			[]config.QuarantineEntry{entry("x", "2027-01-31")}, false, nil, []bool{false, false}},
		{"an entry of another suite", []report.File{file("x", report.Fail)},
			[]config.QuarantineEntry{entry("x", "2027-01-31", "other")}, false, nil, []bool{false}},
		{"an entry of this suite", []report.File{file("x", report.Fail)},
			[]config.QuarantineEntry{entry("x", "2027-01-31", "other", "s")}, true, []Kind{Forgiven}, []bool{true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			doc := &report.Report{Suite: "s", Files: tc.files}
			doc.Finish()
			notes := Apply(doc, tc.entries, now)
			assert.Equal(t, tc.passed, doc.Passed)
			var kinds []Kind
			for _, n := range notes {
				kinds = append(kinds, n.Kind)
			}
			assert.Equal(t, tc.kinds, kinds)
			for i, f := range doc.Files {
				assert.Equal(t, tc.marked[i], f.Quarantined, f.File)
				if f.Quarantined {
					assert.Equal(t, "why "+f.File, f.QuarantineReason)
					assert.Equal(t, "o", f.QuarantineOwner)
				}
			}
		})
	}
}

// For: --no-quarantine and quarantine_off leave a run no entry; otherwise
// the entries of its suite.
func TestFor_TheEntriesOfARun(t *testing.T) {
	cfg, err := config.Parse("ci.yaml", []byte(roster+"  - file: tests/test_y.py\n    reason: r\n    until: 2027-01-31\n    suites: [b]\nquarantine_off: [weekly]\n"))
	require.NoError(t, err)
	files := func(es []config.QuarantineEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.File)
		}
		return out
	}
	assert.Equal(t, []string{"tests/test_x.py"}, files(For(cfg, "a", "regular", false)))
	assert.Equal(t, []string{"tests/test_x.py", "tests/test_y.py"}, files(For(cfg, "b", "nightly", false)))
	assert.Empty(t, For(cfg, "b", "regular", true), "--no-quarantine")
	assert.Empty(t, For(cfg, "b", "weekly", false), "quarantine_off")
}

// A listing marks each file an entry concerns in the run's suite, with
// whether the entry is expired at the listing's time; a file no entry
// concerns, or one whose entry names another suite, has no mark, and a
// listing no entry concerns has none at all.
func TestMarks_TheListedFilesAnEntryConcerns(t *testing.T) {
	until := time.Date(2027, 1, 31, 0, 0, 0, 0, time.UTC)
	entries := []config.QuarantineEntry{
		{File: "x.py", Until: until},
		{File: "y.py", Until: until.AddDate(0, -2, 0)},
		{File: "z.py", Until: until, Suites: []string{"b"}},
	}
	now := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	got := Marks(entries, "a", regs("w.py", "a", "x.py", "a", "y.py", "a", "z.py", "a"), now)
	assert.Equal(t, map[string]Mark{"x.py": {Entry: entries[0]}, "y.py": {Entry: entries[1], Expired: true}}, got)
	assert.Nil(t, Marks(entries, "a", regs("w.py", "a"), now))
	assert.Nil(t, Marks(nil, "a", regs("x.py", "a"), now))

	e, ok := Find(entries, "y.py", "a", now)
	assert.False(t, ok, "an expired entry protects nothing: %v", e)
	e, ok = Find(entries, "z.py", "b", now)
	assert.True(t, ok)
	assert.Equal(t, "quarantined until 2027-01-31: ", Describe(e)[:len("quarantined until 2027-01-31: ")])
}
