package pysrc

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/testutil"
)

// The differential test compares ReadCalls with CPython's own parser on
// many inputs. It needs python3 (see testutil.NeedPython).

// oracleScript prints, for each file named on stdin, the module-level
// bare calls of the register names as JSON, or {"error": ...} when
// ast.parse refuses the file. It reads the file as the reference does
// (text mode, UTF-8).
const oracleScript = `
import ast, json, struct, sys
NAMES = set(sys.argv[1].split(","))
def val(n):
    if isinstance(n, ast.Constant):
        v = n.value
        if isinstance(v, bool): return ["bool", v]
        if v is None: return ["NoneType"]
        if v is Ellipsis: return ["ellipsis"]
        if isinstance(v, int): return ["int", format(v, "x")]  # str() has a digit limit
        if isinstance(v, float): return ["float", struct.pack(">d", v).hex()]
        if isinstance(v, complex): return ["complex", struct.pack(">d", v.imag).hex()]
        if isinstance(v, bytes): return ["bytes", v.hex()]
        try:
            return ["str", v.encode("utf-8").decode("utf-8")]
        except UnicodeEncodeError:
            # Lone surrogates: the bytes the reader keeps them as (WTF-8).
            return ["str-wtf8", v.encode("utf-8", "surrogatepass").hex()]
    if isinstance(n, ast.List):
        return ["List", [val(e) for e in n.elts]]
    return [type(n).__name__]
out = []
for path in sys.stdin.read().split("\n"):
    if not path: continue
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        tree = ast.parse(text)
    except Exception as e:
        out.append({"error": type(e).__name__ + ": " + str(e)})
        continue
    calls = []
    for st in tree.body:
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Call) and isinstance(st.value.func, ast.Name) and st.value.func.id in NAMES:
            c = st.value
            calls.append({"func": c.func.id, "line": c.func.lineno,
                "args": [["*" if isinstance(a, ast.Starred) else "", val(a.value if isinstance(a, ast.Starred) else a)] for a in c.args],
                "kws": [[k.arg if k.arg is not None else "**", val(k.value)] for k in c.keywords]})
    out.append({"calls": calls})
print(json.dumps(out))
`

type oracleCall struct {
	Func string  `json:"func"`
	Line int     `json:"line"`
	Args [][]any `json:"args"`
	Kws  [][]any `json:"kws"`
}

type oracleResult struct {
	Error string       `json:"error,omitempty"`
	Calls []oracleCall `json:"calls"`
}

func valueJSON(v Value) []any {
	switch v.Kind {
	case KindList:
		elems := []any{}
		for _, e := range v.Elems {
			elems = append(elems, valueJSON(e))
		}
		return []any{"List", elems}
	case KindOther:
		return []any{v.Node}
	}
	c := v.Const
	switch c.Type {
	case Bool:
		return []any{"bool", c.Bool}
	case NoneType:
		return []any{"NoneType"}
	case Ellipsis:
		return []any{"ellipsis"}
	case Int:
		return []any{"int", c.Int.Text(16)}
	case Float:
		return []any{"float", fmt.Sprintf("%016x", math.Float64bits(c.Float))}
	case Complex:
		return []any{"complex", fmt.Sprintf("%016x", math.Float64bits(c.Float))}
	case Bytes:
		return []any{"bytes", fmt.Sprintf("%x", c.Str)}
	}
	if !utf8.ValidString(c.Str) {
		return []any{"str-wtf8", fmt.Sprintf("%x", c.Str)}
	}
	return []any{"str", c.Str}
}

func ourResult(src []byte, names map[string]bool) oracleResult {
	calls, err := ReadCalls(src, names)
	if err != nil {
		return oracleResult{Error: err.Error()}
	}
	res := oracleResult{Calls: []oracleCall{}}
	for _, c := range calls {
		oc := oracleCall{Func: c.Func, Line: c.Line, Args: [][]any{}, Kws: [][]any{}}
		for _, a := range c.Args {
			star := ""
			if a.Star {
				star = "*"
			}
			oc.Args = append(oc.Args, []any{star, valueJSON(a.Value)})
		}
		for _, k := range c.Keywords {
			name := k.Name
			if k.DoubleStar {
				name = "**"
			}
			oc.Kws = append(oc.Kws, []any{name, valueJSON(k.Value)})
		}
		res.Calls = append(res.Calls, oc)
	}
	return res
}

var registerNames = map[string]bool{"register_cpu_ci": true, "register_cuda_ci": true, "register_rocm_ci": true}

// runOracle runs CPython over inputs and returns its results.
func runOracle(t *testing.T, inputs [][]byte) []oracleResult {
	t.Helper()
	py := testutil.NeedPython(t)
	dir := t.TempDir()
	var list strings.Builder
	for i, in := range inputs {
		p := filepath.Join(dir, fmt.Sprintf("in%05d.py", i))
		require.NoError(t, os.WriteFile(p, in, 0o644))
		list.WriteString(p + "\n")
	}
	cmd := exec.Command(py, "-W", "ignore", "-c", oracleScript, "register_cpu_ci,register_cuda_ci,register_rocm_ci")
	cmd.Stdin = strings.NewReader(list.String())
	out, err := cmd.Output()
	require.NoError(t, err)
	var res []oracleResult
	require.NoError(t, json.Unmarshal(out, &res))
	require.Len(t, res, len(inputs))
	return res
}

// sameResult compares after a JSON round trip, so both sides have the
// same Go types.
func sameResult(a, b oracleResult) bool {
	if (a.Error != "") != (b.Error != "") {
		return false
	}
	if a.Error != "" {
		return true
	}
	ja, _ := json.Marshal(a.Calls)
	jb, _ := json.Marshal(b.Calls)
	return string(ja) == string(jb)
}

func roundTrip(r oracleResult) oracleResult {
	b, _ := json.Marshal(r)
	var out oracleResult
	_ = json.Unmarshal(b, &out)
	return out
}

// differ returns a description of each input where ReadCalls and CPython
// disagree.
func differ(t *testing.T, inputs [][]byte) []string {
	t.Helper()
	want := runOracle(t, inputs)
	var bad []string
	for i, in := range inputs {
		got := roundTrip(ourResult(in, registerNames))
		if !sameResult(got, want[i]) {
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want[i])
			bad = append(bad, fmt.Sprintf("input %q\n  got  %s\n  want %s", in, g, w))
		}
	}
	return bad
}

func TestReadCalls_MatchesCPythonOnHandWrittenInputs(t *testing.T) {
	t.Parallel() // each waits on its own python3
	inputs := make([][]byte, 0, len(differentialInputs))
	for _, s := range differentialInputs {
		inputs = append(inputs, []byte(s))
	}
	assert.Empty(t, differ(t, inputs))
}

func TestReadCalls_IgnoresGrammarErrorsOutsideCalls(t *testing.T) {
	for _, in := range grammarOnlyInputs {
		_, err := ReadCalls([]byte(in), registerNames)
		assert.NoError(t, err, "%q", in)
	}
}

// TestReadCalls_MatchesCPythonOnMiles reads every Python file of a Miles
// checkout named by MILES_CHECKOUT.
func TestReadCalls_MatchesCPythonOnMiles(t *testing.T) {
	t.Parallel() // each waits on its own python3
	root := testutil.MilesCheckout(t)
	var inputs [][]byte
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".py") {
			b, rerr := os.ReadFile(p)
			require.NoError(t, rerr)
			inputs = append(inputs, b)
		}
		return nil
	}))
	assert.Empty(t, differ(t, inputs))
}
