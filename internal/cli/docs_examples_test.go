package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/lint"
)

// The README and the help topics show miles-ci at work in ```console
// blocks: a "$ " line is a command (a trailing backslash continues it), the
// lines after it are what it prints (stdout and stderr as a terminal shows
// them), "..." stands for any number of lines left out, and "$ echo $?"
// followed by a number is the previous command's exit status (0 when not
// shown). The tests below run every one of them against testdata/ and
// compare; any other code block's miles-ci lines must name real commands
// and flags.

const repoRoot = "../.."

// docsNow is the day the examples run on: the day after the last night
// of testdata/docs/history-flaky, so that a date an answer derives from
// today (history flaky --quarantine's until) is the one the docs show.
var docsNow = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

type docFile struct {
	path string // in the repository, for messages
	text string
}

func docFiles(t *testing.T) []docFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	files := []docFile{{"README.md", string(b)}}
	for _, tp := range docs.Topics() {
		files = append(files, docFile{"internal/docs/topics/" + tp.Name + ".md", tp.Text})
	}
	return files
}

// block is one fenced code block.
type block struct {
	lang  string
	line  int // of its first content line, 1-based
	lines []string
}

// blocks returns the fenced code blocks of a Markdown text, and the text
// outside them.
func blocks(text string) (out []block, prose []string) {
	var cur *block
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &block{lang: strings.TrimPrefix(trimmed, "```"), line: i + 2}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		default:
			prose = append(prose, line)
		}
	}
	return out, prose
}

type example struct {
	where  string // file:line
	argv   []string
	env    map[string]string
	output []string
	status int
}

func examples(t *testing.T, f docFile) []*example {
	t.Helper()
	bs, _ := blocks(f.text)
	var out []*example
	for _, b := range bs {
		if b.lang != "console" {
			continue
		}
		var cur *example
		for i := 0; i < len(b.lines); i++ {
			line := b.lines[i]
			where := f.path + ":" + strconv.Itoa(b.line+i)
			cmd, isCmd := strings.CutPrefix(line, "$ ")
			if !isCmd {
				require.NotNil(t, cur, "%s: output before any command", where)
				cur.output = append(cur.output, line)
				continue
			}
			for strings.HasSuffix(cmd, `\`) && i+1 < len(b.lines) {
				i++
				cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(b.lines[i])
			}
			if cmd == "echo $?" {
				require.NotNil(t, cur, "%s: echo $? before any command", where)
				require.Less(t, i+1, len(b.lines), "%s: echo $? without a status", where)
				i++
				status, err := strconv.Atoi(b.lines[i])
				require.NoError(t, err, "%s: the status after echo $?", where)
				cur.status = status
				continue
			}
			words := shellWords(t, where, cmd)
			ex := &example{where: where, env: map[string]string{}}
			for len(words) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(words[0]) {
				k, v, _ := strings.Cut(words[0], "=")
				ex.env[k] = v
				words = words[1:]
			}
			require.True(t, len(words) > 0 && words[0] == "miles-ci", "%s: a console example runs miles-ci, not %q", where, cmd)
			ex.argv = words[1:]
			out = append(out, ex)
			cur = ex
		}
	}
	return out
}

// shellWords splits a command line as sh would for the plain words the
// docs use: quotes and backslashes, no expansion; a redirection or a pipe
// is refused, since the test could not honour it.
func shellWords(t *testing.T, where, s string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			require.GreaterOrEqual(t, j, 0, "%s: unterminated quote", where)
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			require.GreaterOrEqual(t, j, 0, "%s: unterminated quote", where)
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case strings.IndexByte("|&;<>()$`*?", c) >= 0:
			require.Failf(t, "unsupported shell", "%s: %q holds %q, which a console example cannot use", where, s, c)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

// matchLines reports whether got is want, a "..." line in want standing
// for any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "..." {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && want[0] == got[0] && matchLines(want[1:], got[1:])
}

// normalize drops trailing spaces and the blank lines at the end.
func normalize(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " \t")
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

func TestDocs_ConsoleExamplesRunAsShown(t *testing.T) {
	abs, err := filepath.Abs(filepath.Join(repoRoot, "testdata"))
	require.NoError(t, err)
	total := 0
	for _, f := range docFiles(t) {
		exs := examples(t, f)
		total += len(exs)
		// Each document runs in a directory of its own, where testdata
		// is the repository's and what an example writes stays.
		dir := t.TempDir()
		require.NoError(t, os.Symlink(abs, filepath.Join(dir, "testdata")))
		t.Chdir(dir)
		for _, ex := range exs {
			var both bytes.Buffer
			fac, _, _ := suitesFactory(".", ex.env)
			fac.Out, fac.ErrOut = &both, &both
			fac.Start = func(*exec.Cmd) error { return errors.New("a docs example starts no process") }
			fac.Now = func() time.Time { return docsNow }
			status := Main(ex.argv, fac)
			assert.Equal(t, ex.status, status, "%s: miles-ci %s exits %d as shown; it printed:\n%s", ex.where, strings.Join(ex.argv, " "), ex.status, both.String())
			got := normalize(strings.Split(both.String(), "\n"))
			want := normalize(ex.output)
			assert.True(t, matchLines(want, got), "%s: miles-ci %s prints what the docs show\n--- shown:\n%s\n--- printed:\n%s",
				ex.where, strings.Join(ex.argv, " "), strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
	}
	assert.GreaterOrEqual(t, total, 10, "the docs show examples")
}

func TestDocs_MatchLines(t *testing.T) {
	for _, tc := range []struct {
		want, got []string
		ok        bool
	}{
		{nil, nil, true},
		{[]string{"a"}, []string{"a"}, true},
		{[]string{"a"}, []string{"a", "b"}, false},
		{[]string{"..."}, nil, true},
		{[]string{"...", "c"}, []string{"a", "b", "c"}, true},
		{[]string{"a", "...", "c"}, []string{"a", "c"}, true},
		{[]string{"a", "...", "c"}, []string{"a", "b"}, false},
		{[]string{"b", "..."}, []string{"a", "b"}, false},
	} {
		assert.Equal(t, tc.ok, matchLines(tc.want, tc.got), "%q %q", tc.want, tc.got)
	}
}

var (
	// A miles-ci command in a code block: the word, then its arguments.
	cmdInBlock = regexp.MustCompile(`(?:^|[\s"'(/])miles-ci[ \t]+(\S.*)$`)
	// One in running text: `miles-ci ARGS`.
	cmdInProse = regexp.MustCompile("`miles-ci ([^`]+)`")
)

// commandLines returns every miles-ci command line the docs show outside
// console blocks, each with where it is.
func commandLines(f docFile) (lines, wheres []string) {
	bs, prose := blocks(f.text)
	for _, b := range bs {
		if b.lang == "console" {
			continue
		}
		for i := 0; i < len(b.lines); i++ {
			line := stripComment(b.lines[i])
			// A folded YAML command goes on with indented flag lines.
			for i+1 < len(b.lines) && strings.HasPrefix(strings.TrimSpace(b.lines[i+1]), "--") {
				i++
				line += " " + strings.TrimSpace(stripComment(b.lines[i]))
			}
			if m := cmdInBlock.FindStringSubmatch(line); m != nil {
				lines = append(lines, m[1])
				wheres = append(wheres, f.path+":"+strconv.Itoa(b.line+i))
			}
		}
	}
	for _, p := range prose {
		for _, m := range cmdInProse.FindAllStringSubmatch(p, -1) {
			lines = append(lines, m[1])
			wheres = append(wheres, f.path+": `miles-ci "+m[1]+"`")
		}
	}
	return lines, wheres
}

// stripComment drops a shell or YAML comment: what follows a # that starts
// the line or a word.
func stripComment(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return ""
	}
	if i := strings.Index(line, " #"); i >= 0 {
		return line[:i]
	}
	return line
}

// checkCommandLine checks that args name a command and only flags it has.
// Placeholders (COMMAND, …) and shell words (${{ … }}, $VAR) are let be.
func checkCommandLine(root *cobra.Command, args string) error {
	cmd := root
	words := strings.Fields(args)
	for i, w := range words {
		w = strings.Trim(w, `"'`)
		if strings.ContainsAny(w, "|;&>)#") && !strings.HasPrefix(w, "${{") {
			break // the end of the command
		}
		if i == 0 && w != "" && !strings.HasPrefix(w, "-") && !isPlaceholder(w) {
			sub, _, err := root.Find([]string{w})
			if err != nil || sub == root {
				return errors.New("no command " + strconv.Quote(w))
			}
		}
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			if sub, _, err := cmd.Find([]string{w}); err == nil && sub != cmd && sub.Parent() == cmd {
				cmd = sub
			} else if cmd.Name() == "help" && !isPlaceholder(w) {
				// help TOPIC or help COMMAND: either must exist.
				if _, ok := docs.Lookup(w); !ok {
					if found, rest, err := root.Find(words[i:]); err != nil || found == root || len(rest) > 0 {
						return errors.New("no help topic or command " + strconv.Quote(w))
					}
				}
				break
			}
			continue
		}
		cmd.InitDefaultHelpFlag()
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		var found bool
		if strings.HasPrefix(w, "--") {
			found = cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil ||
				(cmd == root && name == "version")
		} else {
			found = cmd.Flags().ShorthandLookup(name[:1]) != nil || cmd.InheritedFlags().ShorthandLookup(name[:1]) != nil ||
				(cmd == root && name == "v")
		}
		if !found {
			return errors.New(cmd.CommandPath() + " has no flag " + w)
		}
	}
	return nil
}

func isPlaceholder(w string) bool {
	return w == "…" || w == "..." || regexp.MustCompile(`^[A-Z][A-Z_]*$`).MatchString(w)
}

func TestDocs_CommandLinesUseRealCommandsAndFlags(t *testing.T) {
	f, _, _ := helpFactory()
	root := NewCmdRoot(f)
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	root.InitDefaultVersionFlag()
	total := 0
	for _, d := range docFiles(t) {
		lines, wheres := commandLines(d)
		total += len(lines)
		for i, l := range lines {
			assert.NoError(t, checkCommandLine(root, l), "%s: miles-ci %s", wheres[i], l)
		}
	}
	assert.GreaterOrEqual(t, total, 30, "the docs name commands")

	// The check catches a renamed flag and a renamed command.
	assert.Error(t, checkCommandLine(root, "run --hw cuda --suites stage-a-cpu"))
	assert.Error(t, checkCommandLine(root, "report merge a.json --out x.json"))
	assert.Error(t, checkCommandLine(root, "suite --json"))
	assert.Error(t, checkCommandLine(root, "help lint-rule"))
	assert.NoError(t, checkCommandLine(root, "help lint-rules"))
	assert.NoError(t, checkCommandLine(root, "help report merge"))
	assert.NoError(t, checkCommandLine(root, "report merge a.json b.json -o suite.json"))
	assert.NoError(t, checkCommandLine(root, "--root ../miles lint --strict"))
}

// The README's workflow is the sample repository's, which the lint-rules
// topic's example finds clean: every line it shows is there, in order.
func TestREADME_WorkflowIsTheSampleWorkflow(t *testing.T) {
	readme := docFiles(t)[0]
	_, section, ok := strings.Cut(readme.text, "\n## In a workflow\n")
	require.True(t, ok)
	bs, _ := blocks(section)
	require.NotEmpty(t, bs)
	require.Equal(t, "yaml", bs[0].lang)
	b, err := os.ReadFile(filepath.Join(repoRoot, "testdata/sample/.github/workflows/pr-test.yml"))
	require.NoError(t, err)
	sample := strings.Split(string(b), "\n")
	j := 0
	for _, line := range bs[0].lines {
		if strings.HasPrefix(strings.TrimSpace(line), "# …") {
			continue
		}
		for j < len(sample) && sample[j] != line {
			j++
		}
		require.Less(t, j, len(sample), "README workflow line %q is not in the sample's pr-test.yml (in order)", line)
		j++
	}
}

// The lint-rules topic has one paragraph per rule of lint's registry, and
// no other: "- `NAME`:", or "- `NAME` (warning):" for a rule whose
// findings are warnings (its paragraph says when one is an error).
func TestLintRulesTopic_NamesEveryRule(t *testing.T) {
	tp, ok := docs.Lookup("lint-rules")
	require.True(t, ok)
	documented := map[string]bool{} // the rule's paragraph says (warning)
	for _, m := range regexp.MustCompile("(?m)^- `([a-z-]+)`( \\(warning\\))?").FindAllStringSubmatch(tp.Text, -1) {
		_, twice := documented[m[1]]
		assert.False(t, twice, "two paragraphs of rule %s", m[1])
		documented[m[1]] = m[2] != ""
		_, ok := lint.LookupRule(m[1])
		assert.True(t, ok, "the paragraph - `%s` names no rule of lint's registry", m[1])
	}
	require.NotEmpty(t, documented)
	for _, r := range lint.Rules() {
		warns, ok := documented[r.Name]
		if assert.True(t, ok, "rule %s (internal/lint/%s) has no paragraph in lint-rules.md", r.Name, r.File) {
			assert.Equal(t, r.Severity == lint.Warning, warns, "rule %s is a %s rule: its paragraph says (warning) exactly when it is", r.Name, r.Severity)
		}
	}
}
