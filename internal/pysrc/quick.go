package pysrc

import "bytes"

// The quick check. A test file holds its registrations on a few logical
// lines at column 0, yet every byte of it must be tokenized, because any
// tokenizer error anywhere makes the file an error. quickScan does that
// validation without making tokens, in one loop over the bytes with the
// state in local variables, and notes the logical lines that may hold a
// registration; the scanner then reads only those lines.
//
// It only ever accepts: whatever it does not handle itself (any error, a
// carriage return, tabs or form feeds in indentation, non-ASCII text
// outside strings and comments, a bytes literal next to a str literal, a
// line that starts with a continuation, very deep nesting, an over-long
// decimal integer) makes run report false, and ReadCalls reads the whole
// file with the scanner instead, which gives the exact error. Strings and
// numbers are checked by the scanner's own functions.

// quickClass sorts the bytes the quick check dispatches on.
type quickClass uint8

const (
	qBad quickClass = iota // anything the quick check leaves to the scanner
	qSpace
	qNewline
	qHash
	qQuote
	qLetter
	qDigit
	qDot
	qOpen
	qClose
	qColon
	qSemicolon
	qBang
	qBackslash
	qOp // an operator character with no role here
)

var quickClasses = func() (t [256]quickClass) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = qLetter, qLetter
	}
	t['_'] = qLetter
	for c := '0'; c <= '9'; c++ {
		t[c] = qDigit
	}
	for _, c := range []byte("=%&^|+@-*/<>,~") {
		t[c] = qOp
	}
	t[' '], t['\t'], t['\f'] = qSpace, qSpace, qSpace
	t['\n'] = qNewline
	t['#'] = qHash
	t['"'], t['\''] = qQuote, qQuote
	t['.'] = qDot
	t['('], t['['], t['{'] = qOpen, qOpen, qOpen
	t[')'], t[']'], t['}'] = qClose, qClose, qClose
	t[':'] = qColon
	t[';'] = qSemicolon
	t['!'] = qBang
	t['\\'] = qBackslash
	return t
}()

// plain marks the bytes the quick check skips without a dispatch:
// letters, '_', blanks and the operator characters with no role in it,
// '.' and ':' among them. Digits are not plain (a number must be
// checked), nor is anything that opens a string or comment, changes the
// brackets or ends a line.
var plain = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		switch quickClasses[c] {
		case qLetter, qSpace, qOp, qDot, qColon:
			t[c] = true
		}
	}
	return t
}()

// quickString returns the end of the string literal whose opening quote
// is at q, for the common literals that need no more than finding their
// end: no backslash anywhere, and in an f-string only replacement fields
// that are a dotted name ("{self.name}") and doubled braces. It returns
// -1 for every other literal, which the scanner then checks; a non-bytes
// literal may hold any other character, the text being valid UTF-8.
// Measured: leaving every literal to the scanner costs 3% of run
// --list-only CPU on Miles and 14% of BenchmarkCollect's CPU per file
// (2026-12-02); kept, as registry's mentionsRegister explains.
func quickString(src []byte, q int, format bool) int {
	quote := src[q]
	triple := q+2 < len(src) && src[q+1] == quote && src[q+2] == quote
	i := q + 1
	if triple {
		i = q + 3
	}
	for {
		i = stringStop(src, i, quote, format, false)
		if i >= len(src) {
			return -1
		}
		switch c := src[i]; c {
		case quote:
			if !triple {
				return i + 1
			}
			if i+2 < len(src) && src[i+1] == quote && src[i+2] == quote {
				return i + 3
			}
			i++
		case '\\':
			return -1
		case '\n':
			if !triple {
				return -1
			}
			i++
		case '{':
			if i+1 < len(src) && src[i+1] == '{' {
				i += 2
				continue
			}
			if i = dottedName(src, i+1); i < 0 || i >= len(src) || src[i] != '}' {
				return -1
			}
			i++
		case '}':
			if i+1 >= len(src) || src[i+1] != '}' {
				return -1
			}
			i += 2
		default: // another control character
			i++
		}
	}
}

// dottedName returns the end of the ASCII name(.name)* at i, or -1 when
// there is none.
func dottedName(src []byte, i int) int {
	for {
		if i >= len(src) || quickClasses[src[i]] != qLetter {
			return -1
		}
		for i++; i < len(src) && asciiWord[src[i]]; i++ {
		}
		if i >= len(src) || src[i] != '.' {
			return i
		}
		i++
	}
}

// endsWithColon reports whether the last token of the logical line from
// start to end is ':' (so the next line must open a block). commentAt is
// where the last comment started and physStart where the line's last
// physical line starts.
func endsWithColon(src []byte, start, end, commentAt, physStart int) bool {
	if commentAt >= physStart {
		end = commentAt
	}
	for end > start {
		switch c := src[end-1]; {
		case c == ' ' || c == '\t' || c == '\f':
			end--
		case c == '\n' && end-2 >= start && src[end-2] == '\\':
			end -= 2 // a line continuation
		default:
			return c == ':'
		}
	}
	return false
}

// asciiWord marks the ASCII bytes that continue an identifier.
var asciiWord = func() (t [256]bool) {
	for c := 0; c < 0x80; c++ {
		t[c] = identChar[c]
	}
	return t
}()

// Limits of the quick check, below CPython's so that it never has to
// produce their errors.
const (
	quickMaxIndents  = 64
	quickMaxBrackets = maxBrackets - 10
)

type quickScan struct {
	sc       scanner // checks strings and numbers, and holds the brackets
	indents  [quickMaxIndents]int
	closers  [quickMaxBrackets]byte   // the closer each open bracket awaits
	brackets [maxBrackets + 1]bracket // the scanner's stack
	candBuf  [4]int
	cands    []int // offsets of the logical lines the scanner must read
}

// run checks src (already known to be UTF-8 without NUL bytes) and reports
// whether the quick check accepts it; then q.cands holds the start of
// every logical line at column 0 that begins with '(' or a name of names,
// or holds a ';' outside brackets.
func (q *quickScan) run(src []byte, names map[string]bool) bool {
	if bytes.IndexByte(src, '\r') >= 0 {
		return false
	}
	q.sc = scanner{src: src, line: 1}
	q.sc.stack = q.brackets[:0]
	closers := &q.closers
	depth := 0 // open brackets
	q.cands = q.candBuf[:0]
	sc := &q.sc
	indents := q.indents[:1]
	indents[0] = 0
	pendingBlock := false // the last logical line ended with ':'
	strKind := uint8(0)   // the literalKind of the logical line's last literal, 0 for none
	strEnd := 0           // where it ended
	n := len(src)
	i := 0
	for i < n {
		// A physical line begins at i, outside brackets.
		lineStart := i
		for i < n && src[i] == ' ' {
			i++
		}
		if i >= n {
			break
		}
		switch src[i] {
		case '\n':
			i++
			continue
		case '#':
			if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
				i += k + 1
			} else {
				i = n
			}
			continue
		case '\t', '\f', '\\':
			return false
		}

		col := i - lineStart
		switch top := indents[len(indents)-1]; {
		case col == top:
			if pendingBlock {
				return false
			}
		case col > top:
			if !pendingBlock || len(indents) == quickMaxIndents {
				return false
			}
			indents = append(indents, col)
		default:
			if pendingBlock {
				return false
			}
			for col < indents[len(indents)-1] {
				indents = indents[:len(indents)-1]
			}
			if col != indents[len(indents)-1] {
				return false
			}
		}
		topLevel := col == 0
		if topLevel {
			if c := src[i]; c == '(' {
				q.cands = append(q.cands, lineStart)
			} else if quickClasses[c] == qLetter {
				j := i + 1
				for j < n && asciiWord[src[j]] {
					j++
				}
				if names[string(src[i:j])] {
					q.cands = append(q.cands, lineStart)
				}
			}
		}

		// The tokens up to the end of the logical line. Plain bytes are
		// skipped without a dispatch; the line's last token is found by
		// looking back from its end, so whether it was ':' needs no
		// tracking.
		numEnd := 0     // where the last number ended
		commentAt := -1 // where the last comment started
		physStart := lineStart
	line:
		for {
			for i < n && plain[src[i]] {
				i++
			}
			if i >= n {
				if depth > 0 || endsWithColon(src, lineStart, n, commentAt, physStart) {
					return false
				}
				return true
			}
			c := src[i]
			switch quickClasses[c] {
			case qQuote:
				// A name right before the quote is its prefix (or a
				// keyword such as in "if'x'"); a number ends a name.
				w := i
				for w > numEnd && asciiWord[src[w-1]] {
					w--
				}
				flags := uint8(0)
				if w < i {
					var ok bool
					flags, ok = stringPrefix(src[w:i])
					if !ok {
						if !isKeyword(src[w:i]) {
							return false
						}
						w, flags = i, 0
					}
				}
				// Adjacent literals may not mix bytes with str: a literal
				// of the other kind than the last one, with only blanks and
				// comments between them, is left to the scanner.
				kind := literalKind(flags)
				if strKind != 0 && strKind != kind && onlyBlanks(src[strEnd:w]) {
					return false
				}
				if kind == 1 {
					if end := quickString(src, i, flags&fFormat != 0); end >= 0 {
						i = end
						strKind, strEnd = kind, end
						continue
					}
				}
				// Bytes literals (ASCII only) and every literal with a
				// backslash or a replacement field are checked by the
				// scanner, which must not compare it with a literal it
				// did not see.
				sc.prevString = 0
				sc.stack = q.brackets[:depth] // for the nesting limit
				sc.scanString(w, i, flags)
				if sc.err != nil || sc.bigInt != nil {
					return false
				}
				i = sc.pos
				strKind, strEnd = kind, i
			case qDigit:
				// A digit continues a name, or starts a number (with the
				// '.' before it, if any).
				if i > numEnd && asciiWord[src[i-1]] {
					// The rest of the name: digits in it are no numbers.
					for i++; i < n && asciiWord[src[i]]; i++ {
					}
					continue
				}
				at := i
				if i == 0 || src[i-1] != '.' {
					// Most numbers are small decimal integers: digits (a
					// single '0') followed by neither a name character nor
					// '.'; anything else is left to the scanner. Measured:
					// leaving them all to it costs 2% of run --list-only
					// CPU on Miles (2026-12-02); kept, as registry's
					// mentionsRegister explains.
					j := i + 1
					if c != '0' {
						for j < n && isDigit(src[j]) {
							j++
						}
					}
					if (j == n || !asciiWord[src[j]] && src[j] != '.') && j-i <= maxIntDigits {
						i, numEnd = j, j
						continue
					}
				}
				if i > 0 && src[i-1] == '.' {
					if i > 1 && src[i-2] == '.' {
						return false // dots group into "..." first
					}
					at = i - 1
				}
				sc.pos = at
				sc.scanNumber()
				if sc.err != nil || sc.bigInt != nil {
					return false
				}
				i = sc.pos
				numEnd = i
			case qSemicolon:
				if topLevel && depth == 0 && (len(q.cands) == 0 || q.cands[len(q.cands)-1] != lineStart) {
					q.cands = append(q.cands, lineStart)
				}
				i++
			case qOpen:
				if depth >= quickMaxBrackets {
					return false
				}
				// '(' awaits ')', the next byte; '[' and '{' await ']'
				// and '}', two bytes on.
				closer := c + 2
				if c == '(' {
					closer = ')'
				}
				closers[depth] = closer
				depth++
				i++
			case qClose:
				if depth == 0 || closers[depth-1] != c {
					return false
				}
				depth--
				i++
			case qBang:
				if i+1 >= n || src[i+1] != '=' {
					return false
				}
				i += 2
			case qHash:
				commentAt = i
				if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
					i += k
				} else {
					i = n
				}
			case qBackslash:
				// A continuation needs a line after it.
				if i+2 >= n || src[i+1] != '\n' {
					return false
				}
				i += 2
				physStart = i
			case qNewline:
				if depth > 0 {
					i++
					physStart = i
					continue
				}
				pendingBlock = endsWithColon(src, lineStart, i, commentAt, physStart)
				strKind = 0 // the line's end is a token between literals
				i++
				break line
			default:
				return false
			}
		}
	}
	return !pendingBlock
}

// readCandidates reads the logical lines run noted with the scanner, in
// order, and returns their register calls.
func (q *quickScan) readCandidates(src []byte, names map[string]bool) ([]Call, error) {
	var calls []Call
	var buf []token
	line, at := 1, 0
	for _, off := range q.cands {
		line += bytes.Count(src[at:off], []byte{'\n'})
		at = off
		s := newScanner(src)
		s.pos, s.line, s.lineStart = off, int32(line), off
		t := s.next()
		if s.err != nil {
			return nil, s.err
		}
		var err error
		if calls, buf, err = s.readLine(t, names, calls, buf); err != nil {
			return nil, err
		}
	}
	return calls, nil
}

// onlyBlanks reports whether gap, the text between two literals on one
// logical line, holds no token: only blanks, line breaks, continuations
// and comments.
func onlyBlanks(gap []byte) bool {
	for i := 0; i < len(gap); i++ {
		switch gap[i] {
		case ' ', '\t', '\f', '\n':
		case '\\':
			if i+1 >= len(gap) || gap[i+1] != '\n' {
				return false
			}
			i++
		case '#':
			k := bytes.IndexByte(gap[i:], '\n')
			if k < 0 {
				return true
			}
			i += k
		default:
			return false
		}
	}
	return true
}
