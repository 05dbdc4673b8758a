package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The migrate topic edits Miles' Python the way a maintainer would, by
// name, never by a copy of Miles' code (recipes_test.go lists the forms).
// A deletion by name takes a class, a method of a class or a function
// with its decorators, as far as its body goes; the body's end is found
// by a scanner that knows Python's strings, comments and brackets, so a
// docstring or a string that begins at column 1 does not end it.

// applyPyEdit applies one edit of the topic's Python below root.
func applyPyEdit(e pyEdit, root string) error {
	p := filepath.Join(root, filepath.FromSlash(e.file))
	old, err := os.ReadFile(p)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return err
	}
	if missing && e.kind != newFile {
		return fmt.Errorf("%s: there is no %s", e.at, e.file)
	}
	switch e.kind {
	case deleteDefs:
		text := string(old)
		for _, n := range e.names {
			if text, err = deletePyDef(text, n); err != nil {
				return fmt.Errorf("%s: %s: %w", e.at, e.file, err)
			}
		}
		return os.WriteFile(p, []byte(text), 0o644)
	case deleteFile:
		return os.Remove(p)
	case newFile:
		if !missing {
			return fmt.Errorf("%s: %s is there already: a new file is one the repository does not have", e.at, e.file)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte(e.text), 0o644)
	case appendFile:
		return os.WriteFile(p, []byte(strings.TrimRight(string(old), "\n")+"\n\n\n"+e.text), 0o644)
	case replaceFile:
		return os.WriteFile(p, []byte(e.text), 0o644)
	}
	return fmt.Errorf("%s: an edit of no known kind", e.at)
}

// pyLine is a logical line of Python: its first physical line and the
// indentation of it.
type pyLine struct{ line, indent int }

// pyLogicalLines returns the logical lines of src that hold a statement,
// in order; comments, blank lines and the lines a string, a bracket or a
// backslash continues are none.
func pyLogicalLines(lines []string) []pyLine {
	var (
		out       []pyLine
		quote     string // the open string's quote, "" outside one
		depth     int
		continued bool
	)
	for i, line := range lines {
		starts := quote == "" && depth == 0 && !continued
		continued = false
		trimmed := strings.TrimLeft(line, " \t")
		if starts && trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			out = append(out, pyLine{line: i, indent: len(line) - len(trimmed)})
		}
	scan:
		for j := 0; j < len(line); j++ {
			c := line[j]
			if quote != "" {
				switch {
				case c == '\\':
					j++
				case strings.HasPrefix(line[j:], quote):
					j += len(quote) - 1
					quote = ""
				}
				continue
			}
			switch c {
			case '#':
				break scan
			case '"', '\'':
				quote = string(c)
				if strings.HasPrefix(line[j:], strings.Repeat(quote, 3)) {
					quote = strings.Repeat(quote, 3)
					j += 2
				}
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth = max(depth-1, 0)
			}
		}
		if quote != "" && len(quote) == 1 && !strings.HasSuffix(line, "\\") {
			quote = "" // an unterminated one-line string: Python's error, not ours
		}
		continued = quote == "" && strings.HasSuffix(line, "\\")
	}
	return out
}

var pyDefLine = regexp.MustCompile(`^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_][A-Za-z0-9_]*)\b`)

// pyDefExtent finds the definition called name among the logical lines
// [lo, hi) at indent, and returns its lines [start, end): its decorators,
// its line and its body, without the blank lines and comments after it.
func pyDefExtent(lines []string, logical []pyLine, lo, hi, indent int, name string) (int, int, bool) {
	for k, l := range logical {
		if l.line < lo || l.line >= hi || l.indent != indent {
			continue
		}
		m := pyDefLine.FindStringSubmatch(lines[l.line])
		if m == nil || m[1] != name {
			continue
		}
		start := l.line
		for d := k - 1; d >= 0 && logical[d].indent == indent && strings.HasPrefix(strings.TrimSpace(lines[logical[d].line]), "@"); d-- {
			start = logical[d].line
		}
		end := hi
		for _, n := range logical[k+1:] {
			if n.line >= hi {
				break
			}
			if n.indent <= indent {
				end = n.line
				break
			}
		}
		for end > l.line+1 {
			t := strings.TrimSpace(lines[end-1])
			if t != "" && !(strings.HasPrefix(t, "#") && len(lines[end-1])-len(strings.TrimLeft(lines[end-1], " ")) <= indent) {
				break
			}
			end--
		}
		return start, end, true
	}
	return 0, 0, false
}

// deletePyDef deletes the class, method (Class.method) or function name
// from the Python source text, with the blank lines it leaves over the
// ones that were around it.
func deletePyDef(text, name string) (string, error) {
	lines := strings.Split(text, "\n")
	logical := pyLogicalLines(lines)
	owner, member, isMember := strings.Cut(name, ".")
	start, end, ok := pyDefExtent(lines, logical, 0, len(lines), 0, owner)
	if !ok {
		return "", fmt.Errorf("no class or function %s at the top level to delete", owner)
	}
	if isMember {
		body := -1
		for _, l := range logical {
			if l.line > start && l.line < end && l.indent > 0 {
				body = l.indent
				break
			}
		}
		if start, end, ok = pyDefExtent(lines, logical, start+1, end, body, member); body < 0 || !ok {
			return "", fmt.Errorf("class %s has no %s to delete", owner, member)
		}
	}
	blank := func(i int) bool { return i >= 0 && i < len(lines) && strings.TrimSpace(lines[i]) == "" }
	before, after := 0, 0
	for blank(start - 1 - before) {
		before++
	}
	for blank(end + after) {
		after++
	}
	// Keep the wider of the two gaps, so that what was around the
	// definition stays as far apart as it was from it.
	drop := min(before, after)
	out := append(lines[:start:start], lines[end+drop:]...)
	if end+after == len(lines) {
		// The last definition of the file: the file ends where what was
		// before it ends.
		out = append(lines[:start-before:start-before], "")
	}
	return strings.Join(out, "\n"), nil
}

func TestPyDefs_DeletesByNameWithDecoratorsAndStringsThatLookLikeCode(t *testing.T) {
	src := `"""A module."""

import pytest


class TestA:
    def test_one(self):
        assert 1


    @pytest.mark.parametrize(
        "x",
        [1, 2],
    )
    def test_two(self, x):
        s = """
def test_three():
class TestB:
"""
        assert s  # a comment )

    # a comment of test_last
    def test_last(self):
        assert (1 +
2)


def test_free():
    pass


class TestB:
    pass
`
	got, err := deletePyDef(src, "TestA.test_two")
	require.NoError(t, err)
	assert.Contains(t, got, "        assert 1\n\n\n    # a comment of test_last\n    def test_last(self):\n", "the method, its decorator and its string go; its neighbours stay")
	assert.NotContains(t, got, "test_two")
	assert.NotContains(t, got, "class TestB:\n\"\"\"")

	got, err = deletePyDef(got, "TestA")
	require.NoError(t, err)
	assert.Equal(t, "\"\"\"A module.\"\"\"\n\nimport pytest\n\n\ndef test_free():\n    pass\n\n\nclass TestB:\n    pass\n", got)

	got, err = deletePyDef(got, "test_free")
	require.NoError(t, err)
	assert.Equal(t, "\"\"\"A module.\"\"\"\n\nimport pytest\n\n\nclass TestB:\n    pass\n", got)

	_, err = deletePyDef(got, "TestB.test_gone")
	assert.ErrorContains(t, err, "class TestB has no test_gone to delete")
	_, err = deletePyDef(got, "test_gone")
	assert.ErrorContains(t, err, "no class or function test_gone")
}

func TestRecipes_PythonEditsByNameAndWholeFilesApplyInTheTopicsOrder(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, WorkflowDir, "ci.yml")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(recipeWorkflow), 0o644))
	files := map[string]string{
		"tests/test_old.py":  "import os\n\n\nclass TestA:\n    def test_a(self):\n        pass\n\n    def test_b(self):\n        pass\n\n\ndef test_c():\n    pass\n",
		"tests/gone.py":      "x = 1\n",
		"tests/also_gone.py": "y = 2\n",
		"tests/run.py":       "old = True\n",
	}
	for name, text := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(root, "tests"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o644))
	}
	topic := smallTable +
		"In `tests/test_old.py`, delete these, which moved:\n\n- `TestA.test_b` (ported)\n- `test_c`\n\n" +
		"Delete `tests/gone.py` and `tests/also_gone.py`.\n\n" +
		"In `tests/test_new.py`, a new file:\n\n```python\ndef test_new():\n    pass\n```\n\n" +
		"At the end of `tests/test_new.py`:\n\n```python\ndef test_more():\n    pass\n```\n\n" +
		"In place of `tests/run.py`:\n\n```python\nnew = True\n```\n"
	book, err := readRecipeBook("topic.md", topic)
	require.NoError(t, err)
	require.NoError(t, applyRecipeBook(book, root))
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, name))
		require.NoError(t, err)
		return string(b)
	}
	assert.Equal(t, "import os\n\n\nclass TestA:\n    def test_a(self):\n        pass\n", read("tests/test_old.py"))
	assert.Equal(t, "def test_new():\n    pass\n\n\ndef test_more():\n    pass\n", read("tests/test_new.py"))
	assert.Equal(t, "new = True\n", read("tests/run.py"))
	for _, gone := range []string{"tests/gone.py", "tests/also_gone.py"} {
		_, err := os.Stat(filepath.Join(root, gone))
		assert.ErrorIs(t, err, fs.ErrNotExist, gone)
	}

	_, err = applyToSmall(t, smallTable+"In `ci.yml`, a new file:\n\n```python\nx = 1\n```\n")
	assert.Error(t, err, "a python block's marker names a .py file")
	require.NoError(t, os.WriteFile(p, []byte(recipeWorkflow), 0o644))
	book, err = readRecipeBook("topic.md", smallTable+"In `tests/run.py`, a new file:\n\n```python\nx = 1\n```\n")
	require.NoError(t, err)
	assert.ErrorContains(t, applyRecipeBook(book, root), "tests/run.py is there already")
}
