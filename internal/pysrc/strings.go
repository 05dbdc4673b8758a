package pysrc

import (
	"encoding/binary"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// String and f-string tokenization. Escapes are only validated here (an
// invalid one makes the whole file a syntax error, wherever it is); they are
// decoded later, and only for the literals of register calls.

const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// zeroBytes flags the zero bytes of x: the lowest flag is exact, and any
// false flag lies above a true one (a borrow only starts at a zero byte).
func zeroBytes(x uint64) uint64 { return (x - swarLo) &^ x & swarHi }

// stringStop returns the offset of the first byte at or after i that the
// string scanner must look at, or len(src): the quote, a backslash, a
// control character (line breaks among them), '{' or '}' when braces is
// set, any non-ASCII byte when nonASCII is set. It reads eight bytes at a
// time, string bodies being a large part of a file; a control character
// other than a line break is a stop the caller steps over. Measured:
// reading a byte at a time costs 2% of run --list-only CPU on Miles
// (2026-12-02); kept, as registry's mentionsRegister explains.
func stringStop(src []byte, i int, quote byte, braces, nonASCII bool) int {
	q := swarLo * uint64(quote)
	for ; i+8 <= len(src); i += 8 {
		v := binary.LittleEndian.Uint64(src[i:])
		m := zeroBytes(v^q) | zeroBytes(v^(swarLo*'\\')) | (v-swarLo*0x20)&^v&swarHi
		if braces {
			m |= zeroBytes(v^(swarLo*'{')) | zeroBytes(v^(swarLo*'}'))
		}
		if nonASCII {
			m |= v & swarHi
		}
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(src); i++ {
		c := src[i]
		if c == quote || c == '\\' || c < 0x20 || braces && (c == '{' || c == '}') || nonASCII && c >= 0x80 {
			return i
		}
	}
	return i
}

func (s *scanner) isTriple(q int) bool {
	src := s.src
	return q+2 < len(src) && src[q+1] == src[q] && src[q+2] == src[q]
}

// unterminated reports a string literal that begins on line and does not
// end before s.pos: a line break of a single-quoted one, or the end of the
// text.
func (s *scanner) unterminated(line int32, triple, format bool) token {
	kind := "string"
	if format {
		kind = "f-string"
	}
	// CPython detects the end of the text on the line of its last
	// character, a final line break belonging to the line it ends: it
	// counts the lines it has read, and no line follows that break.
	detected := s.line
	if s.pos >= len(s.src) && s.lineStart == len(s.src) && detected > 1 {
		detected--
	}
	if triple {
		return s.fail(ErrUnterminated, line, "unterminated triple-quoted %s literal (detected at line %d)", kind, detected)
	}
	return s.fail(ErrUnterminated, line, "unterminated %s literal (detected at line %d)", kind, detected)
}

// scanString scans a string literal whose prefix starts at start and whose
// opening quote is at q.
func (s *scanner) scanString(start, q int, flags uint8) token {
	if flags&fFormat != 0 {
		return s.scanFString(start, q, flags)
	}
	src := s.src
	quote := src[q]
	triple := s.isTriple(q)
	line := s.line
	i := q + 1
	if triple {
		i = q + 3
	}
	body := piece{start: i, quote: quote, triple: triple}
	for {
		i = stringStop(src, i, quote, false, flags&fBytes != 0)
		if i >= len(src) {
			s.pos = i
			return s.unterminated(line, triple, false)
		}
		switch c := src[i]; c {
		case quote:
			if !triple {
				i++
				return s.stringToken(start, i, flags, line)
			}
			if s.isTriple(i) {
				i += 3
				return s.stringToken(start, i, flags, line)
			}
			i++
		case '\\':
			i++
			if i >= len(src) {
				continue
			}
			if n := src[i]; n == '\n' || n == '\r' {
				s.pos = i
				s.newline()
				i = s.pos
				continue
			}
			if flags&fRaw == 0 && !s.checkEscape(i, flags, body) {
				return token{kind: tEOF}
			}
			if src[i] < 0x80 {
				i++
			}
		case '\n', '\r':
			if !triple {
				s.pos = i
				return s.unterminated(line, false, false)
			}
			s.pos = i
			s.newline()
			i = s.pos
		default: // a control character, or non-ASCII in bytes
			if c >= 0x80 {
				return s.fail(ErrLiteral, s.line, "bytes can only contain ASCII literal characters")
			}
			i++
		}
	}
}

// stringToken ends a string token and applies the rule that adjacent
// literals may not mix bytes with str.
func (s *scanner) stringToken(start, end int, flags uint8, line int32) token {
	s.pos = end
	kind := literalKind(flags)
	if s.prevString != 0 && s.prevString != kind {
		return s.fail(ErrLiteral, s.line, "cannot mix bytes and nonbytes literals")
	}
	s.prevString = kind
	return token{kind: tString, flags: flags, start: int32(start), end: int32(end), line: line}
}

// literalKind is the kind of a string literal for the rule that adjacent
// literals may not mix bytes with str: 1 for str (f-strings included), 2
// for bytes.
func literalKind(flags uint8) uint8 {
	if flags&fBytes != 0 {
		return 2
	}
	return 1
}

// piece is the part of a string literal that CPython decodes as one unit:
// a whole literal's text, or one stretch of an f-string's text between
// replacement fields. Its codec errors give positions within it.
type piece struct {
	start  int  // offset of the piece's first byte in src
	quote  byte // the literal's quote character
	triple bool // the literal is triple-quoted
}

// checkEscape validates the escape whose letter is at i (just after a
// backslash) in a non-raw literal. Only \x, \u, \U and \N can be invalid;
// unknown escapes are merely warned about by CPython.
func (s *scanner) checkEscape(i int, flags uint8, p piece) bool {
	src := s.src
	// hexRun reads up to n hex digits after the escape's letter and
	// returns their value and how many there were.
	hexRun := func(n int) (rune, int) {
		var v rune
		k := 0
		for k < n && i+1+k < len(src) && isHex(src[i+1+k]) {
			v = v<<4 | rune(hexVal(src[i+1+k]))
			k++
		}
		return v, k
	}
	switch src[i] {
	case 'x':
		if _, k := hexRun(2); k < 2 {
			if flags&fBytes != 0 {
				s.fail(ErrLiteral, s.line, "(value error) invalid \\x escape at position %d", decodedLen(src, p.start, i-1))
			} else {
				s.codecError(p, i, i+1+k, "truncated \\xXX escape")
			}
			return false
		}
	case 'u', 'U':
		if flags&fBytes != 0 {
			return true
		}
		n := 4
		if src[i] == 'U' {
			n = 8
		}
		v, k := hexRun(n)
		if k < n {
			s.codecError(p, i, i+1+k, "truncated \\"+string(src[i])+strings.Repeat("X", n)+" escape")
			return false
		}
		if v > 0x10FFFF || v < 0 {
			s.codecError(p, i, i+1+k, "illegal Unicode character")
			return false
		}
	case 'N':
		if flags&fBytes != 0 {
			return true
		}
		if _, _, ok := namedEscape(src, i); !ok {
			s.namedEscapeError(p, i)
			return false
		}
	}
	return true
}

// codecError records the error of CPython's unicode-escape codec for the
// escape whose letter is at i in piece p, which the codec read up to (not
// including) end.
func (s *scanner) codecError(p piece, i, end int, reason string) {
	from := decodedLen(s.src, p.start, i-1)
	to := from + decodedLen(s.src, i-1, end)
	s.fail(ErrLiteral, s.line, "(unicode error) 'unicodeescape' codec can't decode bytes in position %d-%d: %s", from, to-1, reason)
}

// namedEscapeError records the error of the invalid \N escape whose N is at
// i. Like CPython's codec it looks for the first '}' after "\N{" in the
// rest of the literal: a name that is missing, empty or never closed is
// malformed, any other is unknown.
func (s *scanner) namedEscapeError(p piece, i int) {
	src := s.src
	if i+1 >= len(src) || src[i+1] != '{' {
		s.codecError(p, i, i+1, "malformed \\N character escape")
		return
	}
	quote := p.quote
	j := i + 2
	for ; j < len(src) && src[j] != '}'; j++ {
		c := src[j]
		if c == quote && (!p.triple || s.isTriple(j)) || !p.triple && (c == '\n' || c == '\r') {
			// The literal ends (or, at a line break, is unterminated, which
			// CPython reports instead) before any '}'.
			s.codecError(p, i, j, "malformed \\N character escape")
			return
		}
		if c == '\\' && j+1 < len(src) && src[j+1] != '}' {
			j++ // an escaped quote does not end the literal
		}
	}
	switch {
	case j >= len(src):
		s.codecError(p, i, j, "malformed \\N character escape")
	case j == i+2:
		s.codecError(p, i, j, "malformed \\N character escape")
	default:
		s.codecError(p, i, j+1, "unknown Unicode character name")
	}
}

// decodedLen returns the length of src[from:to], a stretch of a literal's
// text, in the buffer CPython hands to its codec. Reading the file as text
// made each line break one "\n"; CPython then rewrites every non-ASCII
// character as the ten bytes of a \UXXXXXXXX escape, and a backslash before
// one as the six bytes of \u005c (decode_unicode_with_escapes in
// Parser/string_parser.c).
func decodedLen(src []byte, from, to int) int {
	n := 0
	for k := from; k < to; {
		c := src[k]
		switch {
		case c == '\r' && k+1 < len(src) && src[k+1] == '\n':
			k++ // with the "\n" that follows, one line break
		case c == '\\':
			// CPython copies a backslash with the character after it.
			n++
			k++
			if k < len(src) && src[k] >= 0x80 {
				n += 5
			} else if k < to {
				if src[k] == '\r' && k+1 < len(src) && src[k+1] == '\n' {
					k++
				}
				n++
				k++
			}
		case c >= 0x80:
			_, size := utf8.DecodeRune(src[k:])
			n += 10
			k += size
		default:
			n++
			k++
		}
	}
	return n
}

// namedEscape reads the {NAME} after the N of a \N escape at i and returns
// its character and the offset after the closing brace.
func namedEscape(src []byte, i int) (rune, int, bool) {
	if i+1 >= len(src) || src[i+1] != '{' {
		return 0, 0, false
	}
	j := i + 2
	for j < len(src) && src[j] != '}' && j-i < 200 {
		c := src[j]
		if c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '\\' {
			return 0, 0, false
		}
		j++
	}
	if j >= len(src) || src[j] != '}' {
		return 0, 0, false
	}
	r, ok := lookupName(src[i+2 : j])
	return r, j + 1, ok
}

func hexVal(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// scanFString scans a whole f-string as one token. It follows the PEP 701
// tokenizer of CPython 3.12 and later (the version Miles's CI runs): a
// replacement field is ordinary code, so it may hold strings with the same
// quote, comments and line breaks. Python 3.11 refused those; no recorded
// conformance case depends on the difference, and accepting them keeps a
// valid 3.12 file from being reported broken.
func (s *scanner) scanFString(start, q int, flags uint8) token {
	if s.fdepth >= maxFStrings {
		return s.fail(ErrFString, s.line, "too many nested f-strings")
	}
	s.fdepth++
	defer func() { s.fdepth-- }()
	quote := s.src[q]
	triple := s.isTriple(q)
	line := s.line
	s.pos = q + 1
	if triple {
		s.pos = q + 3
	}
	// The fields' own literals must not count as neighbours of this one.
	prev := s.prevString
	if !s.fstringBody(quote, triple, flags, line, false) {
		return token{kind: tEOF}
	}
	s.prevString = prev
	return s.stringToken(start, s.pos, flags&^fBytes, line)
}

// fstringBody scans literal text and replacement fields up to the closing
// quote, or, in a format spec, up to (not past) the '}' that ends it.
func (s *scanner) fstringBody(quote byte, triple bool, flags uint8, line int32, inSpec bool) bool {
	src := s.src
	// The text between replacement fields is decoded piece by piece; a
	// doubled brace ends a piece too.
	text := piece{start: s.pos, quote: quote, triple: triple}
	for {
		i := stringStop(src, s.pos, quote, true, flags&fBytes != 0)
		s.pos = i
		if i >= len(src) {
			s.unterminated(line, triple, true)
			return false
		}
		switch c := src[i]; c {
		case quote:
			if !triple || s.isTriple(i) {
				if inSpec {
					s.fail(ErrFString, s.line, "f-string: expecting '}'")
					return false
				}
				s.pos = i + 1
				if triple {
					s.pos = i + 3
				}
				return true
			}
			s.pos = i + 1
		case '\\':
			j := i + 1
			if j >= len(src) {
				s.pos = j
				continue
			}
			switch n := src[j]; {
			case n == '\n' || n == '\r':
				s.pos = j
				s.newline()
			case n == '{' || n == '}':
				s.pos = j // a brace after a backslash still opens or closes
			case flags&fRaw == 0 && n == 'N':
				_, end, ok := namedEscape(src, j)
				if !ok {
					s.namedEscapeError(text, j)
					return false
				}
				s.pos = end
			default:
				if flags&fRaw == 0 && !s.checkEscape(j, flags, text) {
					return false
				}
				s.pos = j
				if n < 0x80 {
					s.pos = j + 1
				}
			}
		case '\n', '\r':
			if !triple {
				if inSpec {
					s.fail(ErrFString, s.line, "f-string: newlines are not allowed in format specifiers for single quoted f-strings")
				} else {
					s.unterminated(line, false, true)
				}
				return false
			}
			s.newline()
		case '{':
			if !inSpec && i+1 < len(src) && src[i+1] == '{' {
				s.pos = i + 2
				text.start = s.pos
				continue
			}
			s.pos = i + 1
			if !s.field(quote, triple, flags, line) {
				return false
			}
			text.start = s.pos
		case '}':
			if inSpec {
				return true
			}
			if i+1 < len(src) && src[i+1] == '}' {
				s.pos = i + 2
				text.start = s.pos
				continue
			}
			s.fail(ErrFString, s.line, "f-string: single '}' is not allowed")
			return false
		default:
			s.pos = i + 1 // a control character other than a line break
		}
	}
}

// field scans a replacement field after its '{', up to and including the
// '}' that closes it.
func (s *scanner) field(quote byte, triple bool, flags uint8, line int32) bool {
	src := s.src
	if len(s.stack) >= maxBrackets {
		s.fail(ErrBracket, s.line, "too many nested parentheses")
		return false
	}
	base := len(s.stack)
	s.stack = append(s.stack, bracket{'{', s.line})
	s.prevString = 0
	empty := true
	for s.err == nil {
		for s.pos < len(src) && (src[s.pos] == ' ' || src[s.pos] == '\t' || src[s.pos] == '\f') {
			s.pos++
		}
		if s.pos >= len(src) {
			s.unterminated(line, triple, true)
			return false
		}
		c := src[s.pos]
		switch c {
		case '\n', '\r':
			s.newline()
			continue
		case '#':
			s.skipComment()
			continue
		case '\\':
			s.continuation()
			continue
		}
		if len(s.stack) == base+1 {
			next := s.peekAt(s.pos + 1)
			switch {
			case c == '}' || c == ':' || (c == '!' || c == '=') && next != '=':
				if empty {
					s.fail(ErrFString, s.line, "f-string: valid expression required before '%c'", c)
					return false
				}
				s.pos++
				switch c {
				case '!', '=':
					continue
				case ':':
					if !s.fstringBody(quote, triple, flags, line, true) {
						return false
					}
					s.pos++ // the '}' that ended the spec
				}
				s.stack = s.stack[:base]
				return true
			}
		}
		s.scanOne()
		empty = false
	}
	return false
}
