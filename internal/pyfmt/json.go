package pyfmt

import (
	"math"
	"strconv"
	"unicode/utf8"
)

// JSONFloat is a float that encodes as encoding/json writes it when it is
// finite, and as a valid JSON number that reads back as infinity when it is
// not. An est_time of 1e999 is legal Python and makes an infinite float; the
// reference then writes the non-JSON token Infinity. We write 1e999 instead:
// still valid JSON, and Python's json.loads reads it as the same inf.
type JSONFloat float64

// MarshalJSON implements json.Marshaler.
func (f JSONFloat) MarshalJSON() ([]byte, error) {
	return AppendJSONFloat(nil, float64(f)), nil
}

// AppendJSONFloat appends f as encoding/json would; an infinity as 1e999 or
// -1e999, and NaN (which no Python constant can produce) as null.
func AppendJSONFloat(b []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(b, "1e999"...)
	case math.IsInf(f, -1):
		return append(b, "-1e999"...)
	case math.IsNaN(f):
		return append(b, "null"...)
	}
	// The same choice of format encoding/json makes.
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// AppendJSONString appends s as a JSON string the way encoding/json writes
// it, without HTML escaping: UTF-8 as it is, U+2028 and U+2029 escaped. A
// surrogate code point held in WTF-8 (the reader's way of keeping Python's
// lone surrogates such as "\ud800") is written as its \u escape, as
// Python's json.dumps writes it; any other invalid byte becomes U+FFFD.
func AppendJSONString(b []byte, s string) []byte { return appendJSONString(b, s, false) }

// AppendJSONStringASCII appends s as Python's json.dumps writes a string by
// default (ensure_ascii): everything outside printable ASCII as \uXXXX, a
// code point beyond the BMP as its surrogate pair, a surrogate held in WTF-8
// as itself, and any other invalid byte as U+FFFD.
func AppendJSONStringASCII(b []byte, s string) []byte { return appendJSONString(b, s, true) }

func appendJSONString(b []byte, s string, ascii bool) []byte {
	const hex = "0123456789abcdef"
	u4 := func(b []byte, r rune) []byte {
		return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
	}
	b = append(b, '"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		surrogate := false
		if sr, ok := surrogateAt(s, i); ok {
			r, size, surrogate = sr, 3, true
		}
		i += size
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case ascii && r == '\b':
			b = append(b, '\\', 'b')
		case ascii && r == '\f':
			b = append(b, '\\', 'f')
		case r < 0x20:
			b = u4(b, r)
		case r < 0x7f || !ascii && r == 0x7f:
			b = append(b, byte(r))
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case ascii && r > 0xffff:
			r -= 0x10000
			b = u4(b, 0xd800|(r>>10)&0x3ff)
			b = u4(b, 0xdc00|r&0x3ff)
		case ascii || surrogate || r == '\u2028' || r == '\u2029':
			b = u4(b, r)
		default:
			b = append(b, s[i-size:i]...)
		}
	}
	return append(b, '"')
}

// surrogateAt decodes a surrogate code point (U+D800..U+DFFF) encoded as
// three WTF-8 bytes at s[i:].
func surrogateAt(s string, i int) (rune, bool) {
	if i+2 >= len(s) || s[i] != 0xED || s[i+1] < 0xA0 || s[i+1] > 0xBF || s[i+2]&0xC0 != 0x80 {
		return 0, false
	}
	return rune(s[i]&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F), true
}

// JSONStringListCompact writes items as json.dumps(items,
// separators=(",", ":")) does: ["a","b"], ASCII only.
func JSONStringListCompact(items []string) string {
	b := []byte{'['}
	for i, s := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONStringASCII(b, s)
	}
	return string(append(b, ']'))
}

// appendWTF8 appends r in UTF-8, except that a surrogate code point, which
// UTF-8 cannot hold, is written as its three WTF-8 bytes so that it survives
// as Python keeps it.
func appendWTF8(b []byte, r rune) []byte {
	if 0xd800 <= r && r <= 0xdfff {
		return append(b, byte(0xe0|r>>12), byte(0x80|(r>>6)&0x3f), byte(0x80|r&0x3f))
	}
	return utf8.AppendRune(b, r)
}
