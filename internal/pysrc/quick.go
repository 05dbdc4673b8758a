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
// or holds a ';' outside brackets. Each logical line is placed by
// indentsAfter and noted by startsCandidate, then its tokens are checked
// by logicalLine.
func (q *quickScan) run(src []byte, names map[string]bool) bool {
	if bytes.IndexByte(src, '\r') >= 0 {
		return false
	}
	q.sc = scanner{src: src, line: 1}
	q.sc.stack = q.brackets[:0]
	q.cands = q.candBuf[:0]
	indents := q.indents[:1]
	indents[0] = 0
	pendingBlock := false // the last logical line ended with ':'
	for i, n := 0, len(src); i < n; {
		// A physical line begins at i, outside brackets.
		lineStart := i
		for i < n && src[i] == ' ' {
			i++
		}
		if i >= n {
			break
		}
		switch src[i] {
		case '\n': // a blank line
			i++
			continue
		case '#': // a comment only
			i = lineEnd(src, i) + 1
			continue
		case '\t', '\f', '\\':
			return false
		}
		col := i - lineStart
		var ok bool
		if indents, ok = indentsAfter(indents, col, pendingBlock); !ok {
			return false
		}
		if col == 0 && startsCandidate(src, i, names) {
			q.cands = append(q.cands, lineStart)
		}
		if i, pendingBlock, ok = q.logicalLine(src, lineStart, i); !ok {
			return false
		}
	}
	return !pendingBlock
}

// lineEnd returns the offset of the first '\n' at or after i, or len(src)
// when there is none.
func lineEnd(src []byte, i int) int {
	if k := bytes.IndexByte(src[i:], '\n'); k >= 0 {
		return i + k
	}
	return len(src)
}

// indentsAfter returns the stack of indentation columns after a logical line
// at column col, and false when the quick check leaves the file to the
// scanner: an indent where no block opens (pendingBlock: the line before
// ended with ':') or deeper than quickMaxIndents, no indent where one
// opens, or a dedent to a column the stack does not hold. The stack is
// never empty; it grows within its capacity.
func indentsAfter(indents []int, col int, pendingBlock bool) ([]int, bool) {
	switch top := indents[len(indents)-1]; {
	case col == top:
		return indents, !pendingBlock
	case col > top:
		if !pendingBlock || len(indents) == quickMaxIndents {
			return indents, false
		}
		return append(indents, col), true
	case pendingBlock:
		return indents, false
	}
	for col < indents[len(indents)-1] {
		indents = indents[:len(indents)-1]
	}
	return indents, col == indents[len(indents)-1]
}

// startsCandidate reports whether a logical line at column 0 whose first
// token starts at i may hold a registration: it begins with '(' or with a
// name of names.
func startsCandidate(src []byte, i int, names map[string]bool) bool {
	if c := src[i]; c == '(' {
		return true
	} else if quickClasses[c] != qLetter {
		return false
	}
	j := i + 1
	for j < len(src) && asciiWord[src[j]] {
		j++
	}
	return names[string(src[i:j])]
}

// logicalLine checks the tokens of the logical line whose first token is
// at i, lineStart being where its first physical line starts, and returns
// where the next line starts and whether this one ended with ':' (so the
// next must open a block); ok is false when the quick check leaves the
// file to the scanner. A ';' outside brackets makes a line at column 0
// (i == lineStart) a candidate.
//
// Plain bytes are skipped without a dispatch; the line's last token is
// found by looking back from its end, so whether it was ':' needs no
// tracking. The brackets open (depth) and the last literal (strKind, the
// literalKind of the line's last literal, 0 for none, and strEnd, where
// it ended) belong to the logical line: it ends outside brackets, and its
// end is a token between literals. So do numEnd, where its last number
// ended, commentAt, where its last comment started, and physStart, where
// its last physical line started.
func (q *quickScan) logicalLine(src []byte, lineStart, i int) (next int, colon, ok bool) {
	depth, strKind, strEnd, numEnd, commentAt, physStart := 0, uint8(0), 0, 0, -1, lineStart
	for {
		if i = skipPlain(src, i); i >= len(src) {
			return i, endsWithColon(src, lineStart, i, commentAt, physStart), depth == 0
		}
		switch c := src[i]; quickClasses[c] {
		case qQuote:
			end, kind := quickLiteral(src, i, plainLiteral(src, i, numEnd, strKind)), uint8(1)
			if end < 0 {
				if end, kind, ok = q.literal(src, i, numEnd, strKind, strEnd, depth); !ok {
					return 0, false, false
				}
			}
			i, strKind, strEnd = end, kind, end
		case qDigit:
			if continuesName(src, i, numEnd) {
				i = wordEnd(src, i+1) // digits in a name are no numbers
				break
			}
			if numEnd = smallInt(src, i); numEnd < 0 {
				if numEnd, ok = q.number(src, i); !ok {
					return 0, false, false
				}
			}
			i = numEnd
		case qSemicolon:
			q.noteSemicolon(depth == 0 && src[lineStart] != ' ', lineStart)
			i++
		case qOpen:
			if depth >= quickMaxBrackets {
				return 0, false, false
			}
			q.closers[depth], depth, i = closerOf(c), depth+1, i+1
		case qClose:
			if depth == 0 || q.closers[depth-1] != c {
				return 0, false, false
			}
			depth, i = depth-1, i+1
		case qBang, qBackslash:
			if !pairOK(src, i) {
				return 0, false, false
			}
			if i += 2; c == '\\' {
				physStart = i
			}
		case qHash:
			commentAt, i = i, lineEnd(src, i)
		case qNewline:
			if depth == 0 {
				return i + 1, endsWithColon(src, lineStart, i, commentAt, physStart), true
			}
			i, physStart = i+1, i+1 // a line break inside brackets
		default:
			return 0, false, false
		}
	}
}

// skipPlain returns the offset of the first byte from i on that is not
// plain.
func skipPlain(src []byte, i int) int {
	for i < len(src) && plain[src[i]] {
		i++
	}
	return i
}

// noteSemicolon notes the logical line starting at lineStart as a
// candidate, once, when outside: its ';' is outside brackets on a line at
// column 0.
func (q *quickScan) noteSemicolon(outside bool, lineStart int) {
	if outside && (len(q.cands) == 0 || q.cands[len(q.cands)-1] != lineStart) {
		q.cands = append(q.cands, lineStart)
	}
}

// pairOK reports whether the '!' or '\\' at i starts the pair of bytes it
// must: "!=", or a continuation ('\\' then a line break) with a line
// after it.
func pairOK(src []byte, i int) bool {
	if src[i] == '!' {
		return i+1 < len(src) && src[i+1] == '='
	}
	return i+2 < len(src) && src[i+1] == '\n'
}

// closerOf returns the bracket that closes the opening bracket c: '('
// awaits ')', the next byte; '[' and '{' await ']' and '}', two bytes on.
func closerOf(c byte) byte {
	if c == '(' {
		return ')'
	}
	return c + 2
}

// quickLiteral returns the end of the literal whose opening quote is at
// i when it is plain (see plainLiteral) and quickString ends it, else -1.
func quickLiteral(src []byte, i int, plain bool) int {
	if !plain {
		return -1
	}
	return quickString(src, i, false)
}

// plainLiteral reports whether the literal whose opening quote is at i is
// of the most common kind: no name before the quote (no prefix, nor a
// keyword; a number ends a name) and no bytes literal before it on the
// line to compare it with.
func plainLiteral(src []byte, i, numEnd int, lastKind uint8) bool {
	return !continuesName(src, i, numEnd) && lastKind != 2
}

// literal checks the string literal whose opening quote is at i and
// returns its end and its literalKind; numEnd is where the line's last
// number ended, lastKind and lastEnd the kind and end of its last literal
// (0 for none), depth the brackets open. It is called for the literals
// quickLiteral does not end, and tries quickString on those it did not
// try. ok is false when the quick check leaves the file to the scanner.
func (q *quickScan) literal(src []byte, i, numEnd int, lastKind uint8, lastEnd, depth int) (end int, kind uint8, ok bool) {
	start, flags := i, uint8(0)
	if continuesName(src, i, numEnd) {
		if start, flags, ok = literalPrefix(src, numEnd, i); !ok {
			return 0, 0, false
		}
	}
	// Adjacent literals may not mix bytes with str: a literal of the
	// other kind than the last one, with only blanks and comments between
	// them, is left to the scanner.
	kind = literalKind(flags)
	if lastKind != 0 && lastKind != kind && onlyBlanks(src[lastEnd:start]) {
		return 0, 0, false
	}
	if kind == 1 && !plainLiteral(src, i, numEnd, lastKind) {
		if end := quickString(src, i, flags&fFormat != 0); end >= 0 {
			return end, kind, true
		}
	}
	// Bytes literals (ASCII only) and every literal with a backslash or a
	// replacement field are checked by the scanner, which must not compare
	// it with a literal it did not see.
	sc := &q.sc
	sc.prevString = 0
	sc.stack = q.brackets[:depth] // for the nesting limit
	sc.scanString(start, i, flags)
	if sc.err != nil || sc.bigInt != nil {
		return 0, 0, false
	}
	return sc.pos, kind, true
}

// literalPrefix returns where the literal whose opening quote is at i
// starts, and its prefix's flags. A name right before the quote is its
// prefix, or a keyword that is no part of it (as in "if'x'"); a number
// ends a name, numEnd being where the line's last number ended. ok is
// false when the name is neither.
func literalPrefix(src []byte, numEnd, i int) (start int, flags uint8, ok bool) {
	w := i
	for w > numEnd && asciiWord[src[w-1]] {
		w--
	}
	if w == i {
		return i, 0, true
	}
	if flags, ok := stringPrefix(src[w:i]); ok {
		return w, flags, true
	}
	return i, 0, isKeyword(src[w:i])
}

// number checks the number whose first digit is at i (see continuesName),
// one that is no smallInt, and returns its end; ok is false when the quick check leaves the file
// to the scanner.
func (q *quickScan) number(src []byte, i int) (end int, ok bool) {
	at, ok := numberStart(src, i)
	if !ok {
		return 0, false
	}
	sc := &q.sc
	sc.pos = at
	sc.scanNumber()
	if sc.err != nil || sc.bigInt != nil {
		return 0, false
	}
	return sc.pos, true
}

// wordEnd returns the end of the name characters from i on.
func wordEnd(src []byte, i int) int {
	for i < len(src) && asciiWord[src[i]] {
		i++
	}
	return i
}

// continuesName reports whether the digit at i is part of a name: a name
// character is before it that no number ends (numEnd is where the line's
// last number ended).
func continuesName(src []byte, i, numEnd int) bool { return i > numEnd && asciiWord[src[i-1]] }

// smallInt returns the end of the small decimal integer at i, or -1 for
// any other number (one after a '.' among them). Most numbers are small decimal integers: digits (a
// single '0') followed by neither a name character nor '.'; anything else
// is left to the scanner. Measured: leaving them all to it costs 2% of
// run --list-only CPU on Miles (2026-12-02); kept, as registry's
// mentionsRegister explains.
func smallInt(src []byte, i int) int {
	if i > 0 && src[i-1] == '.' {
		return -1
	}
	j := i + 1
	if src[i] != '0' {
		for j < len(src) && isDigit(src[j]) {
			j++
		}
	}
	if (j == len(src) || !asciiWord[src[j]] && src[j] != '.') && j-i <= maxIntDigits {
		return j
	}
	return -1
}

// numberStart returns where the number whose first digit is at i starts:
// at the '.' before it, if any. ok is false after "..": the dots group
// into "..." first.
func numberStart(src []byte, i int) (at int, ok bool) {
	if i == 0 || src[i-1] != '.' {
		return i, true
	}
	if i > 1 && src[i-2] == '.' {
		return 0, false
	}
	return i - 1, true
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
