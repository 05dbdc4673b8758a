package pysrc

import "fmt"

// Names is the literal collection of a module-level assignment such as
// `NAME = frozenset({"a", "b"})`: a set, list or tuple display, bare or
// as the one argument of frozenset(), set(), tuple() or list().
type Names struct {
	Line int // the assignment's
	// Items are the elements in source order, a repeated one included.
	Items []NameItem
	// Changed lists the lines of the module-level statements after the
	// assignment that begin with the name without assigning it anew
	// (`NAME |= {...}`): Python runs them, so the literal alone may not
	// be the value.
	Changed []int
}

// NameItem is one element of a Names literal.
type NameItem struct {
	Value Value // a string constant, when the element is one
	Line  int   // the line the element starts on
}

// namesCalls are the builtins whose one argument, a display, gives the
// collection's elements unchanged.
var namesCalls = map[string]bool{"frozenset": true, "set": true, "tuple": true, "list": true}

// ReadNames returns the collection literal of the module-level assignment
// to name (the last one, as Python keeps it). The file must tokenize
// (else a *SyntaxError); an assignment whose value is no such literal is a
// *DictError at its line, and so is a missing one (at line 0).
func ReadNames(src []byte, name string) (*Names, error) {
	var (
		found    *Names
		foundErr error
	)
	changed, err := readLastAssignment(src, name, func(toks []token) bool {
		n, ok, err := readNamesAssignment(src, toks, name)
		if ok {
			found, foundErr = n, err
		}
		return ok
	})
	switch {
	case err != nil:
		return nil, err
	case foundErr != nil:
		return nil, foundErr
	case found == nil:
		return nil, &DictError{Name: name, Msg: fmt.Sprintf("no module-level assignment %s = {...} found", name)}
	}
	found.Changed = changed
	return found, nil
}

// readNamesAssignment reads `name [: T] = [call(]display[)]`; ok is false
// when the statement is not an assignment to name.
func readNamesAssignment(src []byte, toks []token, name string) (n *Names, ok bool, err error) {
	p := &parser{src: src, toks: toks, i: 1}
	var derr *DictError
	notLiteral := func(line int32, what string) {
		derr = &DictError{Name: name, Line: int(line), Msg: fmt.Sprintf("%s must be a set, list or tuple of literals%s", name, what)}
	}
	serr := p.run(func() {
		if ok = p.assignment(); !ok {
			return
		}
		line := p.cur().line
		n = &Names{Line: int(line)}
		call := false
		if t := p.cur(); t.kind == tName && namesCalls[p.text(t)] && p.isOpAt(p.i+1, "(") {
			call = true
			p.i += 2
			if p.isOp(")") { // frozenset(): empty
				p.i++
				if p.i != len(toks) {
					notLiteral(line, "")
				}
				return
			}
		}
		closing := map[string]string{"{": "}", "[": "]", "(": ")"}[p.text(p.cur())]
		if p.cur().kind != tOp || closing == "" {
			notLiteral(line, "")
			return
		}
		p.i++
		commas := 0
		for !p.isOp(closing) {
			first := p.cur()
			e := p.starNamedExpression()
			switch {
			case p.atFor():
				notLiteral(line, ", not a comprehension")
				return
			case closing == "}" && p.isOp(":"):
				notLiteral(line, ", not a dict")
				return
			}
			n.Items = append(n.Items, NameItem{Value: p.value(e), Line: int(first.line)})
			if !p.isOp(closing) {
				p.expectOp(",")
				commas++
			}
		}
		p.i++
		if closing == ")" && len(n.Items) == 1 && commas == 0 {
			notLiteral(line, ": one element in parentheses is that element, not a tuple")
			return
		}
		if closing == "}" && len(n.Items) == 0 {
			notLiteral(line, ", not a dict")
			return
		}
		if call {
			if p.isOp(",") {
				p.i++
			}
			p.expectOp(")")
		}
		if p.i != len(toks) {
			notLiteral(line, "") // {...} | other, [...][0], ...
		}
	})
	if serr != nil {
		return nil, true, serr
	}
	if derr != nil {
		return nil, ok, derr
	}
	return n, ok, nil
}
