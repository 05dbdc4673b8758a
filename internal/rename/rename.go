// Package rename decides what `miles-ci suites rename OLD NEW` changes:
// every place a repository keeps a suite's name (the roster, the
// workflows, the register calls, the Python runner's lists) as edits of
// exact byte ranges, and every place it cannot change safely, with why.
// It reads and writes no file; the CLI reads them, and writes the new texts
// only when nothing was refused.
package rename

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pysrc"
)

// Role says which of a repository's files a File is, and so which of its
// mentions of the name are the suite's.
type Role int

const (
	// Roster is the configuration file in effect: every whole-word mention.
	Roster Role = iota
	// Workflow is a file of .github/workflows: every whole-word mention
	// (job ids, needs, skip guards, --suite words, matrix values, comments).
	Workflow
	// TestFile is a test file the registry reads: the suite literal of its
	// register calls, nothing else.
	TestFile
	// PythonCI is one of the Python CI scripts that keep the roster while
	// they exist (PythonCIFiles): every string literal that is the name.
	PythonCI
)

// PythonCIFiles are the Python scripts that list suite names while a
// repository still has them: the runner's CI_SUITES, the PR stage
// selection's PR_GPU_STAGES and the /rerun-test resolver's runner labels
// per suite.
var PythonCIFiles = []string{"tests/ci/file_run.py", "tests/ci/run_suite.py", "tests/ci/stage_selection.py"}

// File is one file to rename in: its repository-relative path (as the
// messages name it), its role and its text.
type File struct {
	Path string
	Role Role
	Src  []byte
}

// Edit replaces the bytes [Start, End) of a file, the old name, with the
// new one.
type Edit struct {
	Start, End int
	Line       int
}

// Change is one file the rename changes: its edits and its new text.
type Change struct {
	Path  string
	Role  Role
	Edits []Edit
	Old   []byte
	New   []byte
}

// Problem is a place the rename cannot change safely.
type Problem struct {
	Path string
	Line int
	Msg  string
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.Path, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s: %s", p.Path, p.Msg)
}

// Mention is a file that still names the old suite after the rename, in
// text that is no suite field (a comment, a longer string): lines to
// check by hand.
type Mention struct {
	Path  string
	Lines []int
}

// Plan is what a rename does: the files it changes, sorted by path, or,
// when Refused holds anything, the reasons it changes nothing.
type Plan struct {
	Old, New string
	Changes  []Change
	Refused  []Problem
	Left     []Mention
}

// Edits counts the edits of every change.
func (p *Plan) Edits() int {
	n := 0
	for _, c := range p.Changes {
		n += len(c.Edits)
	}
	return n
}

// ArgError is a bad OLD or NEW argument.
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return e.Msg }

// Check validates a rename of old to new against the roster in effect:
// old must be a suite of it (else the roster's *config.UnknownSuiteError,
// with its did-you-mean), new a valid suite name the roster does not hold
// yet, and the roster must be a file of the repository, not the built-in
// one (which a rename cannot edit).
func Check(cfg *config.Config, old, new string) error {
	switch {
	case old == new:
		return &ArgError{Msg: fmt.Sprintf("OLD and NEW are both %q; nothing to rename", old)}
	case !config.ValidSuiteName(new):
		return &ArgError{Msg: fmt.Sprintf("new suite name %q %s", new, config.SuiteNameRule)}
	}
	if _, ok := cfg.Suite(new); ok {
		return &ArgError{Msg: fmt.Sprintf("suite %s is in the roster (%s) already; choose another name", new, cfg.Origin())}
	}
	if _, err := cfg.FindSuite(old, ""); err != nil {
		return err
	}
	if cfg.Source == "default" {
		return fmt.Errorf("the roster in effect is miles-ci's built-in one, which a rename cannot edit: run `miles-ci config --init` to write it into %s, commit it, then rename", config.FileName)
	}
	return nil
}

// Decide plans the rename of old to new in files, the config in effect
// being cfg (whose file is among files, with the role Roster). A file
// whose text never holds old is left as it is, but its job ids still
// count (a job new already exists is refused).
func Decide(cfg *config.Config, old, new string, files []File) *Plan {
	d := &decider{cfg: cfg, old: old, new: new, plan: &Plan{Old: old, New: new}, known: map[string]bool{}}
	for _, s := range cfg.Suites {
		d.known[s.Name] = true
	}
	d.names = map[string]bool{}
	for _, f := range cfg.RegisterFuncs {
		d.names[f.Name] = true
	}
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	// Job ids are names of their own: a longer name holding old is left
	// alone when it is one, and new must not be one yet.
	docs := make([]*yamlFile, len(files))
	for i, f := range files {
		if f.Role == Workflow || f.Role == Roster {
			docs[i] = d.parseYAML(f)
		}
	}
	for i, f := range files {
		if f.Role == Workflow && docs[i] != nil {
			for _, id := range docs[i].jobIDs() {
				d.known[id.Value] = true
				if id.Value == new {
					d.refuse(f.Path, id.Line, "the job %s exists already; renaming %s's job to it would define it twice", new, old)
				}
			}
		}
	}
	for i, f := range files {
		switch f.Role {
		case Roster, Workflow:
			d.yaml(f, docs[i])
		case TestFile:
			d.testFile(f)
		case PythonCI:
			d.pythonCI(f)
		}
	}
	if !slices.ContainsFunc(files, func(f File) bool { return f.Role == Roster }) {
		d.refuse(cfg.Origin(), 0, "the configuration file is not among the files read, so the roster would keep the old name")
	}
	if len(d.plan.Refused) > 0 {
		d.plan.Changes = nil
	}
	return d.plan
}

type decider struct {
	cfg      *config.Config
	old, new string
	// known are the names a longer token holding old may be: the roster's
	// suites and the workflows' job ids.
	known map[string]bool
	// names are the register functions.
	names map[string]bool
	plan  *Plan
}

func (d *decider) refuse(path string, line int, format string, args ...any) {
	d.plan.Refused = append(d.plan.Refused, Problem{Path: path, Line: line,
		Msg: "cannot rename " + d.old + ": " + fmt.Sprintf(format, args...)})
}

// change records the edits of a file, and the mentions of the name that
// the edits leave.
func (d *decider) change(f File, edits []Edit, text []byte) {
	if len(edits) > 0 {
		d.plan.Changes = append(d.plan.Changes, Change{Path: f.Path, Role: f.Role, Edits: edits, Old: f.Src, New: text})
	}
	covered := map[int]bool{}
	for _, e := range edits {
		covered[e.Start] = true
	}
	var lines []int
	for _, o := range occurrences(f.Src, d.old) {
		if o.whole() && !covered[o.at] {
			if l := pysrc.LineOf(f.Src, o.at); !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) > 0 {
		d.plan.Left = append(d.plan.Left, Mention{Path: f.Path, Lines: lines})
	}
}

// isNameByte reports whether c may be part of a suite name.
func isNameByte(c byte) bool {
	return c == '-' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// occurrence is one place name stands in a text, with the whole run of
// name characters around it: the name itself when it stands alone.
type occurrence struct {
	at    int
	lo    int // where token starts
	token string
	name  string
}

func (o occurrence) whole() bool { return o.token == o.name }

// shard returns, for a name that stands inside a word as the stem of one
// of its shards' names, that word cut after the name: "report-" + name
// from "report-NAME-${{ matrix.partition_id }}", name from "NAME-1" or
// "NAME-*". The word then holds the name as a shard name does: nothing
// or a prefix ending in "-" before it, and after it "-" and a shard
// number, or "-" at the end of the word (an expression or a glob follows).
// ok is false for any other word.
func (o occurrence) shard() (stem string, ok bool) {
	pre := o.token[:o.at-o.lo]
	post := o.token[o.at-o.lo+len(o.name):]
	if pre != "" && !strings.HasSuffix(pre, "-") {
		return "", false
	}
	digits, ok := strings.CutPrefix(post, "-")
	if !ok || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return pre + o.name, true
}

// occurrences finds every place name stands in s.
func occurrences(s []byte, name string) []occurrence {
	var out []occurrence
	for from := 0; ; {
		k := bytes.Index(s[from:], []byte(name))
		if k < 0 {
			return out
		}
		at := from + k
		lo, hi := at, at+len(name)
		for lo > 0 && isNameByte(s[lo-1]) {
			lo--
		}
		for hi < len(s) && isNameByte(s[hi]) {
			hi++
		}
		out = append(out, occurrence{at: at, lo: lo, token: string(s[lo:hi]), name: name})
		from = at + 1
	}
}

// apply returns src with every edit's bytes replaced by text and every
// other byte as it was. Edits are sorted and do not overlap.
func apply(src []byte, edits []Edit, text string) []byte {
	out := make([]byte, 0, len(src)+len(edits)*len(text))
	at := 0
	for _, e := range edits {
		out = append(out, src[at:e.Start]...)
		out = append(out, text...)
		at = e.End
	}
	return append(out, src[at:]...)
}
