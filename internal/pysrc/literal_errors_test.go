package pysrc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// literalErrors are string literals that CPython refuses, with the line,
// kind and message CPython 3.11 reports (checked with ast.parse by
// TestLiteralErrors_MatchCPython). An unterminated string is detected on
// the line of the text's last character. The positions of escape errors
// count in the buffer CPython decodes, where a line break is one byte, a
// non-ASCII character ten and a backslash before one six, and restart with
// every piece of an f-string's text.
var literalErrors = []struct {
	src  string
	line int
	kind ErrorKind
	msg  string
}{
	{"x = '''abc\n\n", 1, ErrUnterminated, "unterminated triple-quoted string literal (detected at line 2)"},
	{"x = '''abc\n", 1, ErrUnterminated, "unterminated triple-quoted string literal (detected at line 1)"},
	{"x = '''abc", 1, ErrUnterminated, "unterminated triple-quoted string literal (detected at line 1)"},
	{"x = '''abc\n\ny", 1, ErrUnterminated, "unterminated triple-quoted string literal (detected at line 3)"},
	{"x = '''a\r\n\r\n", 1, ErrUnterminated, "unterminated triple-quoted string literal (detected at line 2)"},
	{"x = '''a\r\r", 1, ErrUnterminated, "unterminated triple-quoted string literal (detected at line 2)"},
	{"x = 'abc\\\n", 1, ErrUnterminated, "unterminated string literal (detected at line 1)"},
	{"x = '\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = 'ab\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 2-10: unknown Unicode character name"},
	{"x = '\\U00110000'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode character"},
	{"x = 'é\\U00110000'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 10-19: illegal Unicode character"},
	{"x = '\\N{BOGUS'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-7: malformed \\N character escape"},
	{"x = '\\N'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: malformed \\N character escape"},
	{"x = '\\N{}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: malformed \\N character escape"},
	{"x = '\\x4'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape"},
	{"x = '\\u12'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-3: truncated \\uXXXX escape"},
	{"x = '\\U1234'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: truncated \\UXXXXXXXX escape"},
	{"x = f'\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = f'a{1}\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = f'\\U00110000'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode character"},
	{"x = '''\\\nab\\U00110000'''\n", 2, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 4-13: illegal Unicode character"},
	{"x = r'a' 'b\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 1-9: unknown Unicode character name"},
	{"x = 'é😀\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 20-28: unknown Unicode character name"},
	{"x = '\\N{LATIN SMALL LETTER A}\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 24-32: unknown Unicode character name"},
	{"x = '\\N{a\"b}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: unknown Unicode character name"},
	{"x = '\\N{é}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-13: unknown Unicode character name"},
	{"x = '\\xg'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \\xXX escape"},
	{"x = '\\é\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 16-24: unknown Unicode character name"},
	{"x = f'{{\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = f'{1:\\N{BOGUS}}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = b'\\x4'\n", 1, ErrLiteral, "(value error) invalid \\x escape at position 0"},
	{"x = b'ab\\xg'\n", 1, ErrLiteral, "(value error) invalid \\x escape at position 2"},
	{"x = b'\\\n\\x4'\n", 2, ErrLiteral, "(value error) invalid \\x escape at position 2"},
	{"x = '\\\\é\\N{BOGUS}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 12-20: unknown Unicode character name"},
	{"x = '''a\r\nb\\N{BOGUS}'''\n", 2, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 3-11: unknown Unicode character name"},
	{"x = 'a\\\r\nb\\N{BOGUS}'\n", 2, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 4-12: unknown Unicode character name"},
	{"x = '\\N{a\\}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: unknown Unicode character name"},
	{"x = '\\N{a\\'}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: unknown Unicode character name"},
	{"x = '''\\N{a'''\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-3: malformed \\N character escape"},
	{"x = '''\\N{a'b'''\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: malformed \\N character escape"},
	{"x = f'}}\\x'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \\xXX escape"},
	{"x = f'{1}{2}\\u'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \\uXXXX escape"},
	{"x = '\\N{" + strings.Repeat("A", 250) + "}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-253: unknown Unicode character name"},
	{"x = f'\\N{BOGUS'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-7: malformed \\N character escape"},
	{"x = '\\N{\\}'\n", 1, ErrLiteral, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-4: unknown Unicode character name"},
}

func TestReadCalls_ReportsLiteralErrorsAsCPython(t *testing.T) {
	for _, tt := range literalErrors {
		_, err := ReadCalls([]byte(tt.src), registerNames)
		var se *SyntaxError
		require.ErrorAs(t, err, &se, "%q", tt.src)
		assert.Equal(t, tt.kind, se.Kind, "%q", tt.src)
		assert.Equal(t, tt.line, se.Line, "%q", tt.src)
		assert.Equal(t, tt.msg, se.Msg, "%q", tt.src)
	}
}

// TestLiteralErrors_MatchCPython checks the table above against the
// python3 at hand, message and line.
func TestLiteralErrors_MatchCPython(t *testing.T) {
	inputs := make([][]byte, len(literalErrors))
	for i, tt := range literalErrors {
		inputs[i] = []byte(tt.src)
	}
	for i, res := range runOracle(t, inputs) {
		tt := literalErrors[i]
		assert.Equal(t, fmt.Sprintf("SyntaxError: %s (<unknown>, line %d)", tt.msg, tt.line), res.Error, "%q", tt.src)
	}
}
