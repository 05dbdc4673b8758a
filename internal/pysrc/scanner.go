package pysrc

import (
	"fmt"
	"unicode"
)

// tokKind is the kind of a token the scanner hands to the statement reader.
// Comments, blank lines and the line breaks inside brackets never become
// tokens; indentation is checked inside the scanner and surfaces only as
// scanner.indentDepth.
type tokKind uint8

const (
	tEOF     tokKind = iota
	tNewline         // the end of a logical line
	tName
	tNumber
	tString // one string literal, f-strings included (as a whole)
	tOp
)

// String-token flags.
const (
	fBytes uint8 = 1 << iota
	fRaw
	fFormat
	fNonASCII // tName: the identifier has non-ASCII characters (needs NFKC)
)

// token is one token; its text is src[start:end].
type token struct {
	kind  tokKind
	flags uint8
	bol   bool // first token of a logical line
	start int32
	end   int32
	line  int32
}

type bracket struct {
	ch   byte
	line int32
}

type indent struct{ col, alt int }

// Python's limits: deeper input is refused by CPython too, and bounding it
// keeps the recursive parts of this reader from exhausting the stack.
const (
	maxBrackets = 200
	maxIndents  = 100
	maxFStrings = 150
)

// scanner is a CPython-compatible tokenizer over UTF-8 text that was already
// checked to be valid and free of NUL bytes. Line breaks are "\n", "\r\n"
// or a lone "\r": the Python reference reads files in text mode, whose
// universal newlines turn all three into one "\n".
type scanner struct {
	src       []byte
	pos       int
	line      int32 // line of src[pos], 1-based
	lineStart int   // offset where that line starts

	stack   []bracket // open brackets, innermost last
	indents []indent  // indentation levels; indents[0] is column 0

	atBOL        bool // at the start of a line outside brackets
	pendingBOL   bool // the next token begins a logical line
	lineTokens   bool // the current logical line has a token
	lastColon    bool // the last token of the logical line was ':'
	pendingBlock bool // the previous logical line opened a block
	prevString   uint8
	lastNewline  int32 // line of the last logical line's end
	fdepth       int

	err *SyntaxError
	// bigInt is the error of the first decimal integer literal with more
	// digits than Python converts; see settle.
	bigInt *SyntaxError
}

func newScanner(src []byte) *scanner {
	s := &scanner{src: src, line: 1, atBOL: true}
	s.indents = append(make([]indent, 0, 8), indent{})
	s.stack = make([]bracket, 0, 16)
	return s
}

// indentDepth is the number of indentation levels open at the last token.
func (s *scanner) indentDepth() int { return len(s.indents) - 1 }

// fail records the first error and returns an EOF token, so every caller
// stops at once.
func (s *scanner) fail(kind ErrorKind, line int32, format string, args ...any) token {
	if s.err == nil {
		s.err = &SyntaxError{Line: int(line), Kind: kind, Msg: fmt.Sprintf(format, args...)}
	}
	return token{kind: tEOF, line: line}
}

// newline consumes the line break at s.pos ("\n", "\r\n" or "\r").
func (s *scanner) newline() {
	if s.src[s.pos] == '\r' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '\n' {
		s.pos++
	}
	s.pos++
	s.line++
	s.lineStart = s.pos
}

// next returns the next token; after an error it returns tEOF and s.err is
// set.
func (s *scanner) next() token {
	src := s.src
	for s.err == nil {
		if s.atBOL {
			s.atBOL = false
			if blank := s.indentation(); blank {
				continue
			}
			if s.err != nil {
				break
			}
		}
		for s.pos < len(src) && (src[s.pos] == ' ' || src[s.pos] == '\t' || src[s.pos] == '\f') {
			s.pos++
		}
		if s.pos >= len(src) {
			return s.eof()
		}
		switch c := src[s.pos]; c {
		case '#':
			s.skipComment()
		case '\n', '\r':
			s.newline()
			if len(s.stack) > 0 {
				continue
			}
			s.atBOL = true
			s.prevString = 0
			if !s.lineTokens {
				// Only a continuation line ended here: no statement.
				continue
			}
			s.lineTokens = false
			s.pendingBlock = s.lastColon
			s.lastNewline = s.line - 1
			return token{kind: tNewline, start: int32(s.pos), end: int32(s.pos), line: s.line - 1}
		case '\\':
			if t, ok := s.continuation(); !ok {
				return t
			}
		default:
			bol := s.pendingBOL
			s.pendingBOL = false
			t := s.scanOne()
			if s.err != nil {
				return t
			}
			t.bol = bol
			s.lineTokens = true
			s.lastColon = t.kind == tOp && t.end-t.start == 1 && src[t.start] == ':'
			return t
		}
	}
	return token{kind: tEOF, line: s.line}
}

// continuation consumes a backslash that joins the next line. CPython
// refuses a continuation that the end of the text follows, either at once
// or after its line break ("unexpected EOF while parsing", on the
// backslash's line, or the unclosed bracket's error inside brackets).
func (s *scanner) continuation() (token, bool) {
	line := s.line
	s.pos++
	if s.pos < len(s.src) {
		if c := s.src[s.pos]; c != '\n' && c != '\r' {
			return s.fail(ErrContinuation, s.line, "unexpected character after line continuation character"), false
		}
		s.newline()
		if s.pos < len(s.src) {
			return token{}, true
		}
	}
	if n := len(s.stack); n > 0 {
		b := s.stack[n-1]
		return s.fail(ErrUnclosed, b.line, "'%c' was never closed", b.ch), false
	}
	return s.fail(ErrContinuation, line, "unexpected EOF while parsing"), false
}

func (s *scanner) skipComment() {
	src := s.src
	i := s.pos
	for i < len(src) && src[i] != '\n' && src[i] != '\r' {
		i++
	}
	s.pos = i
}

func (s *scanner) eof() token {
	if n := len(s.stack); n > 0 {
		b := s.stack[n-1]
		return s.fail(ErrUnclosed, b.line, "'%c' was never closed", b.ch)
	}
	if s.lineTokens {
		// A last line without a line break still ends its statement.
		s.lineTokens = false
		s.pendingBlock = s.lastColon
		s.lastNewline = s.line
		return token{kind: tNewline, start: int32(s.pos), end: int32(s.pos), line: s.line}
	}
	if s.pendingBlock {
		// CPython blames the header's line when the file ends instead.
		s.pendingBlock = false
		return s.fail(ErrIndent, s.lastNewline, "expected an indented block")
	}
	return token{kind: tEOF, start: int32(s.pos), end: int32(s.pos), line: s.line}
}

// indentation measures the indentation of the line at s.pos the way CPython
// does (tabs to multiples of 8, and again with tabs as 1 to detect
// inconsistent mixes; a form feed resets both) and checks it against the
// open levels. It reports whether the line is blank or only a comment,
// in which case the line is consumed and does not count.
func (s *scanner) indentation() bool {
	src := s.src
	col, alt := 0, 0
	// contCol is the column of the first continuation that follows some
	// blanks: CPython takes it as the line's indentation (for both
	// measures), because indentation cannot be split over physical lines.
	// A continuation at column 0 does not count, and the columns go on
	// adding up after it.
	contCol := 0
	i := s.pos
loop:
	for ; i < len(src); i++ {
		switch src[i] {
		case ' ':
			col++
			alt++
		case '\t':
			col = (col/8 + 1) * 8
			alt++
		case '\f':
			col, alt = 0, 0
		case '\\':
			if contCol == 0 {
				contCol = col
			}
			s.pos = i
			if _, ok := s.continuation(); !ok {
				return false
			}
			i = s.pos - 1
		default:
			break loop
		}
	}
	s.pos = i
	if i >= len(src) {
		return false // eof handles the end
	}
	switch src[i] {
	case '#':
		s.skipComment()
		if s.pos < len(src) {
			s.newline()
			s.atBOL = true
		}
		return true
	case '\n', '\r':
		s.newline()
		s.atBOL = true
		return true
	}
	if contCol != 0 {
		col, alt = contCol, contCol
	}
	top := s.indents[len(s.indents)-1]
	switch {
	case col == top.col:
		if alt != top.alt {
			s.fail(ErrIndent, s.line, "inconsistent use of tabs and spaces in indentation")
			return false
		}
		if s.pendingBlock {
			s.fail(ErrIndent, s.line, "expected an indented block")
			return false
		}
	case col > top.col:
		if alt <= top.alt {
			s.fail(ErrIndent, s.line, "inconsistent use of tabs and spaces in indentation")
			return false
		}
		if !s.pendingBlock {
			s.fail(ErrIndent, s.line, "unexpected indent")
			return false
		}
		if len(s.indents) > maxIndents {
			s.fail(ErrIndent, s.line, "too many levels of indentation")
			return false
		}
		s.indents = append(s.indents, indent{col, alt})
	default:
		if s.pendingBlock {
			s.fail(ErrIndent, s.line, "expected an indented block")
			return false
		}
		for len(s.indents) > 1 && col < s.indents[len(s.indents)-1].col {
			s.indents = s.indents[:len(s.indents)-1]
		}
		top = s.indents[len(s.indents)-1]
		if col != top.col {
			s.fail(ErrIndent, s.line, "unindent does not match any outer indentation level")
			return false
		}
		if alt != top.alt {
			s.fail(ErrIndent, s.line, "inconsistent use of tabs and spaces in indentation")
			return false
		}
	}
	s.pendingBlock = false
	s.pendingBOL = true
	return false
}

// identChar marks the ASCII bytes that may continue an identifier; bytes
// from 0x80 up are accepted here and checked as runes afterwards, as
// CPython does.
var identChar = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = c >= 0x80 || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
	}
	return t
}()

// scanOne scans the token that starts at s.pos (not a blank, comment or
// line break).
func (s *scanner) scanOne() token {
	src := s.src
	start := s.pos
	c := src[start]
	if identChar[c] && !(c >= '0' && c <= '9') {
		return s.scanName()
	}
	if c >= '0' && c <= '9' || c == '.' && start+1 < len(src) && src[start+1] >= '0' && src[start+1] <= '9' {
		s.prevString = 0
		return s.scanNumber()
	}
	if c == '"' || c == '\'' {
		return s.scanString(start, start, 0)
	}
	s.prevString = 0
	return s.scanOp()
}

func (s *scanner) scanName() token {
	src := s.src
	start := s.pos
	i := start
	var nonASCII bool
	for i < len(src) && identChar[src[i]] {
		if src[i] >= 0x80 {
			nonASCII = true
		}
		i++
	}
	if i < len(src) && (src[i] == '"' || src[i] == '\'') && !nonASCII {
		if flags, ok := stringPrefix(src[start:i]); ok {
			return s.scanString(start, i, flags)
		}
		if !isKeyword(src[start:i]) {
			// A name glued to a string: an illegal prefix such as "ur", or
			// Python 2 code such as print"x". CPython's parser refuses both.
			return s.fail(ErrGrammar, s.line, "invalid syntax")
		}
	}
	if nonASCII {
		if r, ok := checkIdentifier(src[start:i]); !ok {
			return s.fail(ErrCharacter, s.line, "%s", invalidCharMsg(r))
		}
	}
	s.pos = i
	s.prevString = 0
	t := token{kind: tName, start: int32(start), end: int32(i), line: s.line}
	if nonASCII {
		t.flags = fNonASCII
	}
	return t
}

// invalidCharMsg is CPython's message for a character that cannot start or
// continue a token.
func invalidCharMsg(r rune) string {
	if unicode.IsPrint(r) {
		return fmt.Sprintf("invalid character '%c' (U+%04X)", r, r)
	}
	return fmt.Sprintf("invalid non-printable character U+%04X", r)
}

// stringPrefix reports whether p is a legal string prefix (any case: r, u,
// b, br, rb, f, fr, rf) and the flags it sets.
func stringPrefix(p []byte) (uint8, bool) {
	if len(p) > 2 {
		return 0, false
	}
	var flags uint8
	var sawU bool
	for _, c := range p {
		switch c | 0x20 {
		case 'r':
			if flags&fRaw != 0 || sawU {
				return 0, false
			}
			flags |= fRaw
		case 'b':
			if flags&(fBytes|fFormat) != 0 || sawU {
				return 0, false
			}
			flags |= fBytes
		case 'f':
			if flags&(fBytes|fFormat) != 0 || sawU {
				return 0, false
			}
			flags |= fFormat
		case 'u':
			if len(p) != 1 {
				return 0, false
			}
			sawU = true
		default:
			return 0, false
		}
	}
	return flags, true
}

func (s *scanner) scanOp() token {
	src := s.src
	start := s.pos
	c := src[start]
	n := 1
	at := func(k int) byte {
		if start+k < len(src) {
			return src[start+k]
		}
		return 0
	}
	switch c {
	case '(', '[', '{':
		if len(s.stack) >= maxBrackets {
			return s.fail(ErrBracket, s.line, "too many nested parentheses")
		}
		s.stack = append(s.stack, bracket{c, s.line})
	case ')', ']', '}':
		if len(s.stack) == 0 {
			return s.fail(ErrBracket, s.line, "unmatched '%c'", c)
		}
		open := s.stack[len(s.stack)-1]
		if open.ch != openerOf(c) {
			if open.line != s.line {
				return s.fail(ErrBracket, s.line, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", c, open.ch, open.line)
			}
			return s.fail(ErrBracket, s.line, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, open.ch)
		}
		s.stack = s.stack[:len(s.stack)-1]
	case ',', ';', '~':
	case '.':
		if at(1) == '.' && at(2) == '.' {
			n = 3
		}
	case '=', '%', '&', '^', '|', '+', '@':
		if at(1) == '=' {
			n = 2
		}
	case '-':
		if at(1) == '=' || at(1) == '>' {
			n = 2
		}
	case ':':
		if at(1) == '=' {
			n = 2
		}
	case '!':
		if at(1) != '=' {
			return s.fail(ErrGrammar, s.line, "invalid syntax")
		}
		n = 2
	case '*', '/', '<', '>':
		if at(1) == c {
			n = 2
			if at(2) == '=' {
				n = 3
			}
		} else if at(1) == '=' || c == '<' && at(1) == '>' {
			n = 2
		}
	default:
		if c < 0x80 && (c < ' ' || c == 0x7f) {
			return s.fail(ErrCharacter, s.line, "invalid non-printable character U+%04X", c)
		}
		return s.fail(ErrGrammar, s.line, "invalid syntax")
	}
	s.pos = start + n
	return token{kind: tOp, start: int32(start), end: int32(start + n), line: s.line}
}

func openerOf(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// peekAt returns src[i], or 0 past the end (NUL never occurs in the text).
func (s *scanner) peekAt(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// endOfNumber applies CPython's check on the character right after a
// number: a following keyword that may legally touch a number (1if x else
// 2) is allowed, any other identifier character makes the literal invalid.
func (s *scanner) endOfNumber(i int, kind string) bool {
	src := s.src
	if i >= len(src) {
		return true
	}
	rest := src[i:]
	has := func(p string) bool { return len(rest) >= len(p) && string(rest[:len(p)]) == p }
	switch rest[0] {
	case 'a':
		if has("and") {
			return true
		}
	case 'e':
		if has("else") {
			return true
		}
	case 'f':
		if has("for") {
			return true
		}
	case 'i':
		if has("if") || has("in") || has("is") {
			return true
		}
	case 'o':
		if has("or") {
			return true
		}
	case 'n':
		if has("not") {
			return true
		}
	}
	if identChar[rest[0]] {
		s.fail(ErrNumber, s.line, "invalid %s literal", kind)
		return false
	}
	return true
}

// decimalTail consumes digits with single underscores between them,
// starting at a digit; it returns the offset after them, or -1 on error.
func (s *scanner) decimalTail(i int) int {
	src := s.src
	for {
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		if i >= len(src) || src[i] != '_' {
			return i
		}
		i++
		if i >= len(src) || !isDigit(src[i]) {
			s.fail(ErrNumber, s.line, "invalid decimal literal")
			return -1
		}
	}
}

// scanNumber follows CPython's number grammar, including its error
// messages for the malformed forms.
func (s *scanner) scanNumber() token {
	src := s.src
	start := s.pos
	i := start
	if src[i] == '.' {
		return s.fraction(start, i+1)
	}
	if src[i] == '0' {
		switch s.peekAt(i+1) | 0x20 {
		case 'x':
			return s.radix(start, i+2, 16, "hexadecimal")
		case 'o':
			return s.radix(start, i+2, 8, "octal")
		case 'b':
			return s.radix(start, i+2, 2, "binary")
		}
		i++
		for {
			if s.peekAt(i) == '_' {
				i++
				if !isDigit(s.peekAt(i)) {
					return s.fail(ErrNumber, s.line, "invalid decimal literal")
				}
			}
			if s.peekAt(i) != '0' {
				break
			}
			i++
		}
		if !isDigit(s.peekAt(i)) {
			return s.decimalEnd(start, i, zerosOnly)
		}
		if i = s.decimalTail(i); i < 0 {
			return token{kind: tEOF}
		}
		return s.decimalEnd(start, i, leadingZeros)
	}
	if i = s.decimalTail(i); i < 0 {
		return token{kind: tEOF}
	}
	return s.decimalEnd(start, i, plainDecimal)
}

// The three shapes of a decimal literal's integer part, which decide what
// may follow it.
const (
	plainDecimal = iota // 1, 123: an int of any size, subject to the digit limit
	zerosOnly           // 0, 00, 0_0: an int with no digit limit
	leadingZeros        // 017: legal only as the start of a float or imaginary
)

// decimalEnd finishes a decimal literal whose integer part ends at i: a
// fraction, an exponent or an imaginary suffix may follow; otherwise it is
// an integer.
func (s *scanner) decimalEnd(start, i, shape int) token {
	switch c := s.peekAt(i); {
	case c == '.':
		return s.fraction(start, i+1)
	case c == 'e' || c == 'E':
		return s.exponent(start, i)
	case c == 'j' || c == 'J':
		return s.imaginary(start, i+1)
	case shape == leadingZeros:
		return s.fail(ErrNumber, s.line, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
	}
	if !s.endOfNumber(i, "decimal") {
		return token{kind: tEOF}
	}
	if shape == plainDecimal && i-start > maxIntDigits {
		s.noteBigInt(start, i)
	}
	s.pos = i
	return token{kind: tNumber, start: int32(start), end: int32(i), line: s.line}
}

// maxIntDigits is Python's default limit on the digits of a decimal integer
// it converts from text (sys.get_int_max_str_digits()); a longer decimal
// literal makes the parser refuse the file. Literals of zeros only, and
// hexadecimal, octal and binary ones, are not limited.
const maxIntDigits = 4300

// noteBigInt records the error of the decimal integer literal src[start:end]
// (a nonzero digit first) if its digits, underscores aside, exceed the
// limit and it is the first such literal.
func (s *scanner) noteBigInt(start, end int) {
	if s.bigInt != nil {
		return
	}
	digits := 0
	for _, c := range s.src[start:end] {
		if c != '_' {
			digits++
		}
	}
	if digits <= maxIntDigits {
		return
	}
	prefix := ""
	if s.fdepth > 0 {
		prefix = "f-string: "
	}
	s.bigInt = &SyntaxError{Line: int(s.line), Kind: ErrIntDigits, Msg: fmt.Sprintf("%sExceeds the limit (%d digits) for integer string conversion: "+
		"value has %d digits; use sys.set_int_max_str_digits() to increase the limit - "+
		"Consider hexadecimal for huge integer literals to avoid decimal conversion limits.", prefix, maxIntDigits, digits)}
}

// settle returns the error Python reports when the file holds an over-long
// integer literal (s.bigInt) and reading stopped at err, or at the end of
// the text (err nil). Python refuses such a literal while parsing, after
// tokenizing up to it; it then tokenizes the rest of the file, and an error
// that its tokenizer raises there (a bad character or number, a string
// left open, a bad closing bracket) replaces its own. The errors that
// CPython's parser raises instead (indentation that opens no block, a
// glued name, decoding a literal, an f-string's inside), and the
// tokenizer's few that it leaves to the parser (a bad dedent, tabs, a
// continuation, the end of the text), are not reported: the literal's
// error comes first. A grammar error of a register call, or a bracket left
// open, wins only from an earlier line.
func (s *scanner) settle(err *SyntaxError) *SyntaxError {
	b := s.bigInt
	if b == nil {
		return err
	}
	if err == nil {
		return b
	}
	if err != s.err || err.Kind == ErrUnclosed {
		if err.Line < b.Line {
			return err
		}
		return b
	}
	switch err.Kind {
	case ErrCharacter, ErrNumber, ErrUnterminated, ErrBracket:
		return err
	}
	return b
}

func (s *scanner) radix(start, i, base int, kind string) token {
	valid := func(c byte) bool {
		switch base {
		case 16:
			return isHex(c)
		case 8:
			return c >= '0' && c <= '7'
		}
		return c == '0' || c == '1'
	}
	for {
		if s.peekAt(i) == '_' {
			i++
		}
		c := s.peekAt(i)
		if !valid(c) {
			if base != 16 && isDigit(c) {
				return s.fail(ErrNumber, s.line, "invalid digit '%c' in %s literal", c, kind)
			}
			return s.fail(ErrNumber, s.line, "invalid %s literal", kind)
		}
		for valid(s.peekAt(i)) {
			i++
		}
		if s.peekAt(i) != '_' {
			break
		}
	}
	if c := s.peekAt(i); base != 16 && isDigit(c) {
		return s.fail(ErrNumber, s.line, "invalid digit '%c' in %s literal", c, kind)
	}
	if !s.endOfNumber(i, kind) {
		return token{kind: tEOF}
	}
	s.pos = i
	return token{kind: tNumber, start: int32(start), end: int32(i), line: s.line}
}

// fraction continues a number after its '.'.
func (s *scanner) fraction(start, i int) token {
	if isDigit(s.peekAt(i)) {
		if i = s.decimalTail(i); i < 0 {
			return token{kind: tEOF}
		}
	}
	switch c := s.peekAt(i); {
	case c == 'e' || c == 'E':
		return s.exponent(start, i)
	case c == 'j' || c == 'J':
		return s.imaginary(start, i+1)
	}
	if !s.endOfNumber(i, "decimal") {
		return token{kind: tEOF}
	}
	s.pos = i
	return token{kind: tNumber, start: int32(start), end: int32(i), line: s.line}
}

// exponent continues a number at its 'e'.
func (s *scanner) exponent(start, e int) token {
	i := e + 1
	c := s.peekAt(i)
	if c == '+' || c == '-' {
		i++
		if !isDigit(s.peekAt(i)) {
			return s.fail(ErrNumber, s.line, "invalid decimal literal")
		}
	} else if !isDigit(c) {
		// "1else": the number ends before the 'e'.
		if !s.endOfNumber(e, "decimal") {
			return token{kind: tEOF}
		}
		s.pos = e
		return token{kind: tNumber, start: int32(start), end: int32(e), line: s.line}
	}
	if i = s.decimalTail(i); i < 0 {
		return token{kind: tEOF}
	}
	if c := s.peekAt(i); c == 'j' || c == 'J' {
		return s.imaginary(start, i+1)
	}
	if !s.endOfNumber(i, "decimal") {
		return token{kind: tEOF}
	}
	s.pos = i
	return token{kind: tNumber, start: int32(start), end: int32(i), line: s.line}
}

func (s *scanner) imaginary(start, i int) token {
	if !s.endOfNumber(i, "imaginary") {
		return token{kind: tEOF}
	}
	s.pos = i
	return token{kind: tNumber, start: int32(start), end: int32(i), line: s.line}
}
