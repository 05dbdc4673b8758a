// Package pysrc reads Python source text the way CPython's tokenizer does and
// returns the module-level register calls it holds, with their literal
// arguments. It never runs Python and never imports anything of miles-ci.
package pysrc

import (
	"fmt"
	"math/big"
)

// SyntaxError is a place where Python would refuse the file. Msg is
// CPython's message; Kind says what kind of mistake it is.
type SyntaxError struct {
	Line int // 1-based
	Kind ErrorKind
	Msg  string
}

// ErrorKind classifies a SyntaxError by what is wrong. CPython finds some
// kinds while it tokenizes and others only while it parses, which decides
// which of two errors it reports (see scanner.settle).
type ErrorKind uint8

// The error kinds.
const (
	// ErrGrammar: the parser's rules, "invalid syntax" among them.
	ErrGrammar ErrorKind = iota
	// ErrEncoding: the text is not UTF-8 or holds a NUL byte.
	ErrEncoding
	// ErrCharacter: a character that cannot start or continue a token.
	ErrCharacter
	// ErrNumber: a malformed number literal.
	ErrNumber
	// ErrIntDigits: a decimal integer literal with more digits than
	// Python converts.
	ErrIntDigits
	// ErrUnterminated: a string literal that the text ends inside.
	ErrUnterminated
	// ErrLiteral: a string or bytes literal that does not decode (an
	// escape, non-ASCII bytes), or bytes next to str.
	ErrLiteral
	// ErrFString: the inside of an f-string, or f-strings nested too deep.
	ErrFString
	// ErrBracket: an unmatched or mismatched bracket, or brackets nested
	// too deep.
	ErrBracket
	// ErrUnclosed: a bracket still open at the end of the text.
	ErrUnclosed
	// ErrIndent: indentation that opens no block, closes to no level, is
	// missing after a block header, mixes tabs and spaces, or is too deep.
	ErrIndent
	// ErrContinuation: a backslash continuation followed by something
	// other than a line break, or by the end of the text.
	ErrContinuation
)

func (k ErrorKind) String() string {
	return [...]string{"grammar", "encoding", "character", "number", "int-digits", "unterminated",
		"literal", "f-string", "bracket", "unclosed", "indent", "continuation"}[k]
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// ConstType is the Python type of a constant.
type ConstType int

// The constant types; String returns the Python type name.
const (
	Str ConstType = iota
	Bytes
	Int
	Float
	Complex
	Bool
	NoneType
	Ellipsis
)

func (t ConstType) String() string {
	return [...]string{"str", "bytes", "int", "float", "complex", "bool", "NoneType", "ellipsis"}[t]
}

// Constant is the value of an ast.Constant.
type Constant struct {
	Type  ConstType
	Str   string   // Str: the decoded text; Bytes: the decoded bytes
	Int   *big.Int // Int
	Float float64  // Float; Complex: the imaginary part
	Bool  bool     // Bool
}

// ValueKind says what an argument expression is.
type ValueKind int

// Value kinds.
const (
	KindConstant ValueKind = iota // a single ast.Constant (after concatenation, parentheses)
	KindList                      // an ast.List display
	KindOther                     // any other expression
)

// Value is an argument expression as far as the registry needs to see it.
type Value struct {
	Kind ValueKind
	// Node is the Python AST class name: "Constant", "List", "Name",
	// "Attribute", "Call", "Tuple", "Set", "Dict", "BinOp", "UnaryOp",
	// "Subscript", "JoinedStr", "ListComp", ...
	Node  string
	Const Constant // when Kind == KindConstant
	Elems []Value  // when Kind == KindList
	// Start and End are, when Kind == KindConstant, the byte offsets in
	// the source of the literal's tokens [Start, End): the one token of a
	// number, or the first to the last string of a concatenation, without
	// any parentheses around them. `timings apply` replaces an est_time
	// number there and nothing else.
	Start, End int
}

// Arg is one argument of a call: positional (Name == ""), starred (*x),
// keyword (Name set) or double-starred (**x).
type Arg struct {
	Name       string
	Star       bool // *x among positionals
	DoubleStar bool // **x among keywords
	Value      Value
	Line       int
}

// Call is one module-level register call.
type Call struct {
	Func     string // the callee name, NFKC-normalized
	Line     int    // line of the callee name
	Args     []Arg  // positional and starred arguments, in source order
	Keywords []Arg  // keyword and ** arguments, in source order
}

// DictEntry is one `"key": "value"` pair of a string dict literal.
type DictEntry struct {
	Key, Value string
	Line       int
}
