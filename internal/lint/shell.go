package lint

import "strings"

// word is one shell word of a command line.
type word struct {
	text  string // the word after quote removal; an expression is kept as written
	raw   string // the word as written, quotes included
	start int    // byte offset of raw in the script
	// line and col place the word in the workflow file (1-based; 0 when
	// the word could not be found there).
	line, col int
}

// isExpr reports whether the word is exactly one GitHub expression,
// `${{ … }}`, whatever quotes surround it.
func (w word) isExpr() bool {
	return strings.HasPrefix(w.text, "${{") && strings.HasSuffix(w.text, "}}") &&
		strings.Count(w.text, "${{") == 1
}

// quoted reports whether the word is written in quotes, which keep an
// empty expansion one (empty) argument.
func (w word) quoted() bool {
	return strings.HasPrefix(w.raw, `"`) || strings.HasPrefix(w.raw, "'")
}

// splitScript reads a shell script into simple commands, each a list of
// words. It knows what a workflow's command lines use: blanks between
// words, single and double quotes, backslash escapes and line
// continuations, comments, and the separators newline, `;`, `&&`, `||`,
// `|` and `&`. A GitHub expression `${{ … }}` is substituted before the
// shell runs, so it is opaque: its blanks and quotes never split or end
// anything. Anything else (substitutions, redirections, here-documents)
// is kept as word text. It never fails: an unterminated quote or
// expression runs to the end of the script.
func splitScript(s string) [][]word {
	var (
		cmds    [][]word
		cur     []word
		text    strings.Builder
		start   = -1 // offset of the current word, -1 between words
		endWord = func(end int) {
			if start >= 0 {
				cur = append(cur, word{text: text.String(), raw: s[start:end], start: start})
				text.Reset()
				start = -1
			}
		}
		endCmd = func(end int) {
			endWord(end)
			if len(cur) > 0 {
				cmds = append(cmds, cur)
				cur = nil
			}
		}
		begin = func(i int) {
			if start < 0 {
				start = i
			}
		}
	)
	i := 0
	for i < len(s) {
		if strings.HasPrefix(s[i:], "${{") {
			begin(i)
			end := exprEnd(s, i)
			text.WriteString(s[i:end])
			i = end
			continue
		}
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			endWord(i)
			i++
		case c == '\n' || c == ';' || c == '&' || c == '|':
			endCmd(i)
			i++
		case c == '#' && start < 0:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\\':
			if i+1 < len(s) && s[i+1] == '\n' {
				// A line continuation joins the lines; it ends the word.
				endWord(i)
				i += 2
				continue
			}
			begin(i)
			if i+1 < len(s) {
				text.WriteByte(s[i+1])
			}
			i += 2
		case c == '\'' || c == '"':
			begin(i)
			i = quoted(s, i, &text)
		default:
			begin(i)
			text.WriteByte(c)
			i++
		}
	}
	endCmd(len(s))
	return cmds
}

// quoted reads the quoted string opening at s[i] into text and returns the
// offset after its closing quote. Expressions inside are copied whole.
func quoted(s string, i int, text *strings.Builder) int {
	q := s[i]
	i++
	for i < len(s) {
		switch {
		case strings.HasPrefix(s[i:], "${{"):
			end := exprEnd(s, i)
			text.WriteString(s[i:end])
			i = end
		case s[i] == q:
			return i + 1
		case q == '"' && s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0:
			if s[i+1] != '\n' {
				text.WriteByte(s[i+1])
			}
			i += 2
		default:
			text.WriteByte(s[i])
			i++
		}
	}
	return i
}

// exprEnd returns the offset after the `}}` closing the expression that
// opens at s[i], skipping the expression's own '…' string literals; the end
// of s when it is not closed.
func exprEnd(s string, i int) int {
	j := i + 3
	for j < len(s) {
		switch {
		case s[j] == '\'':
			k := strings.IndexByte(s[j+1:], '\'')
			if k < 0 {
				return len(s)
			}
			j += k + 2
		case strings.HasPrefix(s[j:], "}}"):
			return j + 2
		default:
			j++
		}
	}
	return len(s)
}
