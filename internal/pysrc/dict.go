package pysrc

import "fmt"

// DictError says why a string dict could not be read.
type DictError struct {
	Name string
	Line int // 0 when the assignment is missing
	Msg  string
}

func (e *DictError) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// ReadStringDict returns the entries of a module-level `name = {...}` (or
// `name: T = {...}`) assignment whose value is a dict literal of string keys
// and string values. When the name is assigned more than once, the last
// assignment wins, as it would when Python runs the module.
func ReadStringDict(src []byte, name string) ([]DictEntry, error) {
	if err := checkText(src); err != nil {
		return nil, err
	}
	s := newScanner(src)
	var found []DictEntry
	var foundErr error
	seen := false
	var buf []token
	for {
		t := s.next()
		if s.err != nil {
			return nil, s.err
		}
		if t.kind == tEOF {
			break
		}
		if t.kind == tNewline {
			continue
		}
		candidate := s.indentDepth() == 0 && t.kind == tName && string(src[t.start:t.end]) == name
		buf = buf[:0]
		for t.kind != tNewline && t.kind != tEOF && !(t.kind == tOp && src[t.start] == ';' && len(s.stack) == 0) {
			if candidate {
				buf = append(buf, t)
			}
			t = s.next()
		}
		if s.err != nil {
			return nil, s.err
		}
		if !candidate {
			continue
		}
		entries, ok, err := readDictAssignment(src, buf, name)
		if ok {
			seen = true
			found, foundErr = entries, err
		}
	}
	if !seen {
		return nil, &DictError{Name: name, Msg: fmt.Sprintf("no module-level assignment %s = {...} found", name)}
	}
	if foundErr != nil {
		return nil, foundErr
	}
	return found, nil
}

// readDictAssignment reads `name [: T] = {...}`; ok is false when the
// statement is not an assignment to name.
func readDictAssignment(src []byte, toks []token, name string) (entries []DictEntry, ok bool, err error) {
	p := &parser{src: src, toks: toks, i: 1}
	var derr *DictError
	serr := p.run(func() {
		if p.isOp(":") {
			p.i++
			p.expression()
		}
		if !p.isOp("=") {
			return
		}
		p.i++
		ok = true
		line := int(p.cur().line)
		if !p.isOp("{") {
			derr = &DictError{Name: name, Line: line, Msg: fmt.Sprintf("%s must be a dict literal of string keys and string values", name)}
			return
		}
		p.i++
		for !p.isOp("}") {
			kt := p.cur()
			k := p.expression()
			p.expectOp(":")
			v := p.expression()
			key, kok := p.stringConst(k)
			val, vok := p.stringConst(v)
			if !kok || !vok {
				derr = &DictError{Name: name, Line: int(kt.line), Msg: fmt.Sprintf("%s entries must be string literals (got %s: %s)", name, k.class, v.class)}
				return
			}
			entries = append(entries, DictEntry{Key: key, Value: val, Line: int(kt.line)})
			if !p.isOp("}") {
				p.expectOp(",")
			}
		}
		p.i++
		if p.i != len(toks) {
			derr = &DictError{Name: name, Line: line, Msg: fmt.Sprintf("%s must be a dict literal of string keys and string values", name)}
		}
	})
	if serr != nil {
		return nil, true, serr
	}
	if derr != nil {
		return nil, ok, derr
	}
	return entries, ok, nil
}

func (p *parser) stringConst(n node) (string, bool) {
	if n.class != "Constant" {
		return "", false
	}
	c := p.constant(n)
	return c.Str, c.Type == Str
}
