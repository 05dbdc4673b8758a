package pysrc

import (
	"fmt"
	"strings"
)

// DictError says why a dict could not be read.
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

// Dict is the dict literal of a module-level `name = {...}` (or
// `name: T = {...}`) assignment.
type Dict struct {
	Line int // the assignment's
	// Items are the `key: value` entries in source order, a repeated key
	// included (Python keeps its last value).
	Items []DictItem
	// Changed lists the lines of the module-level statements after the
	// assignment that begin with the name without assigning it anew
	// (`name[k].append(x)`, `name |= other`): Python runs them, so the
	// literal alone may not be the value.
	Changed []int
}

// DictItem is one `key: value` entry of a dict literal.
type DictItem struct {
	Key Value
	// KeyText is the key as written, its tokens without the blanks and
	// comments between them: `HWBackend.CUDA`, `"cuda"`.
	KeyText string
	Line    int // the key's
	Value   Value
	// ElemLines holds, when Value is a list, the line each element starts
	// on.
	ElemLines []int
}

// ReadDict returns the dict literal of the module-level assignment to name.
// When the name is assigned more than once, the last assignment wins, as it
// would when Python runs the module. The file must tokenize (else a
// *SyntaxError); an assignment whose value is not a dict literal, or holds
// `**` unpacking, is a *DictError at its line, and so is a missing one (at
// line 0).
func ReadDict(src []byte, name string) (*Dict, error) {
	var (
		found    *Dict
		foundErr error
	)
	changed, err := readLastAssignment(src, name, func(toks []token) bool {
		d, ok, err := readDictAssignment(src, toks, name)
		if ok {
			found, foundErr = d, err
		}
		return ok
	})
	if err != nil {
		return nil, err
	}
	if found == nil && foundErr == nil {
		return nil, &DictError{Name: name, Msg: fmt.Sprintf("no module-level assignment %s = {...} found", name)}
	}
	if foundErr != nil {
		return nil, foundErr
	}
	found.Changed = changed
	return found, nil
}

// readLastAssignment hands the tokens of each module-level statement that
// begins with name to read, which says whether the statement assigns it
// (and keeps what it read: the last one read wins, as when Python runs
// the module). It returns the lines of the statements after the last
// assignment that begin with name without assigning it anew. The file
// must tokenize (else a *SyntaxError).
func readLastAssignment(src []byte, name string, read func(toks []token) bool) (changed []int, err error) {
	if err := checkText(src); err != nil {
		return nil, err
	}
	s := newScanner(src)
	var (
		seen bool
		buf  []token
	)
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
		switch {
		case read(buf):
			seen, changed = true, nil
		case seen:
			changed = append(changed, int(buf[0].line))
		}
	}
	return changed, nil
}

// readDictAssignment reads `name [: T] = {...}`; ok is false when the
// statement is not an assignment to name.
func readDictAssignment(src []byte, toks []token, name string) (d *Dict, ok bool, err error) {
	p := &parser{src: src, toks: toks, i: 1}
	var derr *DictError
	notLiteral := func(line int32) {
		derr = &DictError{Name: name, Line: int(line), Msg: fmt.Sprintf("%s must be a dict literal", name)}
	}
	serr := p.run(func() {
		if ok = p.assignment(); !ok {
			return
		}
		line := p.cur().line
		d = &Dict{Line: int(line)}
		if !p.isOp("{") {
			notLiteral(line)
			return
		}
		p.i++
		for !p.isOp("}") {
			kt := p.cur()
			if p.isOp("**") {
				derr = &DictError{Name: name, Line: int(kt.line), Msg: fmt.Sprintf("%s unpacks another mapping with **; write its entries out", name)}
				return
			}
			lo := p.i
			k := p.expression()
			keyText := p.joined(lo, p.i)
			if !p.isOp(":") {
				notLiteral(line) // a set display
				return
			}
			p.i++
			v := p.expression()
			if p.atFor() {
				notLiteral(line) // a comprehension
				return
			}
			it := DictItem{Key: p.value(k), KeyText: keyText, Line: int(kt.line), Value: p.value(v)}
			for i, e := range v.elems {
				first := e.lo
				if v.starts != nil {
					first = v.starts[i]
				}
				it.ElemLines = append(it.ElemLines, int(p.toks[first].line))
			}
			d.Items = append(d.Items, it)
			if !p.isOp("}") {
				p.expectOp(",")
			}
		}
		p.i++
		if p.i != len(toks) {
			notLiteral(line) // {...} | other, {...}[k], ...
		}
	})
	if serr != nil {
		return nil, true, serr
	}
	if derr != nil {
		return nil, ok, derr
	}
	return d, ok, nil
}

// assignment reads, after the name, the `[: T] =` of an assignment to
// it, and says whether the statement is one.
func (p *parser) assignment() bool {
	if p.isOp(":") {
		p.i++
		p.expression()
	}
	if !p.isOp("=") {
		return false
	}
	p.i++
	return true
}

// joined is the text of the tokens [lo, hi) without what stands between
// them.
func (p *parser) joined(lo, hi int) string {
	var sb strings.Builder
	for _, t := range p.toks[lo:hi] {
		sb.WriteString(p.text(t))
	}
	return sb.String()
}

// ReadStringDict returns the entries of a module-level `name = {...}` (or
// `name: T = {...}`) assignment whose value is a dict literal of string keys
// and string values (see ReadDict).
func ReadStringDict(src []byte, name string) ([]DictEntry, error) {
	d, err := ReadDict(src, name)
	if err != nil {
		return nil, err
	}
	entries := make([]DictEntry, 0, len(d.Items))
	for _, it := range d.Items {
		key, kok := stringConst(it.Key)
		val, vok := stringConst(it.Value)
		if !kok || !vok {
			return nil, &DictError{Name: name, Line: it.Line, Msg: fmt.Sprintf("%s entries must be string literals (got %s: %s)", name, it.Key.Node, it.Value.Node)}
		}
		entries = append(entries, DictEntry{Key: key, Value: val, Line: it.Line})
	}
	return entries, nil
}

func stringConst(v Value) (string, bool) {
	return v.Const.Str, v.Kind == KindConstant && v.Const.Type == Str
}
