package pysrc

import "fmt"

// The expression parser reads the tokens of one statement. It follows
// Python's expression grammar closely enough to find argument boundaries,
// to name the AST class of each argument and to refuse the grammar errors
// CPython refuses inside a call; it builds no tree beyond that.

// node is a parsed expression: its AST class name and, for constants and
// lists, what is needed to produce a Value.
type node struct {
	class string
	lo    int // constants: the tokens [lo, hi) of the literal
	hi    int
	elems []node // List: the elements
	// starts holds, for a List that list read, the token each element
	// starts at (simpleList reads only constants, whose lo says it).
	starts []int
}

// maxNesting bounds the recursion of the parser. CPython gives up on
// deeply nested expressions too (RecursionError while building the AST, or
// MemoryError from the parser): under the Python collector a chain of
// unary operators as a register call's argument is accepted up to 2,980
// (keyword) or 2,981 (positional) levels, a list element's up to 2,979.
// This limit accepts all of those, and refuses anything a level or two
// deeper, which Python refuses too; bracketed nesting costs Python more,
// so it crashes before this limit is reached.
const maxNesting = 2983

type parser struct {
	src   []byte
	toks  []token
	i     int
	depth int
	// prefix says toks are the first tokens of a statement whose end is
	// still to come; starved records that the parse asked for a token
	// past them, so that its result may not be the whole statement's.
	prefix, starved bool
}

// bailout carries a syntax error up the recursive descent; it never leaves
// the package (see parser.run).
type bailout struct{ err *SyntaxError }

func (p *parser) run(f func()) (err *SyntaxError) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bailout)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	f()
	return nil
}

func (p *parser) failf(format string, args ...any) {
	t := p.cur()
	panic(bailout{&SyntaxError{Line: int(t.line), Kind: ErrGrammar, Msg: fmt.Sprintf(format, args...)}})
}

func (p *parser) cur() token { return p.at(p.i) }

func (p *parser) at(i int) token {
	if i < len(p.toks) {
		return p.toks[i]
	}
	p.starved = p.starved || p.prefix
	t := token{kind: tEOF}
	if n := len(p.toks); n > 0 {
		t.line = p.toks[n-1].line
	}
	return t
}

// atEnd reports whether the parse has read every token of the statement.
// Of a prefix that is never known.
func (p *parser) atEnd() bool {
	if p.i >= len(p.toks) && p.prefix {
		p.starved = true
	}
	return p.i == len(p.toks)
}

func (p *parser) text(t token) string { return string(p.src[t.start:t.end]) }

// isOp reports whether token i is the operator op.
func (p *parser) isOpAt(i int, op string) bool {
	t := p.at(i)
	return t.kind == tOp && string(p.src[t.start:t.end]) == op
}

func (p *parser) isOp(op string) bool { return p.isOpAt(p.i, op) }

func (p *parser) isKwAt(i int, kw string) bool {
	t := p.at(i)
	return t.kind == tName && string(p.src[t.start:t.end]) == kw
}

func (p *parser) isKw(kw string) bool { return p.isKwAt(p.i, kw) }

func (p *parser) expectOp(op string) {
	if !p.isOp(op) {
		p.failf("invalid syntax (expected '%s')", op)
	}
	p.i++
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxNesting {
		p.failf("too many nested expressions")
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) atFor() bool {
	return p.isKw("for") || p.isKw("async") && p.isKwAt(p.i+1, "for")
}

// expression: lambda, conditional expression, or a disjunction.
func (p *parser) expression() node {
	p.enter()
	defer p.leave()
	if n, ok := p.simpleAtom(); ok {
		return n
	}
	if p.isKw("lambda") {
		return p.lambda()
	}
	n := p.disjunction()
	if p.isKw("if") {
		p.i++
		p.disjunction()
		if !p.isKw("else") {
			p.failf("expected 'else' after 'if' expression")
		}
		p.i++
		p.expression()
		return node{class: "IfExp"}
	}
	return n
}

// simpleAtom reads, without descending through every precedence level, the
// common argument that is one name, number or run of strings followed by
// ',', ')' or ']': no operator can apply to it, so the full descent would
// return the same node from atom. Measured: going through the descent
// instead costs 1.5-2.5% of run --list-only CPU on Miles (2026-12-02);
// kept, as registry's mentionsRegister explains.
func (p *parser) simpleAtom() (node, bool) {
	t := p.cur()
	j := p.i + 1
	class := "Constant"
	switch t.kind {
	case tName:
		switch string(p.src[t.start:t.end]) {
		case "True", "False", "None":
		default:
			return node{}, false // names are rare here, keywords need care
		}
	case tNumber:
	case tOp:
		return p.simpleList()
	case tString:
		for k := p.i; p.at(k).kind == tString; k++ {
			if p.toks[k].flags&fFormat != 0 {
				class = "JoinedStr"
			}
			j = k + 1
		}
	default:
		return node{}, false
	}
	if next := p.at(j); next.kind != tOp || next.end-next.start != 1 {
		return node{}, false
	}
	switch p.src[p.toks[j].start] {
	case ',', ')', ']':
	default:
		return node{}, false
	}
	n := node{class: class, lo: p.i, hi: j}
	p.i = j
	return n, true
}

// simpleList reads, as simpleAtom reads an atom, a list display of simple
// atoms ("[]", "['a', 'b']") followed by ',', ')' or ']': the labels of
// nearly every register call. It gives what list gives; anything else
// leaves the position unchanged.
func (p *parser) simpleList() (node, bool) {
	t := p.cur()
	if t.end-t.start != 1 || p.src[t.start] != '[' {
		return node{}, false
	}
	start := p.i
	p.i++
	n := node{class: "List"}
	for !p.isOp("]") {
		if t := p.cur(); t.kind == tOp {
			p.i = start // a nested display, a star, a stray comma
			return node{}, false
		}
		e, ok := p.simpleAtom()
		if !ok || e.class != "Constant" {
			p.i = start
			return node{}, false
		}
		n.elems = append(n.elems, e)
		if p.isOp(",") {
			p.i++
		} else if !p.isOp("]") {
			p.i = start
			return node{}, false
		}
	}
	if next := p.at(p.i + 1); next.kind != tOp || next.end-next.start != 1 ||
		p.src[next.start] != ',' && p.src[next.start] != ')' && p.src[next.start] != ']' {
		p.i = start
		return node{}, false
	}
	p.i++
	return n, true
}

func (p *parser) lambda() node {
	p.i++
	for !p.isOp(":") {
		switch {
		case p.isOp("*") || p.isOp("**"):
			p.i++
			if t := p.cur(); t.kind == tName && !isKeyword(p.src[t.start:t.end]) {
				p.i++
			}
		case p.isOp("/"):
			p.i++
		case p.cur().kind == tName && !isHardKeyword(p.text(p.cur())):
			p.i++
			if p.isOp("=") {
				p.i++
				p.expression()
			}
		default:
			p.failf("invalid syntax")
		}
		if p.isOp(",") {
			p.i++
		} else if !p.isOp(":") {
			p.failf("invalid syntax")
		}
	}
	p.i++
	p.expression()
	return node{class: "Lambda"}
}

// namedExpression: NAME := expression, or an expression.
func (p *parser) namedExpression() node {
	if t := p.cur(); t.kind == tName && p.isOpAt(p.i+1, ":=") {
		if isHardKeyword(p.text(t)) {
			p.failf("cannot use assignment expressions with %s", p.text(t))
		}
		p.i += 2
		p.expression()
		return node{class: "NamedExpr"}
	}
	n := p.expression()
	if p.isOp(":=") {
		p.failf("cannot use assignment expressions with %s", n.class)
	}
	return n
}

// starNamedExpression: *bitor, or a named expression.
func (p *parser) starNamedExpression() node {
	if p.isOp("*") {
		p.i++
		p.bitOr()
		return node{class: "Starred"}
	}
	return p.namedExpression()
}

func (p *parser) disjunction() node {
	n := p.conjunction()
	for p.isKw("or") {
		p.i++
		p.conjunction()
		n = node{class: "BoolOp"}
	}
	return n
}

func (p *parser) conjunction() node {
	n := p.inversion()
	for p.isKw("and") {
		p.i++
		p.inversion()
		n = node{class: "BoolOp"}
	}
	return n
}

func (p *parser) inversion() node {
	if p.isKw("not") {
		p.enter()
		defer p.leave()
		p.i++
		p.inversion()
		return node{class: "UnaryOp"}
	}
	return p.comparison()
}

func (p *parser) comparison() node {
	n := p.bitOr()
	for {
		switch {
		case p.isOp("==") || p.isOp("!=") || p.isOp("<") || p.isOp(">") || p.isOp("<=") || p.isOp(">=") || p.isKw("in"):
			p.i++
		case p.isKw("not") && p.isKwAt(p.i+1, "in"):
			p.i += 2
		case p.isKw("is"):
			p.i++
			if p.isKw("not") {
				p.i++
			}
		default:
			return n
		}
		p.bitOr()
		n = node{class: "Compare"}
	}
}

// binaryLevels lists the binary operators from the loosest to the
// tightest.
var binaryLevels = [][]string{
	{"|"}, {"^"}, {"&"}, {"<<", ">>"}, {"+", "-"}, {"*", "/", "//", "%", "@"},
}

func (p *parser) bitOr() node { return p.binary(0) }

func (p *parser) binary(level int) node {
	if level == len(binaryLevels) {
		return p.factor()
	}
	n := p.binary(level + 1)
	for {
		t := p.cur()
		if t.kind != tOp {
			return n
		}
		op := p.src[t.start:t.end]
		found := false
		for _, o := range binaryLevels[level] {
			if string(op) == o {
				found = true
				break
			}
		}
		if !found {
			return n
		}
		p.i++
		p.binary(level + 1)
		n = node{class: "BinOp"}
	}
}

func (p *parser) factor() node {
	if p.isOp("+") || p.isOp("-") || p.isOp("~") {
		p.enter()
		defer p.leave()
		p.i++
		p.factor()
		return node{class: "UnaryOp"}
	}
	n := p.primary()
	if p.isOp("**") {
		p.enter()
		defer p.leave()
		p.i++
		p.factor()
		return node{class: "BinOp"}
	}
	return n
}

func (p *parser) primary() node {
	if p.isKw("await") {
		p.i++
		if p.isKw("await") {
			// await applies to a primary, which cannot begin with await.
			p.failf("invalid syntax")
		}
		p.primary()
		return node{class: "Await"}
	}
	n := p.atom()
	for {
		switch {
		case p.isOp("."):
			p.i++
			if t := p.cur(); t.kind != tName || isHardKeyword(p.text(t)) {
				p.failf("invalid syntax")
			}
			p.i++
			n = node{class: "Attribute"}
		case p.isOp("("):
			p.callArgs()
			n = node{class: "Call"}
		case p.isOp("["):
			p.subscript()
			n = node{class: "Subscript"}
		default:
			return n
		}
	}
}

func (p *parser) atom() node {
	t := p.cur()
	switch t.kind {
	case tName:
		switch name := p.text(t); name {
		case "True", "False", "None":
			p.i++
			return node{class: "Constant", lo: p.i - 1, hi: p.i}
		default:
			if isHardKeyword(name) {
				p.failf("invalid syntax")
			}
			p.i++
			return node{class: "Name"}
		}
	case tNumber:
		p.i++
		return node{class: "Constant", lo: p.i - 1, hi: p.i}
	case tString:
		lo := p.i
		class := "Constant"
		for p.cur().kind == tString {
			if p.cur().flags&fFormat != 0 {
				class = "JoinedStr"
			}
			p.i++
		}
		return node{class: class, lo: lo, hi: p.i}
	case tOp:
		switch p.text(t) {
		case "...":
			p.i++
			return node{class: "Constant", lo: p.i - 1, hi: p.i}
		case "(":
			return p.paren()
		case "[":
			return p.list()
		case "{":
			return p.braces()
		}
	}
	p.failf("invalid syntax")
	return node{}
}

func (p *parser) paren() node {
	p.enter()
	defer p.leave()
	p.i++
	if p.isOp(")") {
		p.i++
		return node{class: "Tuple"}
	}
	if p.isKw("yield") {
		n := p.yield()
		p.expectOp(")")
		return n
	}
	first := p.starNamedExpression()
	if p.atFor() {
		if first.class == "Starred" {
			p.failf("iterable unpacking cannot be used in comprehension")
		}
		p.comprehension()
		p.expectOp(")")
		return node{class: "GeneratorExp"}
	}
	if p.isOp(")") {
		if first.class == "Starred" {
			p.failf("cannot use starred expression here")
		}
		p.i++
		return first
	}
	p.expectOp(",")
	for !p.isOp(")") {
		p.starNamedExpression()
		if !p.isOp(")") {
			p.expectOp(",")
		}
	}
	p.i++
	return node{class: "Tuple"}
}

func (p *parser) yield() node {
	p.i++
	if p.isKw("from") {
		p.i++
		p.expression()
		return node{class: "YieldFrom"}
	}
	for !p.isOp(")") {
		p.starNamedExpression()
		if !p.isOp(",") {
			break
		}
		p.i++
	}
	return node{class: "Yield"}
}

func (p *parser) list() node {
	p.enter()
	defer p.leave()
	p.i++
	n := node{class: "List"}
	if p.isOp("]") {
		p.i++
		return n
	}
	n.starts = append(n.starts, p.i)
	first := p.starNamedExpression()
	if p.atFor() {
		if first.class == "Starred" {
			p.failf("iterable unpacking cannot be used in comprehension")
		}
		p.comprehension()
		p.expectOp("]")
		return node{class: "ListComp"}
	}
	n.elems = append(n.elems, first)
	for !p.isOp("]") {
		p.expectOp(",")
		if p.isOp("]") {
			break
		}
		n.starts = append(n.starts, p.i)
		n.elems = append(n.elems, p.starNamedExpression())
	}
	p.i++
	return n
}

// braces reads a dict or set display or comprehension.
func (p *parser) braces() node {
	p.enter()
	defer p.leave()
	p.i++
	if p.isOp("}") {
		p.i++
		return node{class: "Dict"}
	}
	isDict := false
	if p.isOp("**") {
		p.i++
		p.bitOr()
		isDict = true
	} else {
		start := p.i
		first := p.starNamedExpression()
		if first.class != "Starred" && p.isOp(":") {
			if p.isOpAt(start+1, ":=") {
				p.failf("invalid syntax") // a dict key cannot be a bare x := y
			}
			p.i++
			p.expression()
			isDict = true
			if p.atFor() {
				p.comprehension()
				p.expectOp("}")
				return node{class: "DictComp"}
			}
		} else if p.atFor() {
			if first.class == "Starred" {
				p.failf("iterable unpacking cannot be used in comprehension")
			}
			p.comprehension()
			p.expectOp("}")
			return node{class: "SetComp"}
		}
	}
	for !p.isOp("}") {
		p.expectOp(",")
		if p.isOp("}") {
			break
		}
		switch {
		case isDict && p.isOp("**"):
			p.i++
			p.bitOr()
		case isDict:
			p.expression()
			p.expectOp(":")
			p.expression()
		default:
			p.starNamedExpression()
		}
	}
	p.i++
	if isDict {
		return node{class: "Dict"}
	}
	return node{class: "Set"}
}

// comprehension reads the for/if clauses after a comprehension's element.
func (p *parser) comprehension() {
	for p.atFor() {
		if p.isKw("async") {
			p.i++
		}
		p.i++
		for {
			if p.isOp("*") {
				p.i++
			}
			p.bitOr()
			if !p.isOp(",") {
				break
			}
			p.i++
			if p.isKw("in") {
				break
			}
		}
		if !p.isKw("in") {
			p.failf("invalid syntax (expected 'in')")
		}
		p.i++
		p.disjunction()
		for p.isKw("if") {
			p.i++
			p.disjunction()
		}
	}
}

func (p *parser) subscript() {
	p.enter()
	defer p.leave()
	p.i++
	for {
		p.slice()
		if p.isOp("]") {
			break
		}
		p.expectOp(",")
		if p.isOp("]") {
			break
		}
	}
	p.i++
}

func (p *parser) slice() {
	if p.isOp("*") {
		p.i++
		p.bitOr()
		return
	}
	if !p.isOp(":") {
		p.namedExpression()
		if !p.isOp(":") {
			return
		}
	}
	for k := 0; k < 2 && p.isOp(":"); k++ {
		p.i++
		if !p.isOp(":") && !p.isOp(",") && !p.isOp("]") {
			p.expression()
		}
	}
}

// rawArg is one argument as parsed, before its value is decoded.
type rawArg struct {
	name       string
	star       bool
	doubleStar bool
	value      node
	line       int32
}

// callArgs reads a parenthesized argument list and returns its positional
// and keyword arguments, refusing what CPython's grammar refuses.
func (p *parser) callArgs() (args, kws []rawArg) {
	p.enter()
	defer p.leave()
	p.i++
	var sawKw, sawDoubleStar bool
	for n := 0; !p.isOp(")"); n++ {
		t := p.cur()
		switch {
		case p.isOp("*"):
			p.i++
			if sawDoubleStar {
				p.failf("iterable argument unpacking follows keyword argument unpacking")
			}
			v := p.expression()
			args = append(args, rawArg{star: true, value: v, line: t.line})
		case p.isOp("**"):
			p.i++
			v := p.expression()
			kws = append(kws, rawArg{doubleStar: true, value: v, line: t.line})
			sawDoubleStar = true
		case t.kind == tName && p.isOpAt(p.i+1, "="):
			if name := p.text(t); isHardKeyword(name) {
				if name == "True" || name == "False" || name == "None" {
					p.failf("cannot assign to %s", name)
				}
				p.failf("invalid syntax")
			}
			p.i += 2
			v := p.expression()
			// Keyword names are NFKC-normalized, as callee names are.
			name := identName(p.src[t.start:t.end], t.flags&fNonASCII != 0)
			kws = append(kws, rawArg{name: name, value: v, line: t.line})
			sawKw = true
		default:
			v := p.namedExpression()
			if p.atFor() {
				p.comprehension()
				if n > 0 || !p.isOp(")") {
					p.failf("Generator expression must be parenthesized")
				}
				v = node{class: "GeneratorExp"}
			}
			if p.isOp("=") {
				p.failf("expression cannot contain assignment, perhaps you meant \"==\"?")
			}
			if sawDoubleStar {
				p.failf("positional argument follows keyword argument unpacking")
			}
			if sawKw {
				p.failf("positional argument follows keyword argument")
			}
			args = append(args, rawArg{value: v, line: t.line})
		}
		if !p.isOp(")") {
			p.expectOp(",")
		}
	}
	p.i++
	return args, kws
}

// isHardKeyword reports whether name is one of Python's reserved words
// (soft keywords such as match are ordinary names in expressions).
func isHardKeyword(name string) bool {
	switch name {
	case "False", "None", "True", "and", "as", "assert", "async", "await",
		"break", "class", "continue", "def", "del", "elif", "else", "except",
		"finally", "for", "from", "global", "if", "import", "in", "is",
		"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
		"while", "with", "yield":
		return true
	}
	return false
}
