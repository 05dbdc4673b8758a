package pysrc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// gen builds random Python text from fragments: register calls with random
// argument expressions and literals, placed among statements, blocks,
// comments and strings. Most inputs are valid Python; some are broken on
// purpose, inside calls, where ReadCalls must refuse what CPython refuses.
type gen struct {
	r      *rand.Rand
	strict bool // only expressions valid in any context
}

func (g gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g gen) str() string {
	prefix := g.pick("", "", "r", "u", "R", "b", "rb", "Br", "f", "rf", "F", "ur", "bu")
	quote := g.pick(`"`, `'`, `"""`, `'''`)
	var body strings.Builder
	for n := g.r.IntN(5); n > 0; n-- {
		body.WriteString(g.pick("a", "stage-b", " ", "é", "\\n", "\\x41", "\\x4", "\\u00e9", "\\U0001F600", "\\N{BULLET}",
			"\\N{NOPE}", "\\101", "\\777", "\\q", "\\\\", "\\'", "\\\"", "{x}", "{{", "}}", "{x!r:>3}", "\\\n", "\n", "\r\n", "\t", "#"))
	}
	return prefix + quote + body.String() + quote
}

func (g gen) number() string {
	return g.pick("0", "1", "30", "1_000", "0x1F", "0o17", "0b1", "1.5", ".5", "5.", "1e3", "1_0.5e-2", "2j", "1e400",
		"017", "1__0", "1_", "0x", "1e", "00", "0_0", "99999999999999999999999", "0.1", "1E-3J")
}

func (g gen) expr(depth int) string {
	if depth > 3 {
		return g.pick("x", "1", `"s"`, "None")
	}
	switch g.r.IntN(22) {
	case 0, 1, 2:
		return g.str()
	case 3, 4:
		return g.number()
	case 5:
		return g.pick("True", "False", "None", "...", "x", "a.b", "match", "_")
	case 6:
		return g.str() + " " + g.str()
	case 7:
		return "[" + g.list(depth) + "]"
	case 8:
		return "(" + g.list(depth) + ")"
	case 9:
		return "{" + g.list(depth) + "}"
	case 10:
		return "{" + g.expr(depth+1) + ": " + g.expr(depth+1) + "}"
	case 11:
		return g.pick("-", "+", "~", "not ") + g.operand(depth+1)
	case 12:
		return g.operand(depth+1) + g.pick(" + ", " * ", " ** ", " or ", " and ", " < ", " not in ", " is not ", " | ", " // ", " @ ") + g.operand(depth+1)
	case 13:
		return g.operand(depth+1) + " if " + g.operand(depth+1) + " else " + g.expr(depth+1)
	case 14:
		return "lambda" + g.pick("", " x", " *a, b=1", " x, /, *, y") + ": " + g.expr(depth+1)
	case 15:
		return g.pick("[", "{", "(") + g.expr(depth+1) + " for x in y" + g.pick("", " if z", " for w in v") + g.pick("]", "}", ")")
	case 16:
		return "f(" + g.args(depth+1) + ")"
	case 17:
		return g.operand(depth+1) + g.pick(".real", "[0]", "[1:2]", "()", "[::]")
	case 18:
		return "(" + g.pick("x := 1", "yield", "yield x", g.expr(depth+1)) + ")"
	case 19:
		if g.strict {
			return "await x"
		}
		return g.pick("await x", "*x", "x := 2", "yield")
	case 20:
		return "(" + g.expr(depth+1) + ",)"
	default:
		return "(" + g.expr(depth+1) + ")"
	}
}

// operand is an expression used inside a bigger one; in strict mode it is
// parenthesized, as lambdas and conditional expressions must be there.
func (g gen) operand(depth int) string {
	if g.strict {
		return "(" + g.expr(depth) + ")"
	}
	return g.expr(depth)
}

func (g gen) list(depth int) string {
	var parts []string
	for n := g.r.IntN(4); n > 0; n-- {
		e := g.expr(depth + 1)
		if g.r.IntN(8) == 0 && !g.strict {
			e = "*" + e
		}
		parts = append(parts, e)
	}
	s := strings.Join(parts, ", ")
	if len(parts) > 0 && g.r.IntN(3) == 0 {
		s += ","
	}
	return s
}

func (g gen) args(depth int) string {
	if g.strict {
		return g.strictArgs(depth)
	}
	var parts []string
	for n := g.r.IntN(5); n > 0; n-- {
		switch g.r.IntN(7) {
		case 0, 1, 2:
			parts = append(parts, g.expr(depth))
		case 3, 4:
			parts = append(parts, g.pick("est_time", "suite", "labels", "nightly", "disabled", "x")+"="+g.expr(depth))
		case 5:
			parts = append(parts, g.pick("*", "**")+g.expr(depth+1))
		default:
			parts = append(parts, g.expr(depth)+" for x in y")
		}
	}
	sep := g.pick(", ", ",\n    ", ", # c\n ", ",\\\n")
	s := strings.Join(parts, sep)
	if len(parts) > 0 && g.r.IntN(3) == 0 {
		s += ","
	}
	return s
}

// strictArgs builds a valid argument list: positionals, then keywords.
func (g gen) strictArgs(depth int) string {
	if g.r.IntN(6) == 0 {
		return g.expr(depth) + " for x in y"
	}
	var parts []string
	for n := g.r.IntN(3); n > 0; n-- {
		parts = append(parts, g.expr(depth))
	}
	for n := g.r.IntN(3); n > 0; n-- {
		parts = append(parts, g.pick("est_time", "suite", "labels", "x")+"="+g.expr(depth))
	}
	return strings.Join(parts, g.pick(", ", ",\n    ", ", # c\n "))
}

func (g gen) statement() string {
	name := g.pick("register_cpu_ci", "register_cuda_ci", "register_rocm_ci", "other")
	kind := g.r.IntN(14)
	// Only a top-level register call may hold grammar errors: CPython
	// refuses them anywhere, ReadCalls only there.
	strict := gen{r: g.r, strict: name == "other" || kind <= 2 || kind == 6 || kind == 8}
	call := name + "(" + strict.args(0) + ")"
	switch kind {
	case 0:
		return "x = " + call
	case 1:
		return "if x: " + call
	case 2:
		return "def f():\n    " + call
	case 3:
		return "(" + call + ")"
	case 4:
		return call + "; " + call
	case 5:
		return call + ","
	case 6:
		return "@" + call + "\nclass A: pass"
	case 7:
		return g.str()
	case 8:
		return "# " + call
	case 9:
		return "\f" + call
	default:
		return call
	}
}

func (g gen) file() string {
	var b strings.Builder
	for n := 1 + g.r.IntN(4); n > 0; n-- {
		b.WriteString(g.statement())
		b.WriteString(g.pick("\n", "\n\n", "\r\n", "  # trailing\n"))
	}
	return b.String()
}

func TestReadCalls_MatchesCPythonOnGeneratedFiles(t *testing.T) {
	t.Parallel() // each waits on its own python3
	g := gen{r: rand.New(rand.NewPCG(1, 2))}
	var inputs [][]byte
	for range 3000 {
		inputs = append(inputs, []byte(g.file()))
	}
	bad := differ(t, inputs)
	if len(bad) > 10 {
		bad = bad[:10]
	}
	assert.Empty(t, bad)
}

// indentFile builds lines whose indentation mixes spaces, tabs, form
// feeds and line continuations, among blank and comment-only lines and
// block headers, to check the indentation rules against CPython.
func (g gen) indentFile() string {
	var b strings.Builder
	for n := 1 + g.r.IntN(6); n > 0; n-- {
		for k := g.r.IntN(5); k > 0; k-- {
			b.WriteString(g.pick(" ", "  ", "    ", "\t", "\f", "\\\n", "\\\n", " \\\n", "\t\\\n", "\\\r\n"))
		}
		b.WriteString(g.pick("if x:", "if x:", "class A:", "y", "register_cpu_ci(1, 'a')", "register_cpu_ci(1, 'a')",
			"# c", "", "x = (1,", "2)", "y \\", "\\"))
		b.WriteString(g.pick("\n", "\n", "\n", "\r\n", "\r", "\\\n", " \\\n"))
	}
	if g.r.IntN(4) == 0 {
		b.WriteString(g.pick("\\", "\\\n", " \\\n", "  ", "y"))
	}
	return b.String()
}

func TestReadCalls_MatchesCPythonOnGeneratedIndentation(t *testing.T) {
	t.Parallel() // each waits on its own python3
	g := gen{r: rand.New(rand.NewPCG(3, 4))}
	var inputs [][]byte
	for range 5000 {
		inputs = append(inputs, []byte(g.indentFile()))
	}
	// Joined lines often make grammar errors ("y y"), which ReadCalls
	// need not find (SPEC 2.2); every tokenizer error must match.
	want := runOracle(t, inputs)
	var bad []string
	for i, in := range inputs {
		got := roundTrip(ourResult(in, registerNames))
		if got.Error == "" && strings.HasPrefix(want[i].Error, "SyntaxError: invalid syntax") {
			continue
		}
		if !sameResult(got, want[i]) {
			bad = append(bad, fmt.Sprintf("input %q\n  got  %+v\n  want %+v", in, got, want[i]))
		}
	}
	if len(bad) > 10 {
		bad = bad[:10]
	}
	assert.Empty(t, bad)
}
