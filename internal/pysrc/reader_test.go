package pysrc

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

func strConst(s string) Value {
	return Value{Kind: KindConstant, Node: "Constant", Const: Constant{Type: Str, Str: s}}
}

func other(node string) Value { return Value{Kind: KindOther, Node: node} }

func TestReadCalls_FindsTopLevelCallsOnly(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		lines []int
	}{
		{"plain", "register_cpu_ci(1, 'a')\n", []int{1}},
		{"no final newline", "x = 1\nregister_cpu_ci(1, 'a')", []int{2}},
		{"after semicolons", "x = 1; register_cpu_ci(1, 'a'); register_cpu_ci(2, 'b')\n", []int{1, 1}},
		{"compound header", "if x: register_cpu_ci(1, 'a')\n", nil},
		{"indented", "if x:\n    register_cpu_ci(1, 'a')\n", nil},
		{"after a dedent", "def f():\n    pass\nregister_cpu_ci(1, 'a')\n", []int{3}},
		{"decorator", "@register_cpu_ci(1, 'a')\ndef f(): pass\n", nil},
		{"assignment", "r = register_cpu_ci(1, 'a')\n", nil},
		{"attribute call", "ci.register_cpu_ci(1, 'a')\n", nil},
		{"inside a bigger expression", "register_cpu_ci(1, 'a') or x\nregister_cpu_ci(1, 'a')(2)\n", nil},
		{"tuple", "register_cpu_ci(1, 'a'),\n", nil},
		{"parenthesized call", "(register_cpu_ci(1, 'a'))\n", []int{1}},
		{"parenthesized name", "((register_cpu_ci))(1, 'a')\n", []int{1}},
		{"comment and docstring", "# register_cpu_ci(1, 'a')\n'''\nregister_cpu_ci(1, 'a')\n'''\n", nil},
		{"form feed resets the column", "\fregister_cpu_ci(1, 'a')\n", []int{1}},
		{"lone CR ends a line", "x = 1\rregister_cpu_ci(1, 'a')\r", []int{2}},
		{"CRLF", "x = 1\r\n\r\nregister_cpu_ci(1, 'a')\r\n", []int{3}},
		{"NFKC name", "ｒｅｇｉｓｔｅｒ_cpu_ci(1, 'a')\n", []int{1}},
		{"backslash continuation", "register_cpu_ci \\\n(1, 'a')\n", []int{1}},
		{"other names", "register_gpu_ci(1, 'a')\n", nil},
		{"continuation at column 0 then indented", "if 1:\n  y\n\\\n  register_cpu_ci(5, 's')", nil},
		{"continuation then an indented block", "class A:\n\\\n  x = 1\nregister_cpu_ci(5, 's')", []int{4}},
		{"blanks and a continuation make a blank line", "\n  \\\n\nregister_cpu_ci(5, 's')\n", []int{4}},
		{"the first indented continuation sets the column", "if 1:\n  y\n  \\\n    x\nregister_cpu_ci(5, 's')\n", []int{5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, err := ReadCalls([]byte(tt.src), registerNames)
			require.NoError(t, err)
			var lines []int
			for _, c := range calls {
				assert.Equal(t, "register_cpu_ci", c.Func)
				lines = append(lines, c.Line)
			}
			assert.Equal(t, tt.lines, lines)
		})
	}
}

func TestReadCalls_ReadsArgumentValues(t *testing.T) {
	src := "register_cpu_ci(\n" +
		"    0x1F, (('a' \"b\")),  # comment\n" +
		"    labels=['x', r'\\n', -1, f'y'],\n" +
		"    nightly=True, disabled=None, e=..., f=2.5e1, g=3j, h=b'\\x00\\377',\n" +
		"    i='\\N{BULLET}\\u00e9\\101\\q', j='''a\r\nb''', k=(1, 2), **m)\n"
	calls, err := ReadCalls([]byte(src), registerNames)
	require.NoError(t, err)
	require.Len(t, calls, 1)
	c := calls[0]
	assert.Equal(t, 1, c.Line)
	require.Len(t, c.Args, 2)
	assert.Equal(t, Constant{Type: Int, Int: big.NewInt(31)}, c.Args[0].Value.Const)
	assert.Equal(t, strConst("ab"), withoutSpans(c.Args[1].Value))
	assert.Equal(t, 2, c.Args[1].Line)
	want := []Arg{
		{Name: "labels", Line: 3, Value: Value{Kind: KindList, Node: "List", Elems: []Value{
			strConst("x"), strConst(`\n`), other("UnaryOp"), other("JoinedStr"),
		}}},
		{Name: "nightly", Line: 4, Value: Value{Kind: KindConstant, Node: "Constant", Const: Constant{Type: Bool, Bool: true}}},
		{Name: "disabled", Line: 4, Value: Value{Kind: KindConstant, Node: "Constant", Const: Constant{Type: NoneType}}},
		{Name: "e", Line: 4, Value: Value{Kind: KindConstant, Node: "Constant", Const: Constant{Type: Ellipsis}}},
		{Name: "f", Line: 4, Value: Value{Kind: KindConstant, Node: "Constant", Const: Constant{Type: Float, Float: 25}}},
		{Name: "g", Line: 4, Value: Value{Kind: KindConstant, Node: "Constant", Const: Constant{Type: Complex, Float: 3}}},
		{Name: "h", Line: 4, Value: Value{Kind: KindConstant, Node: "Constant", Const: Constant{Type: Bytes, Str: "\x00\xff"}}},
		{Name: "i", Line: 5, Value: strConst("•é" + "A\\q")},
		{Name: "j", Line: 5, Value: strConst("a\nb")},
		{Name: "k", Line: 6, Value: other("Tuple")}, // the CRLF in j was a line break
		{DoubleStar: true, Line: 6, Value: other("Name")},
	}
	for i := range c.Keywords {
		c.Keywords[i].Value = withoutSpans(c.Keywords[i].Value)
	}
	assert.Equal(t, want, c.Keywords)
}

// withoutSpans returns v with the source spans of its constants zeroed,
// for the tests that compare values alone.
func withoutSpans(v Value) Value {
	v.Start, v.End = 0, 0
	for i := range v.Elems {
		v.Elems[i] = withoutSpans(v.Elems[i])
	}
	return v
}

func TestReadCalls_GivesTheSourceSpanOfEachConstant(t *testing.T) {
	// The spans are what `timings apply` replaces: exactly the literal's
	// tokens, never the parentheses or comments around them. The second
	// call is on a line the quick check hands to the scanner on its own,
	// so its offsets must still count from the start of the file.
	src := "x = 1  # register_cpu_ci(\n\n" +
		"register_cpu_ci(est_time=( 60 ), suite='s',  # c\n" +
		"    labels=['a' 'b'], nightly=True)\n" +
		"register_cpu_ci(1_800.5, \"s\")\n"
	calls, err := ReadCalls([]byte(src), registerNames)
	require.NoError(t, err)
	require.Len(t, calls, 2)
	text := func(v Value) string { return src[v.Start:v.End] }
	kw := calls[0].Keywords
	assert.Equal(t, "60", text(kw[0].Value))
	assert.Equal(t, "'s'", text(kw[1].Value))
	assert.Equal(t, "'a' 'b'", text(kw[2].Value.Elems[0]))
	assert.Equal(t, "True", text(kw[3].Value))
	assert.Equal(t, "1_800.5", text(calls[1].Args[0].Value))
	assert.Equal(t, `"s"`, text(calls[1].Args[1].Value))
}

func TestReadCalls_KeepsLoneSurrogatesInWTF8(t *testing.T) {
	tests := map[string]string{
		`'\ud800'`:          "\xed\xa0\x80",
		`'\udfff'`:          "\xed\xbf\xbf",
		`'\U0000D800'`:      "\xed\xa0\x80",
		`'a\udc80b'`:        "a\xed\xb2\x80b",
		`'\ud83d\ude00'`:    "\xed\xa0\xbd\xed\xb8\x80", // two escapes stay two surrogates
		`'\ud83d' '\ude00'`: "\xed\xa0\xbd\xed\xb8\x80",
		`'\U0001F600'`:      "\U0001F600",
		`b'\ud800'`:         `\ud800`,
	}
	for lit, want := range tests {
		calls, err := ReadCalls([]byte("register_cpu_ci(5, "+lit+")\n"), registerNames)
		require.NoError(t, err, lit)
		require.Len(t, calls, 1, lit)
		assert.Equal(t, want, calls[0].Args[1].Value.Const.Str, lit)
	}
}

func TestReadCalls_NormalizesKeywordNames(t *testing.T) {
	tests := map[string]string{
		"ｌａｂｅｌｓ": "labels", "ｓｕｉｔｅ": "suite", "ｅｓｔ_ｔｉｍｅ": "est_time", "ﬂag": "flag", "ℌ": "H",
		"Ｎｏｎｅ": "None", "labels": "labels", "x": "x",
	}
	for raw, want := range tests {
		calls, err := ReadCalls([]byte("register_cpu_ci(5, 's', "+raw+"=['short'])"), registerNames)
		require.NoError(t, err, raw)
		require.Len(t, calls, 1, raw)
		require.Len(t, calls[0].Keywords, 1, raw)
		assert.Equal(t, want, calls[0].Keywords[0].Name, raw)
	}
}

func TestReadCalls_NamesExpressionKinds(t *testing.T) {
	tests := map[string]string{
		"x": "Name", "a.b": "Attribute", "f()": "Call", "a[0]": "Subscript", "(1, 2)": "Tuple", "()": "Tuple",
		"(x)": "Name", "{1}": "Set", "{}": "Dict", "{1: 2}": "Dict", "-5": "UnaryOp", "not a": "UnaryOp",
		"a + b": "BinOp", "a ** b": "BinOp", "a or b": "BoolOp", "a < b": "Compare", "a if b else c": "IfExp",
		"lambda: 0": "Lambda", "f'a'": "JoinedStr", "'a' f'b'": "JoinedStr", "[x for x in y]": "ListComp",
		"{x for x in y}": "SetComp", "{x: y for x in y}": "DictComp", "(x for x in y)": "GeneratorExp",
		"(x := 1)": "NamedExpr", "await x": "Await", "(yield)": "Yield", "(yield from x)": "YieldFrom",
		"'a'.join(b)": "Call", "(1).real": "Attribute",
	}
	for expr, node := range tests {
		calls, err := ReadCalls([]byte("register_cpu_ci(labels="+expr+")\n"), registerNames)
		require.NoError(t, err, expr)
		require.Len(t, calls, 1, expr)
		assert.Equal(t, node, calls[0].Keywords[0].Value.Node, expr)
	}
}

func TestReadCalls_RefusesWhatPythonRefuses(t *testing.T) {
	tests := []struct {
		src  string
		line int
		kind ErrorKind
		msg  string
	}{
		{"\ufeffregister_cpu_ci(1, 'a')\n", 1, ErrCharacter, "invalid non-printable character U+FEFF"},
		{"x = 1\n\xff\n", 2, ErrEncoding, "'utf-8' codec can't decode byte 0xff in position 6: invalid UTF-8"},
		{"x = 1\n\x00\n", 2, ErrEncoding, "source code string cannot contain null bytes"},
		{"x = 1\x0b\n", 1, ErrCharacter, "invalid non-printable character U+000B"},
		{"a\u00a0= 1\n", 1, ErrCharacter, "invalid non-printable character U+00A0"},
		{"x€ = 1\n", 1, ErrCharacter, "invalid character '€' (U+20AC)"},
		{"  x = 1\n", 1, ErrIndent, "unexpected indent"},
		{"if x:\ny = 1\n", 2, ErrIndent, "expected an indented block"},
		{"if x:\n", 1, ErrIndent, "expected an indented block"},
		{"if x:\n    a = 1\n  b = 2\n", 3, ErrIndent, "unindent does not match any outer indentation level"},
		{"if x:\n\ta = 1\n        b = 2\n", 3, ErrIndent, "inconsistent use of tabs and spaces in indentation"},
		{"x = (\n", 1, ErrUnclosed, "'(' was never closed"},
		{"x = (]\n", 1, ErrBracket, "closing parenthesis ']' does not match opening parenthesis '('"},
		{"x = )\n", 1, ErrBracket, "unmatched ')'"},
		{"x = 'abc\n", 1, ErrUnterminated, "unterminated string literal (detected at line 1)"},
		{"x = f'''abc\n\n", 1, ErrUnterminated, "unterminated triple-quoted f-string literal (detected at line 2)"},
		{"x = 017\n", 1, ErrNumber, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers"},
		{"x = 1__0\n", 1, ErrNumber, "invalid decimal literal"},
		{"x = 0x\n", 1, ErrNumber, "invalid hexadecimal literal"},
		{"x = 0o8\n", 1, ErrNumber, "invalid digit '8' in octal literal"},
		{"x = 1e\n", 1, ErrNumber, "invalid decimal literal"},
		{"x = b'é'\n", 1, ErrLiteral, "bytes can only contain ASCII literal characters"},
		{"x = '\\N{NOT A NAME}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-13: unknown Unicode character name"},
		{"x = '\\N{hangul syllable ga}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-21: unknown Unicode character name"},
		{"x = '\\N{CJK UNIFIED IDEOGRAPH-4e00}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-29: unknown Unicode character name"},
		{"x = '\\N{cjk unified ideograph-4e00}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-29: unknown Unicode character name"},
		{"x = ur'a'\n", 1, ErrGrammar, "invalid syntax"},
		{"x = 1\ny = " + strings.Repeat("1", 4301) + "\nregister_cpu_ci(1, 'a')\n", 2, ErrIntDigits, bigIntMsg(4301)},
		{"x = " + strings.Repeat("1_", 5000) + "1\n", 1, ErrIntDigits, bigIntMsg(5001)},
		{"x = f'{" + strings.Repeat("9", 4301) + "}'\n", 1, ErrIntDigits, "f-string: " + bigIntMsg(4301)},
		{"register_cpu_ci(\n" + strings.Repeat("1", 4301) + ", 'a')\n", 2, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nif x:\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nx = '\\N{foo}'\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nregister_cpu_ci(a=1, 2)\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"register_cpu_ci(a=1, 2)\ny = " + strings.Repeat("1", 4301) + "\n", 1, ErrGrammar, "positional argument follows keyword argument"},
		{"y = " + strings.Repeat("1", 4301) + "\nz = 'abc\n", 2, ErrUnterminated, "unterminated string literal (detected at line 2)"},
		{"x = (\n" + strings.Repeat("1", 4301) + "\n", 1, ErrUnclosed, "'(' was never closed"},
		{"y = " + strings.Repeat("1", 4301) + "\nx = 1__0\n", 2, ErrNumber, "invalid decimal literal"},
		{"y = " + strings.Repeat("1", 4301) + "\nx = )\n", 2, ErrBracket, "unmatched ')'"},
		{"y = " + strings.Repeat("1", 4301) + "\nx€ = 1\n", 2, ErrCharacter, "invalid character '€' (U+20AC)"},
		{"y = " + strings.Repeat("1", 4301) + "\n  x = 1\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nx = b'é'\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nx = f'}'\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nx = 'a' b'b'\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nx = 1 \\ \n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"y = " + strings.Repeat("1", 4301) + "\nx = ur'a'\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"x = (" + strings.Repeat("1", 4301) + "\n", 1, ErrIntDigits, bigIntMsg(4301)},
		{"x = 'a' b'b'\n", 1, ErrLiteral, "cannot mix bytes and nonbytes literals"},
		{"x = f'}'\n", 1, ErrFString, "f-string: single '}' is not allowed"},
		{"x = 1 \\ \n", 1, ErrContinuation, "unexpected character after line continuation character"},
		{"register_cpu_ci(5, 'stage-b-cpu')\\\n", 1, ErrContinuation, "unexpected EOF while parsing"},
		{"register_cpu_ci(5, 's')\n\\\n", 2, ErrContinuation, "unexpected EOF while parsing"},
		{"register_cpu_ci(5, 's')\r\n\\\r\n", 2, ErrContinuation, "unexpected EOF while parsing"},
		{"register_cpu_ci(5, 's')\r\\\r", 2, ErrContinuation, "unexpected EOF while parsing"},
		{"if 1:\n  x\n\\\n", 3, ErrContinuation, "unexpected EOF while parsing"},
		{"if 1: \n\t  \\\n", 2, ErrContinuation, "unexpected EOF while parsing"},
		{"x = (1 \\\n", 1, ErrUnclosed, "'(' was never closed"},
		{"\\\n   register_cpu_ci(5, 's')", 2, ErrIndent, "unexpected indent"},
		{"\\\n  \\\nregister_cpu_ci(5, 's')", 3, ErrIndent, "unexpected indent"},
		{"if 1:\n    y\n  \\\n    x\n", 4, ErrIndent, "unindent does not match any outer indentation level"},
		{"if 1:\n\ty\n\t\\\n\tx\n", 4, ErrIndent, "inconsistent use of tabs and spaces in indentation"},
		{"register_cpu_ci(a=1, 2)\n", 1, ErrGrammar, "positional argument follows keyword argument"},
		{"register_cpu_ci(**a, 2)\n", 1, ErrGrammar, "positional argument follows keyword argument unpacking"},
		{"register_cpu_ci(**k, *a)\n", 1, ErrGrammar, "iterable argument unpacking follows keyword argument unpacking"},
		{"register_cpu_ci(\n1, x for x in y)\n", 2, ErrGrammar, "Generator expression must be parenthesized"},
		{"register_cpu_ci(a.b=1)\n", 1, ErrGrammar, "expression cannot contain assignment, perhaps you meant \"==\"?"},
		{"register_cpu_ci(1, 'a') = 2\n", 1, ErrGrammar, "cannot assign to function call"},
	}
	for _, tt := range tests {
		_, err := ReadCalls([]byte(tt.src), registerNames)
		var se *SyntaxError
		require.True(t, errors.As(err, &se), "%q: %v", tt.src, err)
		assert.Equal(t, tt.line, se.Line, tt.src)
		assert.Equal(t, tt.kind, se.Kind, tt.src)
		assert.Equal(t, tt.msg, se.Msg, tt.src)
	}
}

// TestSettle_DecidesByKind pins that the choice between an over-long
// integer literal's error and a later one depends on the later error's
// kind, never on its message.
func TestSettle_DecidesByKind(t *testing.T) {
	big := &SyntaxError{Line: 2, Kind: ErrIntDigits, Msg: bigIntMsg(4301)}
	tests := []struct {
		name    string
		err     *SyntaxError
		scanner bool // raised by the scanner, not by the grammar of a call
		want    string
	}{
		{"a tokenizer error replaces the literal's", &SyntaxError{Line: 3, Kind: ErrNumber, Msg: "invalid syntax"}, true, "invalid syntax"},
		{"a parser error does not", &SyntaxError{Line: 3, Kind: ErrIndent, Msg: "invalid decimal literal"}, true, bigIntMsg(4301)},
		{"an unclosed bracket from an earlier line wins", &SyntaxError{Line: 1, Kind: ErrUnclosed, Msg: "unmatched ')'"}, true, "unmatched ')'"},
		{"an unclosed bracket on the same line loses", &SyntaxError{Line: 2, Kind: ErrUnclosed, Msg: "unmatched ')'"}, true, bigIntMsg(4301)},
		{"a call's grammar error on a later line loses", &SyntaxError{Line: 3, Kind: ErrGrammar, Msg: "unmatched ')'"}, false, bigIntMsg(4301)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newScanner(nil)
			s.bigInt = big
			if tt.scanner {
				s.err = tt.err
			}
			assert.Equal(t, tt.want, s.settle(tt.err).Msg)
		})
	}
}

func TestReadCalls_NestsAsDeepAsPython(t *testing.T) {
	tests := []struct {
		name, src string
		ok        bool
	}{
		{"1000 unary minus", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("-", 1000) + "1)", true},
		{"1000 not", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("not ", 1000) + "1)", true},
		{"2980 unary minus as a keyword", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("-", 2980) + "1)", true},
		{"2981 unary minus as a positional", "register_cpu_ci(" + strings.Repeat("-", 2981) + "1, 's')", true},
		{"2979 unary minus in a list", "register_cpu_ci(5, 's', labels=[" + strings.Repeat("-", 2979) + "1])", true},
		{"2980 powers", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("a**", 2980) + "1)", true},
		{"3000 unary minus", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("-", 3000) + "1)", false},
		{"100000 powers", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("a**", 100000) + "1)", false},
		{"100000 lambdas", "register_cpu_ci(5, 's', nightly=" + strings.Repeat("lambda: ", 100000) + "1)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, err := ReadCalls([]byte(tt.src), registerNames)
			if tt.ok {
				require.NoError(t, err)
				assert.Len(t, calls, 1)
				return
			}
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, "too many nested expressions", se.Msg)
		})
	}
}

func bigIntMsg(digits int) string {
	return fmt.Sprintf("Exceeds the limit (4300 digits) for integer string conversion: value has %d digits; "+
		"use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge integer literals to avoid decimal conversion limits.", digits)
}

func TestReadCalls_DecodesNumbersLikePython(t *testing.T) {
	tests := map[string]Constant{
		"1_000":       {Type: Int, Int: big.NewInt(1000)},
		"0o17":        {Type: Int, Int: big.NewInt(15)},
		"0b1_01":      {Type: Int, Int: big.NewInt(5)},
		"00":          {Type: Int, Int: big.NewInt(0)},
		".5":          {Type: Float, Float: 0.5},
		"5.":          {Type: Float, Float: 5},
		"1_0.5e-2":    {Type: Float, Float: 0.105},
		"017e1":       {Type: Float, Float: 170},
		"1e400":       {Type: Float, Float: math.Inf(1)},
		"2J":          {Type: Complex, Float: 2},
		"0xFFFFFFFFF": {Type: Int, Int: big.NewInt(0xFFFFFFFFF)},
	}
	for lit, want := range tests {
		calls, err := ReadCalls([]byte("register_cpu_ci("+lit+")\n"), registerNames)
		require.NoError(t, err, lit)
		assert.Equal(t, want, calls[0].Args[0].Value.Const, lit)
	}
}

func TestReadStringDict_ReadsMilesLabels(t *testing.T) {
	src := []byte("\"\"\"Labels.\"\"\"\n\nKNOWN_LABELS: dict[str, str] = {\n" +
		"    \"megatron\": \"Megatron-LM training tests\",\n    'ft-short': 'a' \"b\",  # c\n}\n")
	got, err := ReadStringDict(src, "KNOWN_LABELS")
	require.NoError(t, err)
	assert.Equal(t, []DictEntry{
		{Key: "megatron", Value: "Megatron-LM training tests", Line: 4},
		{Key: "ft-short", Value: "ab", Line: 5},
	}, got)
}

func TestReadStringDict_ReadsTheLabelsOfAMilesCheckout(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testutil.MilesCheckout(t), "tests/ci/labels.py"))
	require.NoError(t, err)
	got, err := ReadStringDict(b, "KNOWN_LABELS")
	require.NoError(t, err)
	assert.Len(t, got, 19)
	assert.Equal(t, "megatron", got[0].Key)
	assert.Equal(t, "amd", got[18].Key)
}

func TestReadStringDict_RefusesOtherShapes(t *testing.T) {
	tests := map[string]string{
		"X = 1\n":                   "shape",
		"Y = {'a': 'b'}\n":          "missing",
		"X = {'a': 1}\n":            "entry",
		"X = {'a': 'b', **c}\n":     "entry",
		"X = {'a', 'b'}\n":          "shape",
		"X = {k: 'b' for k in y}\n": "shape",
		"X = {'a': 'b'} | d\n":      "shape",
		"if x:\n    X = {}\n":       "missing",
		"X = {'a': 'b'\n":           "syntax",
	}
	for src, kind := range tests {
		_, err := ReadStringDict([]byte(src), "X")
		require.Error(t, err, src)
		var de *DictError
		var se *SyntaxError
		switch kind {
		case "syntax":
			assert.True(t, errors.As(err, &se), "%q: %v", src, err)
		case "missing":
			require.True(t, errors.As(err, &de), "%q: %v", src, err)
			assert.Equal(t, 0, de.Line, src)
		default:
			require.True(t, errors.As(err, &de), "%q: %v", src, err)
			assert.Equal(t, 1, de.Line, src)
		}
	}
}

// allocatedBy returns the bytes f allocates. The test calling it must not
// run in parallel with others, whose allocations would count.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A register call nested far past the limit fails as soon as its tokens
// reach the limit: the tokens after that point are scanned, for an error
// of the tokenizer, but not kept. Keeping them cost 16 bytes each, 50 times
// the text for a 16 MiB chain of unary minus signs.
func TestReadCalls_DeepNestingFailsWithoutKeepingTheStatement(t *testing.T) {
	const size = 2 << 20
	for _, tc := range []struct{ name, head, unit, tail, want string }{
		{"unary minus", "register_cpu_ci(", "-", "1, 'a')\n", "line 1: too many nested expressions"},
		{"not", "register_cpu_ci(", "not ", "1, 'a')\n", "line 1: too many nested expressions"},
		{"conditional expressions", "register_cpu_ci(", "1 if 1 else ", "1, 'a')\n", "line 1: too many nested expressions"},
		{"lambdas", "x = 1\nregister_cpu_ci(\n", "lambda: ", "1, 'a')\n", "line 3: too many nested expressions"},
		// A tokenizer error later in the statement still comes first.
		{"then a bad character", "register_cpu_ci(", "-", "1, 'a' $)\n", "line 1: invalid syntax"},
		// Nothing is parsed of a statement that is not a register call.
		{"not a call", "x = ", "-", "1\nregister_cpu_ci(1, 'a')\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.head + strings.Repeat(tc.unit, (size-len(tc.head)-len(tc.tail))/len(tc.unit)) + tc.tail)
			for _, read := range []struct {
				name string
				f    func([]byte, map[string]bool) ([]Call, error)
			}{{"ReadCalls", ReadCalls}, {"scanner", readCalls}} {
				var err error
				n := allocatedBy(func() { _, err = read.f(src, registerNames) })
				if tc.want == "" {
					assert.NoError(t, err, read.name)
				} else {
					assert.EqualError(t, err, tc.want, read.name)
				}
				// Kept, the tokens take 4 to 16 times the text.
				assert.Less(t, n, uint64(len(src)), "%s allocated %d bytes for %d bytes of text", read.name, n, len(src))
			}
		})
	}
}
