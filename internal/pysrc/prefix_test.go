package pysrc

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// statementTokens splits src into the token lists of its statements (at
// newlines and top-level semicolons), as readLine hands them to the
// parser; nil when the scanner refuses src.
func statementTokens(src []byte) [][]token {
	s := newScanner(src)
	var out [][]token
	var cur []token
	for {
		t := s.next()
		if s.err != nil {
			return nil
		}
		end := t.kind == tEOF || t.kind == tNewline || t.kind == tOp && src[t.start] == ';' && len(s.stack) == 0
		if !end {
			cur = append(cur, t)
			continue
		}
		if len(cur) > 0 {
			out = append(out, cur)
		}
		cur = nil
		if t.kind == tEOF {
			return out
		}
	}
}

// checkPrefixesDecideAsTheWhole checks, for every statement of src and
// every prefix of its tokens, that a prefix parse that says it decided
// gives what parsing the whole statement gives. Past 256 tokens the
// prefixes are sampled, a sixteenth apart, to keep long inputs quick.
func checkPrefixesDecideAsTheWhole(t *testing.T, src []byte) {
	t.Helper()
	for _, toks := range statementTokens(src) {
		whole, wholeErr := readStatement(src, toks, registerNames)
		for k := 1; k < len(toks); k += max(1, (k-256)/16) {
			call, err, decided := readStatementPrefix(src, toks[:k], registerNames)
			if !decided {
				continue
			}
			if call != nil || fmt.Sprint(err) != fmt.Sprint(wholeErr) || !reflect.DeepEqual(whole, call) {
				t.Fatalf("%q: the first %d of %d tokens decide %+v %v, the statement is %+v %v", src, k, len(toks), call, err, whole, wholeErr)
			}
		}
	}
}

// FuzzStatementPrefix checks the early parse of a long statement's first
// tokens (see readLine) on any input.
func FuzzStatementPrefix(f *testing.F) {
	for _, s := range differentialInputs {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if checkText(src) == nil {
			checkPrefixesDecideAsTheWhole(t, src)
		}
	})
}

func TestReadStatementPrefix_DecidesAsTheWholeStatement(t *testing.T) {
	inputs := append(append([]string{}, differentialInputs...), grammarOnlyInputs...)
	inputs = append(inputs,
		"register_cpu_ci("+strings.Repeat("-", 3000)+"1, 'a')\n",
		"register_cpu_ci(1, 'a') + "+strings.Repeat("-", 3000)+"1\n",
		"register_cpu_ci(1, 'a')"+strings.Repeat("(1)", 20)+"\n",
		"(register_cpu_ci)(1, 'a'"+strings.Repeat(", 'b'", 30)+")\n",
		"x = "+strings.Repeat("'a' ", 30)+"\nregister_cpu_ci('a' 'b', "+strings.Repeat("'c' ", 30)+")\n",
	)
	for _, in := range inputs {
		checkPrefixesDecideAsTheWhole(t, []byte(in))
	}
}
