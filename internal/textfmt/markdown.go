package textfmt

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Markdown returns s as GitHub-flavoured Markdown text that shows s and
// nothing else, for text from outside miles-ci that reaches a step summary
// (a file name, a report's suite or reason, a configured runner label).
// Only what could start Markdown or HTML of its own is escaped, so every
// ordinary name is returned as it is:
//
//   - \ ` * [ ] | ~ $ get a backslash: no code span, emphasis, link,
//     image, table cell break, strikethrough or math can begin (`\|` is
//     also how a table cell holds a '|');
//   - _ gets one unless both its neighbours are letters or digits
//     (test_dumper.py stays as is: such a '_' never opens emphasis);
//   - < and & are written &lt; and &amp;: no HTML tag, comment or
//     entity can begin;
//   - the ':' of "://" and the '.' of a "www." that begins a word get a
//     backslash, which keeps GitHub from turning a URL into a link;
//   - CR, LF and CRLF become <br>, so s never leaves its table cell or
//     list item;
//   - every other control or format character but a tab is written as
//     Term writes it (\x1b, \u202e): a summary printed to a terminal
//     (report summary) moves no cursor, and a rendered one reorders no
//     text.
//
// An e-mail address still shows as a mailto link: GitHub finds those in
// the text after escapes are read, and no escape hides one.
func Markdown(s string) string {
	if !strings.ContainsFunc(s, markdownSpecial) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\\', '`', '*', '[', ']', '|', '~', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '_':
			if !alnumBefore(s, i) || !alnumAfter(s, i) {
				b.WriteByte('\\')
			}
			b.WriteByte('_')
		case '<':
			b.WriteString("&lt;")
		case '&':
			b.WriteString("&amp;")
		case ':':
			if strings.HasPrefix(s[i+1:], "//") {
				b.WriteByte('\\')
			}
			b.WriteByte(':')
		case '.':
			if wwwBefore(s, i) {
				b.WriteByte('\\')
			}
			b.WriteByte('.')
		case '\r':
			if strings.HasPrefix(s[i+1:], "\n") {
				n++
			}
			b.WriteString("<br>")
		case '\n':
			b.WriteString("<br>")
		default:
			if markdownControl(r) {
				b.WriteString(Term(s[i : i+n]))
			} else {
				b.WriteString(s[i : i+n])
			}
		}
		i += n
	}
	return b.String()
}

// markdownSpecial reports the runes Markdown may have to escape.
func markdownSpecial(r rune) bool {
	return strings.ContainsRune("\\`*[]|~$_<&:.\r\n", r) || markdownControl(r)
}

// markdownControl reports a control or format character that Markdown
// and a code span write as Term does: all but a tab, which shows as a
// blank, and CR and LF, which each writes in its own way.
func markdownControl(r rune) bool {
	return r != '\t' && r != '\r' && r != '\n' && unprintable(r)
}

// controlsAsText writes each markdownControl character of s as Term does.
func controlsAsText(s string) string {
	if !strings.ContainsFunc(s, markdownControl) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if markdownControl(r) {
			b.WriteString(Term(s[i : i+n]))
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// alnumBefore and alnumAfter report whether the run of '_' holding s[i]
// has a letter or digit right before it, or right after it.
func alnumBefore(s string, i int) bool {
	for i > 0 && s[i-1] == '_' {
		i--
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func alnumAfter(s string, i int) bool {
	for i < len(s) && s[i] == '_' {
		i++
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return i < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// wwwBefore reports whether s[i], a '.', ends a "www" (any case) that
// begins s or follows a blank or one of *_~( , where GitHub would start a
// link.
func wwwBefore(s string, i int) bool {
	if i < 3 || !strings.EqualFold(s[i-3:i], "www") {
		return false
	}
	if i == 3 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i-3])
	return unicode.IsSpace(r) || strings.ContainsRune("*_~(", r)
}

// MarkdownCode returns s as a Markdown code span, for a name shown as code
// in a step summary: everything in a code span shows as it is, so no link,
// HTML or emphasis can begin. The fence is one backtick longer than the
// longest run of backticks in s, and a space pads s when it begins or ends
// with a backtick (Markdown drops that space again). Line breaks are
// written `\r` and `\n`, as OneLine writes them (a code span cannot hold
// <br>), other control and format characters but a tab as Term writes
// them, and each '|' as `\|`, which GitHub reads as a '|' that stays in
// its table cell (outside a table, the backslash shows).
func MarkdownCode(s string) string {
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(controlsAsText(OneLine(s)), "|", `\|`)
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		len(s) > 1 && s[0] == ' ' && s[len(s)-1] == ' ' && strings.Trim(s, " ") != "" {
		pad = " "
	}
	return fence + pad + s + pad + fence
}
