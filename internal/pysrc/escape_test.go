package pysrc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// escapeErrors are literals that CPython's codecs refuse, with the line and
// message CPython 3.11 reports (checked with ast.parse by
// TestEscapeErrors_MatchCPython): the positions count in the buffer
// CPython decodes, where a line break is one byte, a non-ASCII character
// ten and a backslash before one six, and restart with every piece of an
// f-string's text.
var escapeErrors = []struct {
	src  string
	line int
	msg  string
}{
	{"x = '\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = 'ab\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 2-10: unknown Unicode character name"},
	{"x = '\\U00110000'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode character"},
	{"x = 'é\\U00110000'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 10-19: illegal Unicode character"},
	{"x = '\\N{BOGUS'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-7: malformed \\N character escape"},
	{"x = '\\N'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: malformed \\N character escape"},
	{"x = '\\N{}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: malformed \\N character escape"},
	{"x = '\\x4'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-2: truncated \\xXX escape"},
	{"x = '\\u12'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-3: truncated \\uXXXX escape"},
	{"x = '\\U1234'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: truncated \\UXXXXXXXX escape"},
	{"x = f'\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = f'a{1}\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = f'\\U00110000'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-9: illegal Unicode character"},
	{"x = '''\\\nab\\U00110000'''\n", 2, "(unicode error) 'unicodeescape' codec can't decode bytes in position 4-13: illegal Unicode character"},
	{"x = r'a' 'b\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 1-9: unknown Unicode character name"},
	{"x = 'é😀\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 20-28: unknown Unicode character name"},
	{"x = '\\N{LATIN SMALL LETTER A}\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 24-32: unknown Unicode character name"},
	{"x = '\\N{a\"b}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: unknown Unicode character name"},
	{"x = '\\N{é}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-13: unknown Unicode character name"},
	{"x = '\\xg'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \\xXX escape"},
	{"x = '\\é\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 16-24: unknown Unicode character name"},
	{"x = f'{{\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = f'{1:\\N{BOGUS}}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-8: unknown Unicode character name"},
	{"x = b'\\x4'\n", 1, "(value error) invalid \\x escape at position 0"},
	{"x = b'ab\\xg'\n", 1, "(value error) invalid \\x escape at position 2"},
	{"x = b'\\\n\\x4'\n", 2, "(value error) invalid \\x escape at position 2"},
	{"x = '\\\\é\\N{BOGUS}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 12-20: unknown Unicode character name"},
	{"x = '''a\r\nb\\N{BOGUS}'''\n", 2, "(unicode error) 'unicodeescape' codec can't decode bytes in position 3-11: unknown Unicode character name"},
	{"x = 'a\\\r\nb\\N{BOGUS}'\n", 2, "(unicode error) 'unicodeescape' codec can't decode bytes in position 4-12: unknown Unicode character name"},
	{"x = '\\N{a\\}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: unknown Unicode character name"},
	{"x = '\\N{a\\'}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: unknown Unicode character name"},
	{"x = '''\\N{a'''\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-3: malformed \\N character escape"},
	{"x = '''\\N{a'b'''\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-5: malformed \\N character escape"},
	{"x = f'}}\\x'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \\xXX escape"},
	{"x = f'{1}{2}\\u'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \\uXXXX escape"},
	{"x = '\\N{" + strings.Repeat("A", 250) + "}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-253: unknown Unicode character name"},
	{"x = f'\\N{BOGUS'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-7: malformed \\N character escape"},
	{"x = '\\N{\\}'\n", 1, "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-4: unknown Unicode character name"},
}

func TestReadCalls_ReportsEscapeErrorsWithCPythonsPositions(t *testing.T) {
	for _, tt := range escapeErrors {
		_, err := ReadCalls([]byte(tt.src), registerNames)
		var se *SyntaxError
		require.ErrorAs(t, err, &se, "%q", tt.src)
		assert.Equal(t, ErrLiteral, se.Kind, "%q", tt.src)
		assert.Equal(t, tt.line, se.Line, "%q", tt.src)
		assert.Equal(t, tt.msg, se.Msg, "%q", tt.src)
	}
}

// TestEscapeErrors_MatchCPython checks the table above against the
// python3 at hand, message and line.
func TestEscapeErrors_MatchCPython(t *testing.T) {
	inputs := make([][]byte, len(escapeErrors))
	for i, tt := range escapeErrors {
		inputs[i] = []byte(tt.src)
	}
	for i, res := range runOracle(t, inputs) {
		tt := escapeErrors[i]
		assert.Equal(t, fmt.Sprintf("SyntaxError: %s (<unknown>, line %d)", tt.msg, tt.line), res.Error, "%q", tt.src)
	}
}
