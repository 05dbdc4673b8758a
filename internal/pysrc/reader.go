package pysrc

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"
)

// quickScans recycles the quick check's state, a few kilobytes of scratch
// arrays: allocated afresh for every file, it was half of the bytes a
// collection allocated. What ReadCalls returns never points into it.
// Measured: allocating it per file instead costs 6.5% of run --list-only
// CPU on Miles, 1-3% once its token array had gone, and brings the
// collection within a quarter of the allocation that starts a garbage
// collection cycle, which alone costs 13% (2026-12-02); kept, as the
// registry package's mentionsRegister explains.
var quickScans = sync.Pool{New: func() any { return new(quickScan) }}

// ReadCalls tokenizes the whole of src (every tokenizer error anywhere in the
// file is a *SyntaxError) and returns, in source order, each module-level
// expression statement that is a bare call of one of names (compared after
// NFKC normalization). Grammar errors inside such a call are *SyntaxError too.
//
// Most files are read by a quick check that validates the text without
// making tokens and reads with the scanner only the few logical lines that
// may hold a registration (see quick.go). When that check meets anything
// it does not handle itself, among them every error, the whole file is read
// again by the scanner, which finds the error and its message. Measured:
// reading every file with the scanner instead costs 35% of run --list-only
// CPU on Miles (2026-12-02).
func ReadCalls(src []byte, names map[string]bool) ([]Call, error) {
	if err := checkText(src); err != nil {
		return nil, err
	}
	q := quickScans.Get().(*quickScan)
	defer func() {
		q.sc = scanner{} // drop the reference to src
		quickScans.Put(q)
	}()
	if q.run(src, names) {
		return q.readCandidates(src, names)
	}
	return readCalls(src, names)
}

// readCalls is ReadCalls without the quick check: the scanner makes every
// token of the file. Skipping the statements that hold no register call
// without making their tokens measured worth nothing on Miles, whose every
// file the quick check accepts (2026-12-02).
func readCalls(src []byte, names map[string]bool) ([]Call, error) {
	if err := checkText(src); err != nil {
		return nil, err
	}
	s := newScanner(src)
	var calls []Call
	var buf []token
	for {
		t := s.next()
		if s.err != nil {
			return nil, s.settle(s.err)
		}
		if t.kind == tEOF {
			if err := s.settle(nil); err != nil {
				return nil, err
			}
			return calls, nil
		}
		if t.kind == tNewline {
			continue
		}
		var err error
		if calls, buf, err = s.readLine(t, names, calls, buf); err != nil {
			var se *SyntaxError
			if errors.As(err, &se) {
				return nil, s.settle(se)
			}
			return nil, err
		}
	}
}

// readLine reads the logical line that begins with t up to and including
// its end, appending the register calls it holds to calls. buf is scratch
// space for tokens, returned for reuse.
func (s *scanner) readLine(t token, names map[string]bool, calls []Call, buf []token) ([]Call, []token, error) {
	src := s.src
	// t begins a logical line. Only lines at column 0 hold top-level
	// statements, and a compound statement's header line holds none.
	if s.indentDepth() > 0 || opensCompound(src, t) {
		for t.kind != tNewline && t.kind != tEOF {
			t = s.next()
		}
		if s.err != nil {
			return nil, buf, s.err
		}
		return calls, buf, nil
	}
	for {
		if t.kind == tOp && src[t.start] == ';' {
			return nil, buf, &SyntaxError{Line: int(t.line), Kind: ErrGrammar, Msg: "invalid syntax"}
		}
		// The statement's tokens are parsed as they come: from
		// firstEarlyParse tokens on, each time their count doubles, the
		// tokens so far are parsed, and once that parse decides without
		// reading past them (an error, or not a register call) the rest
		// of the statement is only scanned, for a tokenizer error that
		// would come first, and not kept. A statement nested past
		// maxNesting thus holds a few thousand tokens, not the whole of a
		// 16 MiB line; an ordinary one is parsed once, at its end.
		buf = buf[:0]
		var (
			call    *Call
			err     error
			decided bool
		)
		check := firstEarlyParse
		for t.kind != tNewline && t.kind != tEOF && !(t.kind == tOp && src[t.start] == ';' && len(s.stack) == 0) {
			if !decided {
				buf = append(buf, t)
				if len(buf) == check {
					call, err, decided = readStatementPrefix(src, buf, names)
					check *= 2
				}
			}
			t = s.next()
		}
		if s.err != nil {
			return nil, buf, s.err
		}
		if !decided {
			call, err = readStatement(src, buf, names)
		}
		if err != nil {
			return nil, buf, err
		}
		if call != nil {
			calls = append(calls, *call)
		}
		if t.kind != tOp { // the end of the line
			return calls, buf, nil
		}
		if t = s.next(); s.err != nil {
			return nil, buf, s.err
		}
		if t.kind == tNewline || t.kind == tEOF {
			return calls, buf, nil // a trailing ';'
		}
	}
}

// opensCompound reports whether the logical line starting with t is a
// decorator or the header of a compound statement.
func opensCompound(src []byte, t token) bool {
	text := src[t.start:t.end]
	switch t.kind {
	case tOp:
		return len(text) == 1 && text[0] == '@'
	case tName:
		switch string(text) {
		case "if", "elif", "else", "while", "for", "try", "except", "finally",
			"with", "def", "class", "async":
			return true
		}
	}
	return false
}

// readStatement returns the register call that the statement toks is, or
// nil when it is anything else. The accepted shapes are a call of a
// register name with any number of redundant parentheses around the name
// or around the whole call.
func readStatement(src []byte, toks []token, names map[string]bool) (*Call, error) {
	return (&parser{src: src, toks: toks}).statement(names)
}

// firstEarlyParse is the token count of a statement at which readLine
// first parses what it has: far more than any register call holds, so
// that an ordinary file is parsed once per statement, and few enough to
// keep in memory.
const firstEarlyParse = 1024

// readStatementPrefix parses toks, the first tokens of a statement whose
// end is still to come. decided reports that the parse never read past
// them, so that the whole statement gives the same result: an error, or
// nil for a statement that is not a register call. A call found is never
// decided: more tokens after it would make it something else.
func readStatementPrefix(src []byte, toks []token, names map[string]bool) (call *Call, err error, decided bool) {
	p := &parser{src: src, toks: toks, prefix: true}
	call, err = p.statement(names)
	return call, err, !p.starved
}

// statement is readStatement on the parser's tokens.
func (p *parser) statement(names map[string]bool) (*Call, error) {
	src := p.src
	var call *Call
	err := p.run(func() {
		open := 0
		for p.isOp("(") {
			open++
			p.i++
		}
		t := p.cur()
		if t.kind != tName {
			return
		}
		name := identName(src[t.start:t.end], t.flags&fNonASCII != 0)
		if !names[name] {
			return
		}
		p.i++
		closed := 0
		for closed < open && p.isOp(")") {
			closed++
			p.i++
		}
		if !p.isOp("(") {
			return
		}
		args, kws := p.callArgs()
		for ; closed < open; closed++ {
			if !p.isOp(")") {
				return
			}
			p.i++
		}
		if p.isOp("=") {
			p.failf("cannot assign to function call")
		}
		if !p.atEnd() {
			return
		}
		call = &Call{Func: name, Line: int(t.line)}
		if len(args) > 0 {
			call.Args = make([]Arg, 0, len(args))
		}
		if len(kws) > 0 {
			call.Keywords = make([]Arg, 0, len(kws))
		}
		for _, a := range args {
			call.Args = append(call.Args, p.arg(a))
		}
		for _, a := range kws {
			call.Keywords = append(call.Keywords, p.arg(a))
		}
	})
	if err != nil {
		return nil, err
	}
	return call, nil
}

func (p *parser) arg(a rawArg) Arg {
	return Arg{Name: a.name, Star: a.star, DoubleStar: a.doubleStar, Value: p.value(a.value), Line: int(a.line)}
}

// checkText refuses what fails before tokenizing: text that is not UTF-8
// (the reference cannot even read it) and NUL characters.
func checkText(src []byte) error {
	if !utf8.Valid(src) {
		at := 0
		for at < len(src) {
			r, n := utf8.DecodeRune(src[at:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			at += n
		}
		return &SyntaxError{Line: LineOf(src, at), Kind: ErrEncoding, Msg: fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid UTF-8", src[at], at)}
	}
	if at := bytes.IndexByte(src, 0); at >= 0 {
		return &SyntaxError{Line: LineOf(src, at), Kind: ErrEncoding, Msg: "source code string cannot contain null bytes"}
	}
	return nil
}

// LineOf returns the 1-based line of offset at, counting "\n", "\r\n" and
// a lone "\r" as one line break each, as Python does.
func LineOf(src []byte, at int) int {
	line := 1
	for i := 0; i < at && i < len(src); i++ {
		if src[i] == '\n' || src[i] == '\r' && (i+1 >= len(src) || src[i+1] != '\n') {
			line++
		}
	}
	return line
}
