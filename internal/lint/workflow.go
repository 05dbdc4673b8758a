package lint

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/pyfmt"
)

// WorkflowDir is where GitHub reads a repository's workflows from; it does
// not look into subdirectories.
const WorkflowDir = ".github/workflows"

// workflow is one parsed workflow file.
type workflow struct {
	path string // root-relative, with / separators
	name string // the file name
	src  []byte
	// lineStarts holds the offset of each line's first byte.
	lineStarts []int

	root    *yaml.Node // the top-level mapping; nil when the file is not one
	jobsKey *yaml.Node
	jobs    []*job
	// crons are the values of on.schedule[].cron.
	crons []*yaml.Node
	// broken is set when the file could not be read or parsed; nothing
	// else of it is checked.
	broken bool
	// invocations are the commands read from each scalar node holding a
	// script (see findInvocations).
	invocations map[*yaml.Node][]*invocation
	// milesCICalls are the first command of each such script that calls
	// miles-ci by its bare name, nil for none (see firstMilesCI).
	milesCICalls map[*yaml.Node]*milesCICall
}

// job is one entry of a workflow's jobs: mapping.
type job struct {
	wf        *workflow
	id        string
	key, body *yaml.Node
	// invocations are the runner and policy commands the job runs.
	invocations []*invocation
}

// readWorkflows parses every *.yml and *.yaml entry of the workflow
// directory below root, sorted by name. An entry that cannot be read (a
// directory, a FIFO, a broken link) or is not valid YAML becomes an error
// finding and a broken workflow.
func readWorkflows(root string) ([]*workflow, []Finding, error) {
	dir := filepath.Join(root, filepath.FromSlash(WorkflowDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("read workflow directory %q: %w", WorkflowDir, err)
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".yml") || strings.HasSuffix(n, ".yaml") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var (
		wfs      []*workflow
		findings []Finding
	)
	for _, n := range names {
		wf := &workflow{path: path.Join(WorkflowDir, n), name: n}
		wfs = append(wfs, wf)
		data, problem := readWorkflowFile(filepath.Join(dir, n))
		if problem != "" {
			wf.broken = true
			findings = append(findings, Finding{Path: wf.path, Line: 1, Col: 1, Severity: Error, Rule: RuleYAML, Message: problem})
			continue
		}
		findings = append(findings, wf.parse(data)...)
	}
	return wfs, findings, nil
}

// MaxWorkflowSize bounds what lint reads of one workflow file: far beyond
// any hand-written workflow, and small enough to keep memory bounded.
const MaxWorkflowSize = 4 << 20

// readWorkflowFile reads a regular file of at most MaxWorkflowSize bytes,
// following a symbolic link; anything else (a directory, a FIFO, which is
// never waited on, a broken link) is a problem to report.
func readWorkflowFile(p string) ([]byte, string) {
	data, err := fsutil.ReadRegular(p, MaxWorkflowSize)
	if err != nil {
		return nil, fmt.Sprintf("cannot read the workflow: %v", fsutil.StripPath(err))
	}
	return data, ""
}

// parse reads the workflow's YAML. A syntax error, or a document GitHub
// Actions would refuse for its shape (no jobs mapping, a job that is not a
// mapping), is returned as findings.
func (wf *workflow) parse(data []byte) []Finding {
	wf.src = data
	wf.lineStarts = []int{0}
	for i, c := range data {
		if c == '\n' {
			wf.lineStarts = append(wf.lineStarts, i+1)
		}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		wf.broken = true
		line, msg := yamlErrorLine(err)
		return []Finding{{Path: wf.path, Line: line, Col: 1, Severity: Error, Rule: RuleYAML,
			Message: "the workflow is not valid YAML: " + msg}}
	}
	if first, dup := duplicateKey(&doc); dup != nil {
		// GitHub refuses such a workflow ("'x' is already defined"); a
		// reader that kept one of the two would lint a workflow that never
		// runs, or hide a job.
		wf.broken = true
		return []Finding{{Path: wf.path, Line: dup.Line, Col: dup.Column, Severity: Error, Rule: RuleYAML,
			Message: fmt.Sprintf("the key %q is defined twice in one mapping (lines %d and %d); GitHub Actions refuses the workflow",
				dup.Value, first.Line, dup.Line)}}
	}
	// The shapes GitHub Actions requires; the other rules read only what
	// has them.
	refused := func(n *yaml.Node, format string, args ...any) Finding {
		line, col := 1, 1
		if n != nil && n.Line > 0 && n.Line <= len(wf.lineStarts) {
			// yaml.v3 places an empty document's node past the end.
			line, col = n.Line, n.Column
		}
		return Finding{Path: wf.path, Line: line, Col: col, Severity: Error, Rule: RuleYAML,
			Message: fmt.Sprintf(format, args...) + "; GitHub Actions refuses the workflow"}
	}
	if len(doc.Content) == 0 {
		wf.broken = true
		return []Finding{refused(nil, "the workflow is empty")}
	}
	top := deref(doc.Content[0])
	switch {
	case isNull(top):
		wf.broken = true
		return []Finding{refused(nil, "the workflow is empty")}
	case top.Kind != yaml.MappingNode:
		wf.broken = true
		return []Finding{refused(top, "the workflow is %s, not a mapping of keys such as on: and jobs:", describeNode(top))}
	}
	wf.root = top
	k, v := lookup(top, "jobs")
	switch {
	case k == nil:
		wf.broken = true
		return []Finding{refused(top, "the workflow has no jobs: key")}
	case v == nil || v.Kind != yaml.MappingNode:
		wf.broken = true
		return []Finding{refused(v, "jobs: is %s, not a mapping of job ids to jobs", describeNode(v))}
	case len(v.Content) == 0:
		wf.broken = true
		return []Finding{refused(v, "jobs: holds no job")}
	}
	var findings []Finding
	if onKey, _ := lookup(top, "on"); onKey == nil {
		// Its jobs are still checked: they say what the workflow would run.
		findings = append(findings, refused(top, "the workflow has no on: key, so no event triggers it"))
	}
	wf.jobsKey = k
	for i := 0; i+1 < len(v.Content); i += 2 {
		key, body := v.Content[i], deref(v.Content[i+1])
		if body == nil || body.Kind != yaml.MappingNode {
			findings = append(findings, refused(body, "job %s is %s, not a mapping of keys such as runs-on: and steps:",
				pyfmt.Repr(key.Value), describeNode(body)))
			continue
		}
		wf.jobs = append(wf.jobs, &job{wf: wf, id: key.Value, key: key, body: body})
	}
	// GitHub reads the trigger key as the string "on" (yaml.v3 does not
	// turn it into a boolean, as YAML 1.1 readers do).
	if _, on := lookup(top, "on"); on != nil && on.Kind == yaml.MappingNode {
		if _, sched := lookup(on, "schedule"); sched != nil && sched.Kind == yaml.SequenceNode {
			for _, e := range sched.Content {
				if _, c := lookup(deref(e), "cron"); c != nil && c.Kind == yaml.ScalarNode {
					wf.crons = append(wf.crons, c)
				}
			}
		}
	}
	return findings
}

// describeNode names what a node is, for a message: "the scalar '5'",
// "a list", "empty". A long scalar is cut to its start.
func describeNode(n *yaml.Node) string {
	switch {
	case isNull(n):
		return "empty"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind == yaml.MappingNode:
		return "a mapping"
	case n.Kind == yaml.ScalarNode:
		v := n.Value
		if r := []rune(v); len(r) > 40 {
			return "the scalar " + pyfmt.Repr(string(r[:40])) + "…"
		}
		return "the scalar " + pyfmt.Repr(v)
	}
	return "not a mapping"
}

// isNull reports whether n is missing or YAML's null (an empty value, ~).
func isNull(n *yaml.Node) bool {
	return n == nil || n.Kind == yaml.ScalarNode && n.Tag == "!!null"
}

// duplicateKey returns the two key nodes of the first mapping (in document
// order) that holds one key twice, or nil. Aliases are not followed: what
// they name is checked where it is written.
func duplicateKey(n *yaml.Node) (first, second *yaml.Node) {
	if n == nil || n.Kind == yaml.AliasNode {
		return nil, nil
	}
	if n.Kind == yaml.MappingNode {
		seen := make(map[string]*yaml.Node, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				continue
			}
			if f, ok := seen[k.Value]; ok {
				return f, k
			}
			seen[k.Value] = k
		}
	}
	for _, c := range n.Content {
		if f, d := duplicateKey(c); d != nil {
			return f, d
		}
	}
	return nil, nil
}

// yamlErrorLine takes yaml.v3's "yaml: line N: msg" apart; the line is 1
// when the message names none.
func yamlErrorLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
		if i := strings.Index(msg, ": "); i >= 0 {
			msg = msg[i+2:]
		}
	}
	msg = strings.NewReplacer("\n", " ", "\r", " ").Replace(msg)
	return max(line, 1), msg
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 100; depth++ {
		n = n.Alias
	}
	return n
}

// lookup returns the key and value nodes of key in mapping n, or nils.
func lookup(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], deref(n.Content[i+1])
		}
	}
	return nil, nil
}

// scalar returns a node's text when it is a scalar.
func scalar(n *yaml.Node) (string, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return "", false
	}
	return n.Value, true
}

// get returns the key and value nodes of a path of keys in the job's body.
func (j *job) get(keys ...string) (*yaml.Node, *yaml.Node) {
	var k, v *yaml.Node
	v = j.body
	for _, key := range keys {
		if k, v = lookup(v, key); v == nil {
			return nil, nil
		}
	}
	return k, v
}

// needs returns the job ids of the job's needs: (a string or a list).
func (j *job) needs() []string {
	_, v := j.get("needs")
	if s, ok := scalar(v); ok {
		return []string{s}
	}
	var out []string
	if v != nil && v.Kind == yaml.SequenceNode {
		for _, e := range v.Content {
			if s, ok := scalar(deref(e)); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// at is the position of a node: its line and column.
func at(n *yaml.Node) (int, int) {
	if n == nil {
		return 1, 1
	}
	return n.Line, n.Column
}

// offset returns the byte offset of a node's first character in the file.
// yaml.v3 counts columns in characters, so the column is walked in runes.
func (wf *workflow) offset(n *yaml.Node) int {
	if n.Line < 1 || n.Line > len(wf.lineStarts) {
		return len(wf.src)
	}
	off := wf.lineStarts[n.Line-1]
	for col := 1; col < n.Column && off < len(wf.src) && wf.src[off] != '\n'; col++ {
		_, size := utf8.DecodeRune(wf.src[off:])
		off += size
	}
	return off
}

// position returns the 1-based line and character column of a byte offset.
func (wf *workflow) position(off int) (int, int) {
	line := wf.lineOf(off)
	start := wf.lineStarts[line-1]
	return line, utf8.RuneCount(wf.src[start:off]) + 1
}

// lineOf returns the 1-based line of a byte offset.
func (wf *workflow) lineOf(off int) int {
	return sort.Search(len(wf.lineStarts), func(i int) bool { return wf.lineStarts[i] > off })
}

// placeWords gives each word of a command held in the scalar node n its
// line and column in the file. YAML folding and block indentation change
// only the blanks between words, so each word's raw text is found, in
// order, in the file from the node on; a word YAML escaping changed is not
// found and keeps no position (it is then reported at the command).
//
// The work is linear in the script: columns are counted on from the last
// word's, and the searches that find nothing, each of which reads to the
// limit, stop once they have read sixteen times the node's source (a
// script where escaping changed many words keeps its later words
// unplaced).
func (wf *workflow) placeWords(n *yaml.Node, cmds [][]word) {
	from := wf.offset(n)
	// The search stays near the node: its source is the value plus the
	// indentation and quoting YAML added, so a word that is not found
	// there (changed by an escape) is not matched far below.
	limit := min(len(wf.src), from+4*len(n.Value)+1024)
	cursor := from
	missBudget := 16*(limit-from) + 1<<20
	lastOff, lastLine, lastCol := -1, 0, 0
	for _, cmd := range cmds {
		for i := range cmd {
			w := &cmd[i]
			if cursor > limit || missBudget < 0 {
				continue
			}
			k := bytes.Index(wf.src[cursor:limit], []byte(w.raw))
			if k < 0 {
				missBudget -= limit - cursor
				continue
			}
			off := cursor + k
			line := wf.lineOf(off)
			if line == lastLine && lastOff >= wf.lineStarts[line-1] {
				w.line, w.col = line, lastCol+utf8.RuneCount(wf.src[lastOff:off])
			} else {
				w.line, w.col = wf.position(off)
			}
			lastOff, lastLine, lastCol = off, w.line, w.col
			cursor += k + len(w.raw)
		}
	}
}
