// Package pyfmt is miles-ci's one home for Python compatibility: it writes
// values the way Python's repr, str and json.dumps write them, and reads
// them the way int(), str.isspace and json.loads do, for the messages, lines
// and files miles-ci must reproduce byte for byte.
package pyfmt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Repr returns Python's repr of a str: single quotes unless the text holds a
// single quote and no double quote; backslash escapes for \\, \t, \n, \r,
// the quote, and every non-printable character.
func Repr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		// A surrogate is not printable: it is written as \uXXXX below.
		r, size := decodePy(s, i)
		i += size
		switch {
		case r == rune(quote) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x7f:
			b.WriteRune(r)
		case isPrintable(r):
			b.WriteRune(r)
		case r <= 0xff:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// isPrintable follows str.isprintable: letters, marks, numbers, punctuation,
// symbols and the ASCII space.
func isPrintable(r rune) bool {
	return r == ' ' || unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S)
}

// ReprList returns Python's repr of a list of str: ['a', 'b'].
func ReprList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(Repr(s))
	}
	b.WriteByte(']')
	return b.String()
}

// Bool returns Python's str of a bool: True or False.
func Bool(v bool) string {
	if v {
		return "True"
	}
	return "False"
}

// Float returns Python's repr of a float: the shortest text that reads back
// to the same value, always with a decimal point or exponent (1.0, 0.5,
// 1e+16, inf, nan).
func Float(f float64) string {
	switch {
	case f != f:
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	abs := f
	if abs < 0 {
		abs = -abs
	}
	if abs != 0 && (abs < 1e-4 || abs >= 1e16) {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes 1e+16 and 1.5e-05; Python writes 1e+16 and 1.5e-05 too,
		// but Go pads nothing and Python needs at least two exponent digits.
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[:1]
		digits := strings.TrimLeft(exp[1:], "0")
		if len(digits) < 2 {
			digits = strings.Repeat("0", 2-len(digits)) + digits
		}
		return mant + "e" + sign + digits
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// StreamText returns s as Python writes a str to stderr, whose error
// handler is backslashreplace: valid text unchanged, and a surrogate (one
// held in WTF-8, or the surrogate escape of a byte that is not UTF-8, as
// an environment variable or file name holds it) as its \uXXXX escape.
func StreamText(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := decodePy(s, i)
		if r >= 0xd800 && r <= 0xdfff {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// decodePy decodes the character at s[i:] as Python holds it, and its size
// in bytes: a surrogate kept in WTF-8 (the reader's way of keeping a lone
// "\ud800") is that surrogate, and a byte that is not UTF-8 is its
// surrogate escape, U+DC00 + the byte.
func decodePy(s string, i int) (rune, int) {
	if r, ok := surrogateAt(s, i); ok {
		return r, 3
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return 0xdc00 | rune(s[i]), 1
	}
	return r, size
}
