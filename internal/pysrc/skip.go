package pysrc

// charClass sorts the bytes the statement skipper dispatches on.
type charClass uint8

const (
	cOther charClass = iota // operators without a special role here
	cSpace
	cName
	cDigit
	cQuote
	cDot
	cHash
	cNewline
	cBackslash
	cOpen
	cClose
	cColon
	cSemicolon
	cBad // never valid outside strings and comments
)

var charClasses = func() (t [256]charClass) {
	for c := 0; c < 256; c++ {
		switch {
		case identChar[c] && !isDigit(byte(c)):
			t[c] = cName
		case isDigit(byte(c)):
			t[c] = cDigit
		case c < ' ' || c == 0x7f || c == '$' || c == '?' || c == '`' || c == '!':
			t[c] = cBad
		}
	}
	t[' '], t['\t'], t['\f'] = cSpace, cSpace, cSpace
	t['"'], t['\''] = cQuote, cQuote
	t['.'] = cDot
	t['#'] = cHash
	t['\n'], t['\r'] = cNewline, cNewline
	t['\\'] = cBackslash
	t['('], t['['], t['{'] = cOpen, cOpen, cOpen
	t[')'], t[']'], t['}'] = cClose, cClose, cClose
	t[':'] = cColon
	t[';'] = cSemicolon
	return t
}()

// skipStatement consumes the rest of a simple statement the reader has no
// use for, checking it exactly as next would but without making tokens:
// most of a file is such statements, so this is the hot path. It stops
// after the ';' that ends the statement at bracket depth 0 (returning a
// tOp token for it), or at the end of the logical line (tNewline), or at
// the end of the text or an error (tEOF).
func (s *scanner) skipStatement() token {
	src := s.src
	for s.err == nil {
		i := s.pos
		if i >= len(src) {
			return s.next()
		}
		switch charClasses[src[i]] {
		case cSpace:
			s.pos = i + 1
		case cName:
			j := i + 1
			for j < len(src) && identChar[src[j]] {
				j++
			}
			if j < len(src) && (src[j] == '"' || src[j] == '\'') || hasNonASCII(src[i:j]) {
				s.scanOne() // prefixes, glued names and non-ASCII checks
			} else {
				s.pos = j
				s.prevString = 0
			}
			s.lastColon = false
			s.lineTokens = true
		case cColon:
			s.pos = i + 1
			s.lastColon = i+1 >= len(src) || src[i+1] != '='
			s.prevString = 0
			s.lineTokens = true
		case cSemicolon:
			if len(s.stack) == 0 {
				return s.next()
			}
			s.pos = i + 1
			s.lastColon = false
			s.prevString = 0
		case cOther:
			s.pos = i + 1
			s.lastColon = false
			s.prevString = 0
			s.lineTokens = true
		case cHash, cNewline, cBackslash:
			if len(s.stack) == 0 && charClasses[src[i]] == cNewline {
				return s.next()
			}
			s.next0()
		default:
			s.scanOne()
			s.lastColon = false
			s.lineTokens = true
		}
	}
	return token{kind: tEOF, line: s.line}
}

// next0 consumes a comment, a line break inside brackets or a line
// continuation at s.pos.
func (s *scanner) next0() {
	switch s.src[s.pos] {
	case '#':
		s.skipComment()
	case '\\':
		s.continuation()
	default:
		s.newline()
	}
}

func hasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}
