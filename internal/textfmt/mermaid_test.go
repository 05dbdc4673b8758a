package textfmt

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestMermaidName_OrdinaryPathsAreQuotedAsTheyAre(t *testing.T) {
	for _, s := range []string{
		"tests/e2e/short/test_dumper.py",
		"tests/e2e/megatron/test_megatron-pp4.v2.py",
		"tests/fast/test_a__b_2.py",
		"tests/e2e/données/test_ü.py",
		"",
	} {
		assert.Equal(t, `"`+s+`"`, MermaidName(s))
	}
}

// hostileNames are names that would end a gantt task's name or data,
// start a comment, a directive, a statement of Mermaid's or HTML, or end
// the Markdown code block around the chart.
var hostileNames = []string{
	"a:b.py",
	"crit: 0, 1\n    \"x\" : 0, 99999",
	"#comment.py",
	"a#b;c.py",
	"%%{init: {'theme': 'dark'}}%%",
	"x%%comment",
	"a%b",
	"section evil",
	"SECTION evil",
	"title evil",
	"click task1 href \"https://evil.example\"",
	"call alert(1)",
	"gantt.py",
	"topAxis.py",
	"inclusiveEndDates",
	"dateFormat YYYY",
	"todayMarker off",
	"accTitle: x",
	"2024-01-01.py",
	"line\nbreak.py",
	"cr\rlf\r\n.py",
	"```\n# heading\n```",
	"back`tick.py",
	"<img src=x onerror=alert(1)>",
	"&amp;.py",
	`quote".py`,
	"tab\there.py",
	"rlo\u202egnp.py",
	"zero\u200bwidth.py",
	"ls\u2028ps\u2029.py",
	"nul\x00.py",
	"bad\xffutf8.py",
	"{braces}.py",
	`back\slash.py`,
}

// ganttTaskLine is a task line of a gantt chart as Mermaid's lexer reads
// one whose name is quoted: spaces, then a name of no ':', '#', ';' or
// line break that begins with a quote (no lexer rule but the name's
// begins with one), then ':' and data of no '#' or ';'. A '%' anywhere
// could start a comment.
var ganttTaskLine = regexp.MustCompile(`^ *"[^:#;\n%"]*"[^:#;\n%]*:[^#;\n%]*$`)

func TestMermaidName_HostileNamesStayInert(t *testing.T) {
	for _, s := range hostileNames {
		got := MermaidName(s)
		line := "    " + got + " attempt 2 : crit, 1.5, 2.25"
		assert.Regexp(t, ganttTaskLine, line, "%q", s)
		inner := got[1 : len(got)-1]
		assert.False(t, strings.ContainsAny(inner, "\":#;%\r\n`<>&{}\\\t\x00"), "%q gives %q", s, got)
		assert.True(t, utf8.ValidString(got), "%q", s)
		for _, r := range inner {
			assert.True(t, mermaidPlain(r) || r == '?', "%q keeps %U", s, r)
		}
	}
	assert.Equal(t, `"a?b.py"`, MermaidName("a:b.py"))
	assert.Equal(t, `"line?break.py"`, MermaidName("line\nbreak.py"))
	assert.Equal(t, `"rlo?gnp.py"`, MermaidName("rlo\u202egnp.py"))
	assert.Equal(t, `"section evil"`, MermaidName("section evil"), "quoted, a name is no statement")
}

func TestMermaidName_CutsALongNameKeepingItsEnd(t *testing.T) {
	long := strings.Repeat("d/", 100) + "test_last.py"
	got := MermaidName(long)
	assert.Equal(t, MermaidNameMax, utf8.RuneCountInString(got))
	assert.True(t, strings.HasPrefix(got, `"...`), got)
	assert.True(t, strings.HasSuffix(got, `/test_last.py"`), got)
	exact := strings.Repeat("é", MermaidNameMax-2)
	assert.Equal(t, `"`+exact+`"`, MermaidName(exact), "a name that fits is not cut")
	assert.Equal(t, MermaidNameMax, utf8.RuneCountInString(MermaidName(exact+"x")))
}
