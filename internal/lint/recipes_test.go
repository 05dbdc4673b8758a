package lint

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// The recipes of `miles-ci help migrate` are tested as they are written:
// the harness below reads them from the topic itself and applies them to a
// copy of the pinned Miles files (recipes_miles_test.go), the way a user
// pastes them, one step at a time. The topic holds them in this form:
//
//   - The migration is a sequence of sections "## Step N: …", numbered 1,
//     2, … in order: what one step shows lands together, and Miles' own
//     tests must pass after each. The sections "## Optional: …" come after
//     the last step and are applied together, as one more step, after it.
//     The "## Install" section is no step: its stand-ins serve every step,
//     and a recipe of it lands with the first step that places the install
//     step. Anything else that changes a file outside these sections is an
//     error.
//   - Each table whose header is `| where | before | after |` is a set of
//     rewrites of its step. In each file its where cell names (a code span
//     ending in .yml or .yaml), every occurrence of the before cell's code
//     becomes the after cell's; a trailing " …" in both stands for the
//     unchanged rest. A rewrite that changes nothing in a file it names
//     fails.
//   - Every ```yaml block is a recipe. The last non-blank line before it
//     is its marker, "In `F`:" or "In `F1` and `F2`:" (", " and ", and "
//     join more), naming the files it goes in: a workflow of
//     .github/workflows by its file name, else a new configuration file
//     at the root (a name starting with a dot, .pre-commit-config.yaml)
//     that the recipe holds whole.
//   - A block of any language whose marker names files below
//     .github/actions/ ("In `.github/actions/setup-miles-ci/action.yml`:")
//     is a new file of a local action, written as the block shows it; a
//     yaml one must be a mapping.
//     The block is indented as in the file: a mapping at column 1 is the
//     workflow's top level, one at column 3 its jobs, and every key and
//     step it shows must sit at the column of the file's.
//   - Places merge, values replace: the workflow, `on:`, `jobs:`, a job, a
//     step, and the named entries of inputs, outputs, secrets, `env:`,
//     `with:` and `permissions:` keep what the recipe does not show; any
//     other value the recipe shows (a `strategy:`, a command) replaces the
//     file's whole. Steps are known by name (else id): a step shown is the
//     existing one, and a new step goes next to the existing ones shown
//     around it. A new job must be whole (runs-on or uses), and so must a
//     new step (run or uses), so that a misspelt name fails instead of
//     adding a stub. A step shown by its name alone with the line comment
//     "# delete this step" (and, after it, why) is removed from the file.
//     Only the workflows a step changes are written back (re-encoded).
//   - A marker "In place of each `# COMMENT` line:" makes its block a
//     stand-in: every recipe line that is exactly that comment becomes the
//     block, indented to the comment, before the recipe is read. The step
//     of the topic's "## Install" section is placed this way: its block
//     gets the marker "In place of each `# the install step (## Install)`
//     line:", and every job the recipes show that runs miles-ci marks the
//     place with that comment, right before its first miles-ci command. A
//     stand-in that no recipe uses fails.
//   - A marker that begins "Or, in" ("Or, in `F`:", "Or, in place of each
//     `# COMMENT` line:") belongs to the topic's other way: its stand-ins
//     take the place of the main ones and its recipes come after all the
//     steps, as a step of their own. The Install section's route without a
//     release is written this way. The two ways are applied each to a tree
//     of its own, and each must place.
//   - Miles' Python is edited by name, never by a copy of it. A line
//     "In `F.py`, delete `A`, `B.c` and `d`." deletes classes, methods
//     (Class.method) and functions with their decorators and bodies; when
//     the names are not on its line, its paragraph ends with a colon and a
//     list follows, one "- `name`" an item. A line "Delete `F`." (or "`F1`
//     and `F2`", or "Delete these files…:" and a list) deletes whole files.
//     A ```python block is a whole file by its marker: "In `F.py`, a new
//     file:" (one the tree does not have), "At the end of `F.py`:" (added
//     after a blank line pair), "In place of `F.py`:" (its new text). A
//     step's edits of the Python are applied after its workflows, in the
//     topic's order.
//   - The table whose header is `| docs line | names | write instead |`
//     lists the lines of Miles' docs that name a script the migration
//     retires: `FILE`: "words of the line", the names, and what to write
//     instead. It is not applied; recipes_miles_test.go checks that it
//     holds every such line of the pinned docs, and only those.
//
// Anything the harness cannot place (a yaml block without a marker, a
// file, job, step, class or function it cannot find, an indentation other
// than the file's) is an error, never a skip.

// deleteComment begins the line comment of a step a recipe removes.
const deleteComment = "# delete this step"

// deletesStep reports whether a recipe's step s is one to remove: its name
// alone, commented deleteComment.
func deletesStep(s *yaml.Node) bool {
	if s.Kind != yaml.MappingNode || len(s.Content) != 2 || s.Content[0].Value != "name" {
		return false
	}
	return strings.HasPrefix(s.Content[0].LineComment, deleteComment) || strings.HasPrefix(s.Content[1].LineComment, deleteComment)
}

// installComment is the line by which a recipe marks where the install
// step of the "## Install" section goes.
const installComment = "# the install step (## Install)"

// recipeBook is what the harness reads from the migrate topic.
type recipeBook struct {
	// steps are the numbered steps in order, then the Optional sections
	// as one last step.
	steps []*step
	// standIns maps a comment line to the recipe that replaces it.
	standIns map[string]recipe
	// other holds the recipes and stand-ins of the "Or, in" markers, its
	// recipes as its one step; nil when the topic shows no other way.
	other *recipeBook
	// docs are the rows of the docs table: the lines of Miles' docs that
	// name a retired script, and what to write instead.
	docs []docsRow
}

// step is what lands together: a numbered step of the topic, or the
// Optional sections.
type step struct {
	title    string // "Step 2: the entry points"
	rewrites []rewrite
	recipes  []recipe
	// files are the recipes of new files of local actions, held whole.
	files []recipe
	py    []pyEdit
}

// otherWay returns the book of the topic's other way: the steps of the
// main one, then a step of the other way's recipes, with its stand-ins in
// place of the main ones. It is nil when there is none.
func (b *recipeBook) otherWay() *recipeBook {
	if b.other == nil {
		return nil
	}
	o := &recipeBook{standIns: maps.Clone(b.standIns), docs: b.docs}
	o.steps = append(slices.Clone(b.steps), &step{title: "the other way (Or, in …)", recipes: b.other.steps[0].recipes, files: b.other.steps[0].files})
	maps.Copy(o.standIns, b.other.standIns)
	return o
}

// rewrite is one row of the table: before becomes after in files.
type rewrite struct {
	at            string // topic:line
	files         []string
	before, after string
}

// recipe is one yaml block and the files its marker names.
type recipe struct {
	at    string // topic:line of the block's first line
	files []string
	text  string
}

// pyEditKind says what a pyEdit does.
type pyEditKind int

const (
	deleteDefs  pyEditKind = iota // delete classes, methods and functions by name
	deleteFile                    // delete the file
	newFile                       // write a file that is not there
	appendFile                    // add the block at the end of the file
	replaceFile                   // write the block in place of the file
)

// pyEdit is one edit of Miles' Python (or one file deleted).
type pyEdit struct {
	at    string // topic:line
	kind  pyEditKind
	file  string   // below the repository root
	names []string // deleteDefs: Class, Class.method or function
	text  string   // the block of newFile, appendFile, replaceFile
}

// docsRow is one row of the docs table: the line of file that holds
// anchor names the scripts names, and is rewritten as instead says.
type docsRow struct {
	at, file, anchor string
	names            []string
}

var (
	recipeMarker  = regexp.MustCompile("^(Or, i|I)n (`[^`]+`(?:(?:, and |, | and )`[^`]+`)*):$")
	standInMarker = regexp.MustCompile("^(Or, i|I)n place of each `(#[^`]*)` line:$")
	codeSpan      = regexp.MustCompile("`([^`]+)`")
	stepHeading   = regexp.MustCompile(`^## Step ([0-9]+): \S`)
	// spanList is code spans joined as a sentence joins them.
	spanList         = "`[^`]+`(?:(?:, and |, | and )`[^`]+`)*"
	deleteDefsMarker = regexp.MustCompile("^In `([^`]+\\.py)`, delete(?: (" + spanList + "))?(?:[ .:,;(]|$)")
	deleteFileMarker = regexp.MustCompile("^Delete (?:(" + spanList + ")|these files)(?:[ .:,;(]|$)")
	pyMarkers        = []struct {
		re   *regexp.Regexp
		kind pyEditKind
	}{
		{regexp.MustCompile("^In `([^`]+\\.py)`, a new file:$"), newFile},
		{regexp.MustCompile("^At the end of `([^`]+\\.py)`:$"), appendFile},
		{regexp.MustCompile("^In place of `([^`]+\\.py)`:$"), replaceFile},
	}
	docsAnchor = regexp.MustCompile(`"([^"]+)"`)
)

const (
	rewriteHeader = "| where | before | after |"
	docsHeader    = "| docs line | names | write instead |"
)

// readRecipeBook reads the steps, rewrites and recipes of a topic; name
// is the topic's file, for messages.
func readRecipeBook(name, text string) (*recipeBook, error) {
	book := &recipeBook{standIns: map[string]recipe{}}
	lines := strings.Split(text, "\n")
	var (
		cur      *step // the step being read; nil outside the steps
		optional *step
		install  *step  // the recipes of the Install section
		table    string // the header of the table being read
	)
	at := func(i int) string { return fmt.Sprintf("%s:%d", name, i+1) }
	inStep := func(i int, what string) error {
		if cur == nil {
			return fmt.Errorf("%s: %s outside a step: every change goes in a section \"## Step N: …\" or \"## Optional: …\"", at(i), what)
		}
		return nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "## ") {
			table = ""
			switch m := stepHeading.FindStringSubmatch(line); {
			case m != nil:
				if n, _ := strconv.Atoi(m[1]); n != len(book.steps)+1 || optional != nil {
					return nil, fmt.Errorf("%s: %q out of order: the steps are numbered 1, 2, … before the Optional sections", at(i), line)
				}
				cur = &step{title: strings.TrimPrefix(line, "## ")}
				book.steps = append(book.steps, cur)
			case strings.HasPrefix(line, "## Optional: "):
				if optional == nil {
					optional = &step{title: "the Optional sections"}
				}
				cur = optional
			case line == "## Install":
				// The install definition lands with the first step that
				// places the install step (see below).
				install = &step{title: "## Install"}
				cur = install
			default:
				cur = nil
			}
			continue
		}
		switch {
		case table == "" && (strings.HasPrefix(line, rewriteHeader) || strings.HasPrefix(line, docsHeader)):
			if err := inStep(i, "a table"); err != nil {
				return nil, err
			}
			table = line
			continue
		case table != "" && strings.HasPrefix(line, "|"):
			if strings.HasPrefix(line, "|---") {
				continue
			}
			if strings.HasPrefix(table, docsHeader) {
				row, err := readDocsRow(at(i), line)
				if err != nil {
					return nil, err
				}
				book.docs = append(book.docs, row)
				continue
			}
			rw, err := readRewrite(at(i), line)
			if err != nil {
				return nil, err
			}
			cur.rewrites = append(cur.rewrites, rw)
			continue
		case table != "":
			table = ""
		}
		if m := deleteDefsMarker.FindStringSubmatch(line); m != nil {
			if err := inStep(i, "a deletion"); err != nil {
				return nil, err
			}
			names, err := listedNames(name, lines, i, m[2])
			if err != nil {
				return nil, err
			}
			cur.py = append(cur.py, pyEdit{at: at(i), kind: deleteDefs, file: m[1], names: names})
			continue
		}
		if m := deleteFileMarker.FindStringSubmatch(line); m != nil {
			if err := inStep(i, "a deletion"); err != nil {
				return nil, err
			}
			files, err := listedNames(name, lines, i, m[1])
			if err != nil {
				return nil, err
			}
			for _, f := range files {
				cur.py = append(cur.py, pyEdit{at: at(i), kind: deleteFile, file: f})
			}
			continue
		}
		lang, isFence := strings.CutPrefix(line, "```")
		if !isFence {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: the code block is not closed", name, start)
		}
		blockAt := fmt.Sprintf("%s:%d", name, start+1)
		body := strings.Join(lines[start:i], "\n") + "\n"
		marker := ""
		for k := start - 2; k >= 0; k-- {
			if strings.TrimSpace(lines[k]) != "" {
				marker = lines[k]
				break
			}
		}
		if lang == "python" {
			edit := pyEdit{at: blockAt, text: body}
			for _, pm := range pyMarkers {
				if m := pm.re.FindStringSubmatch(marker); m != nil {
					edit.kind, edit.file = pm.kind, m[1]
				}
			}
			if edit.file == "" {
				return nil, fmt.Errorf("%s: a python block without a marker: the line before it says where it goes (In `tests/ci/test/test_x.py`, a new file:, At the end of `F`:, In place of `F`:), not %q", blockAt, marker)
			}
			if err := inStep(start, "a python block"); err != nil {
				return nil, err
			}
			cur.py = append(cur.py, edit)
			continue
		}
		into := book
		if strings.HasPrefix(marker, "Or, ") {
			if book.other == nil {
				book.other = &recipeBook{standIns: map[string]recipe{}, steps: []*step{{}}}
			}
			into = book.other
		}
		if m := recipeMarker.FindStringSubmatch(marker); m != nil {
			r := recipe{at: blockAt, text: body}
			for _, f := range codeSpan.FindAllStringSubmatch(m[2], -1) {
				r.files = append(r.files, f[1])
			}
			if slices.ContainsFunc(r.files, isActionFile) {
				if slices.ContainsFunc(r.files, func(f string) bool { return !isActionFile(f) }) {
					return nil, fmt.Errorf("%s: a block is either a new file of a local action (below %s) or a recipe for workflows, not both: %s", blockAt, actionDir, strings.Join(r.files, ", "))
				}
				if into != book {
					into.steps[0].files = append(into.steps[0].files, r)
					continue
				}
				if err := inStep(start, "a new file"); err != nil {
					return nil, err
				}
				cur.files = append(cur.files, r)
				continue
			}
		}
		if lang != "yaml" {
			continue
		}
		if m := standInMarker.FindStringSubmatch(marker); m != nil {
			into.standIns[m[2]] = recipe{at: blockAt, text: body}
			continue
		}
		m := recipeMarker.FindStringSubmatch(marker)
		if m == nil {
			return nil, fmt.Errorf("%s: a yaml block without a marker: the line before it should name the files it goes in (In `pr-test.yml`:), not %q", blockAt, marker)
		}
		r := recipe{at: blockAt, text: body}
		for _, f := range codeSpan.FindAllStringSubmatch(m[2], -1) {
			r.files = append(r.files, f[1])
		}
		if into != book {
			into.steps[0].recipes = append(into.steps[0].recipes, r)
			continue
		}
		if err := inStep(start, "a recipe"); err != nil {
			return nil, err
		}
		cur.recipes = append(cur.recipes, r)
	}
	if !slices.ContainsFunc(book.steps, func(s *step) bool { return len(s.rewrites) > 0 }) {
		return nil, fmt.Errorf("%s: no table %s", name, rewriteHeader)
	}
	if optional != nil {
		book.steps = append(book.steps, optional)
	}
	if install != nil && len(install.rewrites)+len(install.recipes)+len(install.files)+len(install.py) > 0 {
		first := slices.IndexFunc(book.steps, func(st *step) bool {
			return slices.ContainsFunc(st.recipes, func(r recipe) bool {
				for c := range book.standIns {
					if strings.Contains(r.text, c) {
						return true
					}
				}
				return false
			})
		})
		if first < 0 {
			return nil, fmt.Errorf("%s: the Install section has recipes, and no step places the install step", name)
		}
		st := book.steps[first]
		st.rewrites = append(install.rewrites, st.rewrites...)
		st.recipes = append(install.recipes, st.recipes...)
		st.files = append(install.files, st.files...)
		st.py = append(install.py, st.py...)
	}
	return book, nil
}

// actionDir holds the local actions of a repository.
const actionDir = ".github/actions/"

// isActionFile reports whether a marker's file is a file of a local action.
func isActionFile(f string) bool {
	return strings.HasPrefix(f, actionDir) && path.Clean(f) == f && !strings.Contains(f, "..")
}

// listedNames returns the code spans a deletion names: those on its own
// line (spans), else the first code span of each item of the list that
// follows its paragraph, which ends with a colon.
func listedNames(name string, lines []string, i int, spans string) ([]string, error) {
	var out []string
	for _, f := range codeSpan.FindAllStringSubmatch(spans, -1) {
		out = append(out, f[1])
	}
	if len(out) > 0 {
		return out, nil
	}
	k := i
	for k+1 < len(lines) && strings.TrimSpace(lines[k+1]) != "" {
		k++
	}
	if !strings.HasSuffix(lines[k], ":") || k+2 >= len(lines) || !strings.HasPrefix(lines[k+2], "- ") {
		return nil, fmt.Errorf("%s:%d: a deletion names nothing: name what goes in code spans on its line, or end its paragraph with a colon and list them", name, i+1)
	}
	for k += 2; k < len(lines) && (strings.HasPrefix(lines[k], "- ") || strings.HasPrefix(lines[k], "  ")); k++ {
		if !strings.HasPrefix(lines[k], "- ") {
			continue
		}
		m := codeSpan.FindStringSubmatch(lines[k])
		if m == nil || !strings.HasPrefix(lines[k], "- `") {
			return nil, fmt.Errorf("%s:%d: an item of a deletion begins with what goes, in a code span", name, k+1)
		}
		out = append(out, m[1])
	}
	return out, nil
}

// readDocsRow reads one row of the docs table:
// | `FILE`: "words of the line" | `names` | what to write |.
func readDocsRow(at, row string) (docsRow, error) {
	cells := strings.Split(strings.Trim(row, "|"), "|")
	if len(cells) != 3 {
		return docsRow{}, fmt.Errorf("%s: a row of %d cells, not the docs line, the names and what to write instead", at, len(cells))
	}
	r := docsRow{at: at}
	file := codeSpan.FindStringSubmatch(cells[0])
	anchor := docsAnchor.FindStringSubmatch(cells[0])
	for _, f := range codeSpan.FindAllStringSubmatch(cells[1], -1) {
		r.names = append(r.names, f[1])
	}
	if file == nil || anchor == nil || len(r.names) == 0 || strings.TrimSpace(cells[2]) == "" {
		return docsRow{}, fmt.Errorf("%s: a docs row is | `FILE`: \"words of the line\" | `the names` | what to write instead |", at)
	}
	r.file, r.anchor = file[1], anchor[1]
	return r, nil
}

// readRewrite reads one table row: | where | `before …` | `after …` |.
func readRewrite(at, row string) (rewrite, error) {
	cells := strings.Split(strings.Trim(row, "|"), "|")
	if len(cells) != 3 {
		return rewrite{}, fmt.Errorf("%s: a row of %d cells, not where, before and after", at, len(cells))
	}
	rw := rewrite{at: at}
	for _, f := range codeSpan.FindAllStringSubmatch(cells[0], -1) {
		if strings.HasSuffix(f[1], ".yml") || strings.HasSuffix(f[1], ".yaml") {
			rw.files = append(rw.files, f[1])
		}
	}
	code := func(cell string) (string, bool) {
		spans := codeSpan.FindAllStringSubmatch(cell, -1)
		if len(spans) != 1 {
			return "", false
		}
		return strings.TrimSuffix(spans[0][1], " …"), true
	}
	before, ok1 := code(cells[1])
	after, ok2 := code(cells[2])
	if len(rw.files) == 0 || !ok1 || !ok2 {
		return rewrite{}, fmt.Errorf("%s: a row needs the files in its where cell and one code span in before and in after", at)
	}
	rw.before, rw.after = before, after
	return rw, nil
}

// applyRecipeBook applies every step of the book to the tree below root,
// in order (see applySteps). An empty book only re-encodes the workflows:
// that is the baseline a migrated tree is compared with, so that encoding
// alone never differs.
func applyRecipeBook(book *recipeBook, root string) error {
	return applySteps(book, root, nil)
}

// applySteps applies the steps of the book in order, calling done (when
// not nil) after each, and fails when a stand-in served no recipe.
func applySteps(book *recipeBook, root string, done func(i int, st *step) error) error {
	used := map[string]int{}
	steps := book.steps
	if len(steps) == 0 {
		steps = []*step{{title: "nothing"}}
	}
	for i, st := range steps {
		if err := applyStep(st, book.standIns, used, root, len(book.steps) == 0); err != nil {
			return fmt.Errorf("%s: %w", st.title, err)
		}
		if done != nil {
			if err := done(i, st); err != nil {
				return err
			}
		}
	}
	for c, r := range book.standIns {
		if used[c] == 0 && len(book.steps) > 0 {
			return fmt.Errorf("%s: no recipe has a %q line for this block to stand in", r.at, c)
		}
	}
	return nil
}

// applyStep applies one step: its rewrites and recipes to the workflows
// below root, which it writes back, read and re-encoded, with the new
// files the recipes make; then its edits of the Python, in the topic's
// order. Only the workflows the step changes are written, as a user's
// edit leaves the others alone (Miles' tests read some as text), unless
// all says to re-encode every one.
func applyStep(st *step, standIns map[string]recipe, used map[string]int, root string, all bool) error {
	if err := applyWorkflows(st, standIns, used, root, all); err != nil {
		return err
	}
	for _, e := range st.py {
		if err := applyPyEdit(e, root); err != nil {
			return err
		}
	}
	return nil
}

func applyWorkflows(st *step, standIns map[string]recipe, used map[string]int, root string, all bool) error {
	dir := filepath.Join(root, filepath.FromSlash(WorkflowDir))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	texts := map[string]string{}
	for _, e := range entries {
		if ext := path.Ext(e.Name()); ext == ".yml" || ext == ".yaml" {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return err
			}
			texts[path.Join(WorkflowDir, e.Name())] = string(b)
		}
	}
	where := func(name string) string {
		p := path.Join(WorkflowDir, name)
		if _, ok := texts[p]; ok {
			return p
		}
		return name
	}
	touched := map[string]bool{}
	for _, rw := range st.rewrites {
		for _, f := range rw.files {
			p := where(f)
			touched[p] = true
			if !strings.Contains(texts[p], rw.before) {
				return fmt.Errorf("%s: %s holds no %q to rewrite", rw.at, f, rw.before)
			}
			texts[p] = strings.ReplaceAll(texts[p], rw.before, rw.after)
		}
	}
	docs := map[string]*yaml.Node{}
	for p, text := range texts {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		docs[p] = &doc
	}
	for _, r := range st.recipes {
		text := expandStandIns(r, standIns, used)
		for _, f := range r.files {
			p := where(f)
			touched[p] = true
			// Each file gets its own copy of the recipe's nodes.
			var snippet yaml.Node
			if err := yaml.Unmarshal([]byte(text), &snippet); err != nil {
				return fmt.Errorf("%s: the recipe is not YAML: %w", r.at, err)
			}
			if len(snippet.Content) == 0 || snippet.Content[0].Kind != yaml.MappingNode {
				return fmt.Errorf("%s: a recipe is a mapping of keys, as the file has them", r.at)
			}
			top := snippet.Content[0]
			doc := docs[p]
			if doc == nil {
				if strings.HasPrefix(p, ".") && !strings.Contains(p, "/") && top.Column == 1 {
					docs[p] = &snippet
					continue
				}
				return fmt.Errorf("%s: %s is not a workflow of %s, nor a new configuration file at the root (.name) that the recipe holds whole", r.at, f, WorkflowDir)
			}
			m := &merger{at: r.at + " in " + f}
			switch col := top.Content[0].Column; col {
			case 1:
				err = m.mapping(doc.Content[0], top, "", false)
			case 3:
				_, jobs := lookup(doc.Content[0], "jobs")
				err = m.mapping(jobs, top, "jobs", true)
			default:
				err = fmt.Errorf("%s: the recipe starts at column %d: a workflow's top level is at column 1, its jobs at 3", m.at, col)
			}
			if err != nil {
				return err
			}
		}
	}
	written := map[string]string{}
	for _, r := range st.files {
		for _, f := range r.files {
			if first, ok := written[f]; ok {
				return fmt.Errorf("%s: %s is held whole by the recipe at %s already", r.at, f, first)
			}
			written[f] = r.at
			if ext := path.Ext(f); ext == ".yml" || ext == ".yaml" {
				var doc yaml.Node
				if err := yaml.Unmarshal([]byte(r.text), &doc); err != nil {
					return fmt.Errorf("%s: %s is not YAML: %w", r.at, f, err)
				}
				if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
					return fmt.Errorf("%s: %s is not a mapping of keys", r.at, f)
				}
			}
			full := filepath.Join(root, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(full, []byte(r.text), 0o644); err != nil {
				return err
			}
		}
	}
	for p, doc := range docs {
		if !all && !touched[p] {
			continue
		}
		var buf bytes.Buffer
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(doc); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.WriteFile(full, buf.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// expandStandIns replaces each line of the recipe that is a stand-in's
// comment with the stand-in's block, indented to the comment.
func expandStandIns(r recipe, standIns map[string]recipe, used map[string]int) string {
	var out []string
	for _, line := range strings.Split(r.text, "\n") {
		trimmed := strings.TrimSpace(line)
		s, ok := standIns[trimmed]
		if !ok {
			out = append(out, line)
			continue
		}
		used[trimmed]++
		indent := line[:len(line)-len(strings.TrimLeft(line, " "))]
		block := strings.Split(strings.TrimRight(s.text, "\n"), "\n")
		least := -1
		for _, b := range block {
			if strings.TrimSpace(b) != "" {
				if n := len(b) - len(strings.TrimLeft(b, " ")); least < 0 || n < least {
					least = n
				}
			}
		}
		for _, b := range block {
			if strings.TrimSpace(b) == "" {
				out = append(out, "")
				continue
			}
			out = append(out, indent+b[least:])
		}
	}
	return strings.Join(out, "\n")
}

// merger merges one recipe into one file.
type merger struct{ at string }

// mergingKeys are the keys whose mappings hold named entries: a recipe
// adds to them or changes one entry, and the entries it does not show
// stay.
var mergingKeys = []string{"on", "workflow_call", "jobs", "inputs", "outputs", "secrets", "env", "with", "permissions"}

// mapping merges src into dst, a place (the workflow, a job, a step or one
// of mergingKeys): each key src shows is added, merged or replaced. jobs
// says dst is the jobs: mapping, whose entries merge and whose new entries
// must be whole jobs.
func (m *merger) mapping(dst, src *yaml.Node, where string, jobs bool) error {
	if dst == nil || dst.Kind != yaml.MappingNode {
		return fmt.Errorf("%s: %s is not a mapping in the file", m.at, where)
	}
	for i := 0; i+1 < len(src.Content); i += 2 {
		sk, sv := src.Content[i], src.Content[i+1]
		key := strings.TrimPrefix(where+"."+sk.Value, ".")
		j := keyIndex(dst, sk.Value)
		if j < 0 {
			if len(dst.Content) > 0 && dst.Content[0].Column != sk.Column {
				return fmt.Errorf("%s: %s is at column %d, the file's keys there at %d", m.at, key, sk.Column, dst.Content[0].Column)
			}
			if jobs {
				if k, _ := lookup(sv, "runs-on"); k == nil {
					if k, _ := lookup(sv, "uses"); k == nil {
						return fmt.Errorf("%s: job %s is not in the file, and the recipe does not show a whole job (runs-on or uses)", m.at, sk.Value)
					}
				}
			}
			dst.Content = append(dst.Content, sk, sv)
			continue
		}
		dk, dv := dst.Content[j], dst.Content[j+1]
		if dk.Column != sk.Column {
			return fmt.Errorf("%s: %s is at column %d, the file's at %d", m.at, key, sk.Column, dk.Column)
		}
		var err error
		switch {
		case isNull(sv):
			err = fmt.Errorf("%s: %s shows no value: a recipe cannot remove a key", m.at, key)
		case sk.Value == "steps" && sv.Kind == yaml.SequenceNode && dv.Kind == yaml.SequenceNode:
			err = m.steps(dv, sv, key)
		case sv.Kind == yaml.MappingNode && dv.Kind == yaml.MappingNode && (jobs || slices.Contains(mergingKeys, sk.Value)):
			err = m.mapping(dv, sv, key, where == "" && sk.Value == "jobs")
		default:
			dst.Content[j+1] = sv
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// keyIndex returns the index in m.Content of key's key node, or -1.
func keyIndex(m *yaml.Node, key string) int {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return i
		}
	}
	return -1
}

// stepKey is how a step is known: its name, else its id.
func stepKey(step *yaml.Node) string {
	if _, n := lookup(step, "name"); n != nil {
		return n.Value
	}
	if _, id := lookup(step, "id"); id != nil {
		return "id: " + id.Value
	}
	return ""
}

// steps merges the steps src shows into dst: a step found is merged; new
// steps go before the next step found, or after the last one.
func (m *merger) steps(dst, src *yaml.Node, where string) error {
	var pending []*yaml.Node
	after := -1 // where new steps after the last step found go
	for _, s := range src.Content {
		key := stepKey(s)
		if key == "" {
			return fmt.Errorf("%s: a step of %s has neither a name nor an id, so it cannot be placed", m.at, where)
		}
		if len(dst.Content) > 0 && dst.Content[0].Column != s.Column {
			return fmt.Errorf("%s: step %q of %s is at column %d, the file's at %d", m.at, key, where, s.Column, dst.Content[0].Column)
		}
		j := slices.IndexFunc(dst.Content, func(d *yaml.Node) bool { return stepKey(d) == key })
		if deletesStep(s) {
			if j < 0 {
				return fmt.Errorf("%s: %s has no step %q to delete", m.at, where, key)
			}
			dst.Content = slices.Delete(dst.Content, j, j+1)
			dst.Content = slices.Insert(dst.Content, j, pending...)
			after = j + len(pending)
			pending = nil
			continue
		}
		if j < 0 {
			k, _ := lookup(s, "run")
			if k == nil {
				if k, _ = lookup(s, "uses"); k == nil {
					return fmt.Errorf("%s: %s has no step %q, and the recipe does not show a whole step (run or uses)", m.at, where, key)
				}
			}
			pending = append(pending, s)
			continue
		}
		if err := m.mapping(dst.Content[j], s, where+"["+key+"]", false); err != nil {
			return err
		}
		dst.Content = slices.Insert(dst.Content, j, pending...)
		after = j + len(pending) + 1
		pending = nil
	}
	if len(pending) > 0 {
		if after < 0 {
			return fmt.Errorf("%s: no step the recipe shows is a step of %s, so its new steps have no place", m.at, where)
		}
		dst.Content = slices.Insert(dst.Content, after, pending...)
	}
	return nil
}

// A small workflow and topic for the harness's own tests.
const recipeWorkflow = `on:
  workflow_call:
    inputs:
      cmd:
        type: string
jobs:
  run:
    runs-on: ubuntu-latest
    strategy:
      max-parallel: 2
      matrix:
        id: [0, 1]
    steps:
      - name: Checkout
        uses: actions/checkout@v4
      - name: Test
        run: make test
`

// smallTable rewrites the small workflow's one command.
const smallTable = "## Step 1: the small workflow\n\n| where | before | after |\n|---|---|---|\n| `ci.yml` | `make test` | `make check` |\n\n"

func applyToSmall(t *testing.T, topic string) (string, error) {
	t.Helper()
	root := t.TempDir()
	p := filepath.Join(root, filepath.FromSlash(WorkflowDir), "ci.yml")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(recipeWorkflow), 0o644))
	book, err := readRecipeBook("topic.md", topic)
	if err != nil {
		return "", err
	}
	if err := applyRecipeBook(book, root); err != nil {
		return "", err
	}
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b), nil
}

func TestRecipes_PlacesMergeValuesReplaceStepsGoByTheirNeighbours(t *testing.T) {
	got, err := applyToSmall(t, smallTable+"In `ci.yml`:\n\n```yaml\non:\n  workflow_call:\n    inputs:\n      shard:\n        type: string\n"+
		"jobs:\n  run:\n    strategy:\n      matrix:\n        id: [0]\n    steps:\n      - name: Fetch\n        run: ./fetch\n      - name: Test\n        env:\n          X: 1\n      - name: Upload\n        uses: actions/upload-artifact@v4\n"+
		"concurrency:\n  group: ci\n```\n")
	require.NoError(t, err)
	want := `on:
  workflow_call:
    inputs:
      cmd:
        type: string
      shard:
        type: string
jobs:
  run:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        id: [0]
    steps:
      - name: Checkout
        uses: actions/checkout@v4
      - name: Fetch
        run: ./fetch
      - name: Test
        run: make check
        env:
          X: 1
      - name: Upload
        uses: actions/upload-artifact@v4
concurrency:
  group: ci
`
	assert.Equal(t, want, got, "inputs merge, the strategy shown replaces the file's, new steps sit around Test, a new top-level key is added, the table rewrote make test")
}

func TestRecipes_AStepCommentedDeleteIsRemoved(t *testing.T) {
	got, err := applyToSmall(t, smallTable+"In `ci.yml`:\n\n```yaml\n  run:\n    steps:\n      - name: Checkout  # delete this step: no sources needed\n```\n")
	require.NoError(t, err)
	assert.NotContains(t, got, "Checkout")
	assert.Contains(t, got, "      - name: Test\n        run: make check\n")
	_, err = applyToSmall(t, smallTable+"In `ci.yml`:\n\n```yaml\n  run:\n    steps:\n      - name: Wait  # delete this step\n```\n")
	assert.ErrorContains(t, err, `has no step "Wait" to delete`)
}

func TestRecipes_AStandInTakesThePlaceOfItsComment(t *testing.T) {
	got, err := applyToSmall(t, smallTable+"In place of each `# the install step (## Install)` line:\n\n```yaml\n- name: Install\n  env:\n    V: v1\n  run: |\n    ./install \"$V\"\n```\n\n"+
		"In `ci.yml`:\n\n```yaml\n  run:\n    steps:\n      # the install step (## Install)\n      - name: Test\n```\n")
	require.NoError(t, err)
	assert.Contains(t, got, "      - name: Checkout\n        uses: actions/checkout@v4\n      - name: Install\n        env:\n          V: v1\n        run: |\n          ./install \"$V\"\n      - name: Test\n")
}

func TestRecipes_OrMarkersMakeTheOtherWayAppliedInATreeOfItsOwn(t *testing.T) {
	topic := smallTable +
		"In place of each `# the install step (## Install)` line:\n\n```yaml\n- name: Install\n  run: ./install\n```\n\n" +
		"Or, in `ci.yml`:\n\n```yaml\n  build:\n    runs-on: ubuntu-latest\n    steps:\n      - name: Build\n        run: make dist\n  run:\n    needs: build\n```\n\n" +
		"Or, in place of each `# the install step (## Install)` line:\n\n```yaml\n- name: Install the build\n  run: ./install-build\n```\n\n" +
		"In `ci.yml`:\n\n```yaml\n  run:\n    steps:\n      # the install step (## Install)\n      - name: Test\n```\n"
	book, err := readRecipeBook("topic.md", topic)
	require.NoError(t, err)
	apply := func(b *recipeBook) string {
		t.Helper()
		root := t.TempDir()
		p := filepath.Join(root, filepath.FromSlash(WorkflowDir), "ci.yml")
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(recipeWorkflow), 0o644))
		require.NoError(t, applyRecipeBook(b, root))
		out, err := os.ReadFile(p)
		require.NoError(t, err)
		return string(out)
	}
	mainWay := apply(book)
	assert.Contains(t, mainWay, "      - name: Install\n        run: ./install\n      - name: Test\n")
	assert.NotContains(t, mainWay, "build", "the other way's recipes stay out of the main way")

	other := book.otherWay()
	require.NotNil(t, other)
	got := apply(other)
	assert.Contains(t, got, "      - name: Install the build\n        run: ./install-build\n      - name: Test\n        run: make check\n",
		"the other way's stand-in takes the main one's place, after the main way's rewrites")
	assert.Contains(t, got, "  build:\n    runs-on: ubuntu-latest\n")
	assert.Contains(t, got, "    needs: build\n")
	assert.NotContains(t, got, "./install\n")

	plain, err := readRecipeBook("topic.md", smallTable+"In `ci.yml`:\n\n```yaml\n  run:\n    timeout-minutes: 5\n```\n")
	require.NoError(t, err)
	assert.Nil(t, plain.otherWay(), "a topic without Or markers has no other way")
}

func TestRecipes_WhatCannotBePlacedIsAnError(t *testing.T) {
	for _, tc := range []struct{ name, topic, want string }{
		{"no marker", "Then:\n\n```yaml\n  run:\n    timeout-minutes: 5\n```\n", "without a marker"},
		{"an unknown file", "In `nope.yml`:\n\n```yaml\n  run:\n    timeout-minutes: 5\n```\n", "not a workflow"},
		{"a misspelt step", "In `ci.yml`:\n\n```yaml\n  run:\n    steps:\n      - name: Tset\n        env:\n          X: 1\n```\n", `no step "Tset"`},
		{"new steps with no neighbour", "In `ci.yml`:\n\n```yaml\n  run:\n    steps:\n      - name: Lint\n        run: make lint\n```\n", "no place"},
		{"a misspelt job", "In `ci.yml`:\n\n```yaml\n  rnu:\n    timeout-minutes: 5\n```\n", "job rnu is not in the file"},
		{"steps indented as in another file", "In `ci.yml`:\n\n```yaml\n  run:\n    steps:\n    - name: Test\n      env:\n        X: 1\n```\n", "column 7, the file's at 9"},
		{"a key with no value", "In `ci.yml`:\n\n```yaml\n  run:\n    strategy:\n```\n", "shows no value"},
		{"no table", "", "no table"},
		{"a rewrite that finds nothing", "## Step 1: x\n\n| where | before | after |\n|---|---|---|\n| `ci.yml` | `make tset …` | `make check …` |\n", `holds no "make tset"`},
		{"a recipe outside a step", "## Lint\n\nIn `ci.yml`:\n\n```yaml\n  run:\n    timeout-minutes: 5\n```\n", "a recipe outside a step"},
		{"a step out of order", "## Step 3: y\n", "out of order"},
		{"a python block without its marker", "Then:\n\n```python\nx = 1\n```\n", "a python block without a marker"},
		{"a deletion of a file that is not there", "Delete `tests/gone.py`.\n", "there is no tests/gone.py"},
		{"a deletion that names nothing", "In `tests/a.py`, delete the old ones.\n", "a deletion names nothing"},
		{"an unused stand-in", "In place of each `# the install step (## Install)` line:\n\n```yaml\n- name: Install\n  run: ./install\n```\n", "no recipe has"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := tc.topic
			if !strings.HasPrefix(topic, "## Step") && tc.want != "no table" {
				topic = smallTable + topic
			}
			_, err := applyToSmall(t, topic)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestRecipes_AFileOfALocalActionIsWrittenWhole(t *testing.T) {
	action := "# the pins\nname: Setup\nruns:\n  using: composite\n  steps:\n    - run: sh \"$GITHUB_ACTION_PATH/install.sh\"\n      shell: sh\n"
	script := "#!/bin/sh\necho installed\n"
	topic := smallTable + "In `.github/actions/setup/action.yml`:\n\n```yaml\n" + action + "```\n\n" +
		"In `.github/actions/setup/install.sh`:\n\n```sh\n" + script + "```\n"
	book, err := readRecipeBook("topic.md", topic)
	require.NoError(t, err)
	root := t.TempDir()
	p := filepath.Join(root, filepath.FromSlash(WorkflowDir), "ci.yml")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(recipeWorkflow), 0o644))
	require.NoError(t, applyRecipeBook(book, root))
	for name, want := range map[string]string{"action.yml": action, "install.sh": script} {
		got, err := os.ReadFile(filepath.Join(root, ".github", "actions", "setup", name))
		require.NoError(t, err)
		assert.Equal(t, want, string(got), "%s is written as the block shows it, comments and all", name)
	}

	for _, tc := range []struct{ name, topic, want string }{
		{"one file twice", "In `.github/actions/setup/install.sh`:\n\n```sh\necho 1\n```\n\nIn `.github/actions/setup/install.sh`:\n\n```sh\necho 2\n```\n", "held whole by the recipe at"},
		{"an action.yml that is no mapping", "In `.github/actions/setup/action.yml`:\n\n```yaml\n- run: x\n```\n", "not a mapping"},
		{"an action file and a workflow in one marker", "In `.github/actions/setup/action.yml` and `ci.yml`:\n\n```yaml\nname: x\n```\n", "not both"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := applyToSmall(t, smallTable+tc.topic)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
