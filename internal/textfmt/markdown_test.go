package textfmt

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Names and reasons as miles-ci and Miles write them pass through as they
// are: the Python runner's retry list must stay byte for byte.
func TestMarkdown_OrdinaryTextIsUnchanged(t *testing.T) {
	for _, s := range []string{
		"tests/e2e/short/test_dumper.py",
		"tests/fast/test_a__b_2.py",
		"tests/e2e/megatron/test_megatron-pp4.v2.py",
		"stage-c-8-gpu-h100",
		"h100,8gpu",
		"self-hosted,amd,mi350,4gpu",
		"exit code 1",
		"timeout after 60s",
		"not run: an earlier file failed",
		"attempt 1: exit code 137; attempt 2: timeout after 2250s",
		"CUDA stage-b-2-gpu-h200",
		"tests/e2e/www/test_mirror.py",
		"",
	} {
		assert.Equal(t, s, Markdown(s))
	}
}

func TestMarkdown_EscapesWhatCouldStartMarkdownOrHTML(t *testing.T) {
	tests := []struct{ in, want string }{
		{"**ALL_PASSED**<b>x</b>[ok](https:evil.example)", `\*\*ALL_PASSED\*\*&lt;b>x&lt;/b>\[ok\](https:evil.example)`},
		{"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>"},
		{"<details open>", "&lt;details open>"},
		{"<!-- hide -->", "&lt;!-- hide -->"},
		{"[x](https://evil)", `\[x\](https\://evil)`},
		{"![i](http://evil/i.png)", `!\[i\](http\://evil/i.png)`},
		{"see www.evil.example or WWW.evil.example", `see www\.evil.example or WWW\.evil.example`},
		{"(www.evil.example)", `(www\.evil.example)`},
		{"ftp://evil", `ftp\://evil`},
		{"a|b", `a\|b`},
		{"`code` ``x``", "\\`code\\` \\`\\`x\\`\\`"},
		{"~~gone~~", `\~\~gone\~\~`},
		{"$x^2$", `\$x^2\$`},
		{`a\b \[`, `a\\b \\\[`},
		{"&lt;b&gt; &#60;", "&amp;lt;b&amp;gt; &amp;#60;"},
		{"_em_ __strong__ a_b x__y", `\_em\_ \_\_strong\_\_ a_b x__y`},
		{"end_ _start", `end\_ \_start`},
		{"line1\n# heading\r\n<script>\rx", "line1<br># heading<br>&lt;script><br>x"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Markdown(tt.in), "%q", tt.in)
	}
}

func TestMarkdownCode_FenceOutrunsEveryBacktickRun(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tests/e2e/short/test_dumper.py", "`tests/e2e/short/test_dumper.py`"},
		{"<img src=x>[x](https://evil)", "`<img src=x>[x](https://evil)`"},
		{"a`b", "``a`b``"},
		{"a``b`c", "```a``b`c```"},
		{"`lead", "`` `lead ``"},
		{"trail`", "`` trail` ``"},
		{" both ", "`  both  `"},
		{" ", "` `"},
		{"a|b", "`a\\|b`"},
		{"a\nb\r", "`a\\nb\\r`"},
		{"", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, MarkdownCode(tt.in), "%q", tt.in)
	}
}

// A control or format character (ESC, BEL, DEL, C1, a bidirectional
// override) is written as Term writes it, in text and in a code span: a
// step summary printed to a terminal (report summary) moves no cursor and
// sets no title, and a rendered one shows no reordered name. A tab stays.
func TestMarkdown_ControlCharactersAreWrittenAsText(t *testing.T) {
	in := "a\x1b[2J\x1b]0;t\x07\x7f\u009b\u202eb\tc"
	assert.Equal(t, `a\x1b\[2J\x1b\]0;t\x07\x7f\x9b\u202eb`+"\tc", Markdown(in))
	assert.Equal(t, "`"+`a\x1b[2J\x1b]0;t\x07\x7f\x9b\u202eb`+"\tc`", MarkdownCode(in))
	assert.Equal(t, "`a\\nb\\r`", MarkdownCode("a\nb\r"))
}
