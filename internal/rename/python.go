package rename

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/radixark/miles-ci/internal/pysrc"
)

// A Python file keeps the name as a string literal. The one form rewritten
// is a literal of one token whose text between the quotes is the name
// itself; an implicit concatenation or an escape sequence that makes the
// name is refused, and so is a register call whose suite is an expression
// (an f-string, a variable, a sum), which may name the suite without
// showing it.

// testFile plans the edits of a test file: the suite literal of each
// register call that names the old suite.
func (d *decider) testFile(f File) {
	calls, err := pysrc.ReadCalls(f.Src, d.names)
	if err != nil {
		if bytes.Contains(f.Src, []byte(d.old)) {
			d.refuse(f.Path, syntaxLine(err), "Python cannot read the file (%s), so its register calls cannot be renamed", pyMsg(err))
		}
		return
	}
	var (
		lits  []pysrc.StringLit
		edits []Edit
		bad   bool
	)
	for _, c := range calls {
		v, line, ok := suiteArg(c)
		switch {
		case !ok && unpacked(c):
			d.refuse(f.Path, c.Line, "%s() takes its arguments from *args or **kwargs, which may name the suite; write suite= as a string literal", c.Func)
			bad = true
		case !ok:
			// No suite: the registry reports the file.
		case v.Kind != pysrc.KindConstant:
			d.refuse(f.Path, line, "the suite of %s() is %s, which may name the suite but cannot be renamed in place; write it as a string literal", c.Func, describe(v.Node))
			bad = true
		case v.Const.Type == pysrc.Str && v.Const.Str == d.old:
			if lits == nil {
				if lits, err = pysrc.StringLits(f.Src); err != nil {
					d.refuse(f.Path, syntaxLine(err), "Python cannot read the file (%s)", pyMsg(err))
					return
				}
			}
			e, why := d.literal(f.Src, lits, v.Start, line)
			if why != "" {
				d.refuse(f.Path, line, "the suite of %s() %s", c.Func, why)
				bad = true
				continue
			}
			edits = append(edits, e)
		}
	}
	if bad {
		return
	}
	text := apply(f.Src, edits, d.new)
	if len(edits) > 0 {
		if why := d.callsReadBack(text, calls); why != "" {
			d.refuse(f.Path, edits[0].Line, "the file would read back %s", why)
			return
		}
	}
	d.change(f, edits, text)
}

// pythonCI plans the edits of a Python CI script: every string literal
// whose value is the name.
func (d *decider) pythonCI(f File) {
	lits, err := pysrc.StringLits(f.Src)
	if err != nil {
		d.refuse(f.Path, syntaxLine(err), "Python cannot read the file (%s), so its suite lists cannot be renamed", pyMsg(err))
		return
	}
	var edits []Edit
	bad := false
	for _, l := range lits {
		if l.Format || l.Bytes || l.Value != d.old {
			continue
		}
		e, why := d.literal(f.Src, lits, l.Start, l.Line)
		if why != "" {
			d.refuse(f.Path, l.Line, "the string %s", why)
			bad = true
			continue
		}
		edits = append(edits, e)
	}
	if bad {
		return
	}
	text := apply(f.Src, edits, d.new)
	if len(edits) > 0 {
		after, err := pysrc.StringLits(text)
		if err != nil || len(after) != len(lits) {
			d.refuse(f.Path, edits[0].Line, "the file would not read back as the same strings")
			return
		}
	}
	d.change(f, edits, text)
}

// literal is the edit of the string literal at offset start, whose value
// is the name, or why it cannot be rewritten in place.
func (d *decider) literal(src []byte, lits []pysrc.StringLit, start, line int) (Edit, string) {
	i, found := slices.BinarySearchFunc(lits, start, func(l pysrc.StringLit, at int) int { return l.Start - at })
	switch {
	case !found:
		return Edit{}, "is no string literal of the file"
	case lits[i].Tokens > 1:
		return Edit{}, fmt.Sprintf("is made of %d adjacent string literals; write it as one", lits[i].Tokens)
	case string(src[lits[i].BodyStart:lits[i].BodyEnd]) != d.old:
		return Edit{}, fmt.Sprintf("is written %s, with an escape sequence; write the name plainly", src[lits[i].Start:lits[i].End])
	}
	return Edit{Start: lits[i].BodyStart, End: lits[i].BodyEnd, Line: line}, ""
}

// callsReadBack reads the register calls of text and compares their
// suites with those of calls: the old name must have become the new one,
// and nothing else changed. It returns what differs, or "".
func (d *decider) callsReadBack(text []byte, calls []pysrc.Call) string {
	after, err := pysrc.ReadCalls(text, d.names)
	if err != nil {
		return "as an error: " + pyMsg(err)
	}
	if len(after) != len(calls) {
		return fmt.Sprintf("%d register calls instead of %d", len(after), len(calls))
	}
	for i, c := range calls {
		v, _, _ := suiteArg(c)
		w, _, _ := suiteArg(after[i])
		want := v.Const.Str
		if want == d.old {
			want = d.new
		}
		if w.Const.Type != v.Const.Type || w.Const.Str != want {
			return fmt.Sprintf("suite %q at line %d instead of %q", w.Const.Str, after[i].Line, want)
		}
	}
	return ""
}

// suiteArg is the suite argument of a register call: its second
// positional argument or its suite keyword, with its line.
func suiteArg(c pysrc.Call) (pysrc.Value, int, bool) {
	line := func(a pysrc.Arg) int {
		if a.Line > 0 {
			return a.Line
		}
		return c.Line
	}
	if len(c.Args) > 1 && !c.Args[0].Star && !c.Args[1].Star {
		return c.Args[1].Value, line(c.Args[1]), true
	}
	for _, k := range c.Keywords {
		if k.Name == "suite" {
			return k.Value, line(k), true
		}
	}
	return pysrc.Value{}, 0, false
}

// unpacked reports whether a call takes arguments from *args or **kwargs.
func unpacked(c pysrc.Call) bool {
	for _, a := range c.Args {
		if a.Star {
			return true
		}
	}
	for _, k := range c.Keywords {
		if k.DoubleStar {
			return true
		}
	}
	return false
}

// describe names an expression by its AST class for a person.
func describe(node string) string {
	switch node {
	case "JoinedStr":
		return "an f-string"
	case "Name":
		return "a variable"
	case "Call":
		return "a call"
	}
	return "an expression (" + node + ")"
}

// pyMsg is the message of a reading error, without its line.
func pyMsg(err error) string {
	var se *pysrc.SyntaxError
	if errors.As(err, &se) {
		return oneLine(se.Msg)
	}
	return oneLine(err.Error())
}

// syntaxLine is the line of a *pysrc.SyntaxError, or 0.
func syntaxLine(err error) int {
	var se *pysrc.SyntaxError
	if errors.As(err, &se) {
		return se.Line
	}
	return 0
}
