package registry

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pysrc"
)

// Hand-built argument values, so the rules are tested without the reader.

func intV(i int64) pysrc.Value {
	return pysrc.Value{Kind: pysrc.KindConstant, Node: "Constant", Const: pysrc.Constant{Type: pysrc.Int, Int: big.NewInt(i)}}
}

func bigIntV(digits string) pysrc.Value {
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		panic("bad test integer " + digits)
	}
	return pysrc.Value{Kind: pysrc.KindConstant, Node: "Constant", Const: pysrc.Constant{Type: pysrc.Int, Int: n}}
}

func floatV(f float64) pysrc.Value {
	return pysrc.Value{Kind: pysrc.KindConstant, Node: "Constant", Const: pysrc.Constant{Type: pysrc.Float, Float: f}}
}

func boolV(b bool) pysrc.Value {
	return pysrc.Value{Kind: pysrc.KindConstant, Node: "Constant", Const: pysrc.Constant{Type: pysrc.Bool, Bool: b}}
}

func strV(s string) pysrc.Value {
	return pysrc.Value{Kind: pysrc.KindConstant, Node: "Constant", Const: pysrc.Constant{Type: pysrc.Str, Str: s}}
}

func constV(t pysrc.ConstType) pysrc.Value {
	return pysrc.Value{Kind: pysrc.KindConstant, Node: "Constant", Const: pysrc.Constant{Type: t}}
}

func noneV() pysrc.Value { return constV(pysrc.NoneType) }

func listV(elems ...pysrc.Value) pysrc.Value {
	return pysrc.Value{Kind: pysrc.KindList, Node: "List", Elems: elems}
}

func strsV(items ...string) pysrc.Value {
	var out []pysrc.Value
	for _, s := range items {
		out = append(out, strV(s))
	}
	return listV(out...)
}

func otherV(node string) pysrc.Value { return pysrc.Value{Kind: pysrc.KindOther, Node: node} }

func pos(v pysrc.Value) pysrc.Arg          { return pysrc.Arg{Value: v, Line: 3} }
func star(v pysrc.Value) pysrc.Arg         { return pysrc.Arg{Star: true, Value: v, Line: 3} }
func kw(n string, v pysrc.Value) pysrc.Arg { return pysrc.Arg{Name: n, Value: v, Line: 3} }
func dstar(v pysrc.Value) pysrc.Arg        { return pysrc.Arg{DoubleStar: true, Value: v, Line: 3} }

func call(fn string, args []pysrc.Arg, kws ...pysrc.Arg) pysrc.Call {
	return pysrc.Call{Func: fn, Line: 3, Args: args, Keywords: kws}
}

func args(a ...pysrc.Arg) []pysrc.Arg { return a }

const allLabelsSorted = "amd, ckpt, eval, fsdp, ft-long, ft-short, fully-async, long, lora, megatron, miles-plugin, model-scripts, mooncake, precision, qwen35, replay, sglang, short, weight-update"

func TestCheck_ArgumentErrorsHaveThePythonMessages(t *testing.T) {
	cpu, cuda, rocm := "register_cpu_ci", "register_cuda_ci", "register_rocm_ci"
	ok2 := args(pos(intV(10)), pos(strV("stage-b-cpu")))
	cases := []struct {
		name string
		call pysrc.Call
		want string
	}{
		{"starred", call(cpu, args(star(otherV("Name")))),
			"starred arguments are not supported in register_cpu_ci()"},
		{"starred after positional", call(cpu, args(pos(intV(1)), star(otherV("Name")))),
			"starred arguments are not supported in register_cpu_ci()"},
		{"starred beats too many", call(cpu, args(pos(intV(1)), pos(strV("s")), pos(intV(3)), star(otherV("Name")))),
			"starred arguments are not supported in register_cpu_ci()"},
		{"too many positionals", call(cpu, args(pos(intV(1)), pos(strV("s")), pos(strsV("fsdp")))),
			"too many positional arguments in register_cpu_ci(); only ['est_time', 'suite'] may be positional (labels and later are keyword-only)"},
		{"too many beats non-literal", call(cuda, args(pos(otherV("Name")), pos(strV("s")), pos(intV(3)))),
			"too many positional arguments in register_cuda_ci(); only ['est_time', 'suite'] may be positional (labels and later are keyword-only)"},
		{"positional est non-literal", call(cpu, args(pos(otherV("BinOp")), pos(strV("s")))),
			"est_time in register_cpu_ci() must be a literal constant"},
		{"positional suite non-literal", call(cpu, args(pos(intV(1)), pos(otherV("JoinedStr")))),
			"suite in register_cpu_ci() must be a literal constant"},
		{"positional list is not a constant", call(cpu, args(pos(listV(intV(1))), pos(strV("s")))),
			"est_time in register_cpu_ci() must be a literal constant"},
		{"positional beats keyword errors", call(cpu, args(pos(otherV("Name"))), dstar(otherV("Name"))),
			"est_time in register_cpu_ci() must be a literal constant"},
		{"kwargs", call(cpu, ok2, dstar(otherV("Name"))),
			"**kwargs are not supported in register_cpu_ci()"},
		{"duplicated positional then keyword", call(cpu, ok2, kw("est_time", intV(2))),
			"duplicated argument 'est_time' in register_cpu_ci()"},
		{"duplicated keyword keyword", call(cpu, nil, kw("suite", strV("a")), kw("suite", strV("b"))),
			"duplicated argument 'suite' in register_cpu_ci()"},
		{"duplicated labels", call(cpu, ok2, kw("labels", noneV()), kw("labels", noneV())),
			"duplicated argument 'labels' in register_cpu_ci()"},
		{"duplicated checked before a later unknown", call(cpu, ok2, kw("nightly", boolV(true)), kw("nightly", boolV(true)), kw("bogus", intV(1))),
			"duplicated argument 'nightly' in register_cpu_ci()"},
		{"unknown before a later duplicate", call(cpu, ok2, kw("bogus", intV(1)), kw("suite", strV("x"))),
			"unknown argument 'bogus' in register_cpu_ci()"},
		{"unknown keyword", call(rocm, ok2, kw("timeout", intV(5))),
			"unknown argument 'timeout' in register_rocm_ci()"},
		{"labels a string", call(cpu, ok2, kw("labels", strV("fsdp"))),
			"labels in register_cpu_ci() must be a list of string literals or None (got Constant)"},
		{"labels a tuple", call(cpu, ok2, kw("labels", otherV("Tuple"))),
			"labels in register_cpu_ci() must be a list of string literals or None (got Tuple)"},
		{"labels a set", call(cpu, ok2, kw("labels", otherV("Set"))),
			"labels in register_cpu_ci() must be a list of string literals or None (got Set)"},
		{"labels a comprehension", call(cpu, ok2, kw("labels", otherV("ListComp"))),
			"labels in register_cpu_ci() must be a list of string literals or None (got ListComp)"},
		{"labels element a name", call(cpu, ok2, kw("labels", listV(strV("fsdp"), otherV("Name")))),
			"labels in register_cpu_ci() must be a list of string literals (non-literal element)"},
		{"labels element an int", call(cpu, ok2, kw("labels", listV(intV(1)))),
			"labels in register_cpu_ci() must be a list of string literals (got int element)"},
		{"labels element None", call(cpu, ok2, kw("labels", listV(noneV()))),
			"labels in register_cpu_ci() must be a list of string literals (got NoneType element)"},
		{"labels element bytes", call(cpu, ok2, kw("labels", listV(constV(pysrc.Bytes)))),
			"labels in register_cpu_ci() must be a list of string literals (got bytes element)"},
		{"labels element bool", call(cpu, ok2, kw("labels", listV(boolV(true)))),
			"labels in register_cpu_ci() must be a list of string literals (got bool element)"},
		{"labels element ellipsis", call(cpu, ok2, kw("labels", listV(constV(pysrc.Ellipsis)))),
			"labels in register_cpu_ci() must be a list of string literals (got ellipsis element)"},
		{"labels element complex", call(cpu, ok2, kw("labels", listV(constV(pysrc.Complex)))),
			"labels in register_cpu_ci() must be a list of string literals (got complex element)"},
		{"labels element float", call(cpu, ok2, kw("labels", listV(floatV(1)))),
			"labels in register_cpu_ci() must be a list of string literals (got float element)"},
		{"labels kind beats later keywords", call(cpu, ok2, kw("labels", otherV("Call")), kw("bogus", intV(1))),
			"labels in register_cpu_ci() must be a list of string literals or None (got Call)"},
		{"nightly non-literal", call(cpu, ok2, kw("nightly", otherV("Name"))),
			"nightly in register_cpu_ci() must be a literal constant"},
		{"disabled non-literal", call(cpu, ok2, kw("disabled", otherV("JoinedStr"))),
			"disabled in register_cpu_ci() must be a literal constant"},
		{"keyword est non-literal", call(cpu, nil, kw("est_time", otherV("UnaryOp")), kw("suite", strV("s"))),
			"est_time in register_cpu_ci() must be a literal constant"},
		{"empty call", call(cpu, nil),
			"est_time is required in register_cpu_ci()"},
		{"est missing", call(cpu, nil, kw("suite", strV("s"))),
			"est_time is required in register_cpu_ci()"},
		{"missing est beats suite type", call(cpu, nil, kw("suite", intV(1))),
			"est_time is required in register_cpu_ci()"},
		{"suite missing", call(cpu, args(pos(intV(1)))),
			"suite is required in register_cpu_ci()"},
		{"est a string", call(cpu, args(pos(strV("10")), pos(strV("s")))),
			"est_time must be a number in register_cpu_ci()"},
		{"est None", call(cpu, args(pos(noneV()), pos(strV("s")))),
			"est_time must be a number in register_cpu_ci()"},
		{"est complex", call(cpu, args(pos(constV(pysrc.Complex)), pos(strV("s")))),
			"est_time must be a number in register_cpu_ci()"},
		{"est ellipsis", call(cpu, args(pos(constV(pysrc.Ellipsis)), pos(strV("s")))),
			"est_time must be a number in register_cpu_ci()"},
		{"est type beats suite type", call(cpu, args(pos(strV("x")), pos(intV(1)))),
			"est_time must be a number in register_cpu_ci()"},
		{"suite an int", call(cpu, args(pos(intV(1)), pos(intV(2)))),
			"suite must be a string in register_cpu_ci()"},
		{"suite bytes", call(cpu, args(pos(intV(1)), pos(constV(pysrc.Bytes)))),
			"suite must be a string in register_cpu_ci()"},
		{"cuda without labels", call(cuda, args(pos(intV(1)), pos(strV("stage-c-8-gpu-h100")))),
			"labels in register_cuda_ci() must contain at least one domain label"},
		{"cuda labels None", call(cuda, args(pos(intV(1)), pos(strV("s"))), kw("labels", noneV())),
			"labels in register_cuda_ci() must contain at least one domain label"},
		{"rocm labels empty", call(rocm, args(pos(intV(1)), pos(strV("s"))), kw("labels", listV())),
			"labels in register_rocm_ci() must contain at least one domain label"},
		{"empty labels beat nightly", call(cuda, args(pos(intV(1)), pos(strV("s"))), kw("nightly", intV(1))),
			"labels in register_cuda_ci() must contain at least one domain label"},
		{"nightly an int", call(cpu, ok2, kw("nightly", intV(1))),
			"nightly must be a boolean in register_cpu_ci()"},
		{"nightly a string", call(cpu, ok2, kw("nightly", strV("yes"))),
			"nightly must be a boolean in register_cpu_ci()"},
		{"nightly None", call(cpu, ok2, kw("nightly", noneV())),
			"nightly must be a boolean in register_cpu_ci()"},
		{"nightly beats disabled", call(cpu, ok2, kw("disabled", intV(1)), kw("nightly", intV(1))),
			"nightly must be a boolean in register_cpu_ci()"},
		{"disabled False", call(cpu, ok2, kw("disabled", boolV(false))),
			"disabled must be a string or None in register_cpu_ci()"},
		{"disabled an int", call(cpu, ok2, kw("disabled", intV(0))),
			"disabled must be a string or None in register_cpu_ci()"},
		{"nightly beats unknown labels", call(cpu, ok2, kw("labels", strsV("nope")), kw("nightly", strV("x"))),
			"nightly must be a boolean in register_cpu_ci()"},
		{"unknown label", call(cuda, args(pos(intV(1)), pos(strV("s"))), kw("labels", strsV("fsdp", "typo"))),
			"unknown labels ['typo'] in register_cuda_ci(); valid labels: [" + allLabelsSorted + "]. To add a new label: edit tests/ci/labels.py + create matching `run-ci-<label>` in GitHub repo Settings -> Labels."},
		{"unknown labels in order with duplicates and repr quoting", call(cpu, ok2, kw("labels", strsV("zz", "fsdp", "it's", "zz"))),
			"unknown labels ['zz', \"it's\", 'zz'] in register_cpu_ci(); valid labels: [" + allLabelsSorted + "]. To add a new label: edit tests/ci/labels.py + create matching `run-ci-<label>` in GitHub repo Settings -> Labels."},
		{"est too large for a float", call(cpu, args(pos(bigIntV("1"+strings.Repeat("0", 400))), pos(strV("s")))),
			"est_time in register_cpu_ci() is too large to convert to a float"},
		{"unknown labels beat an est overflow", call(cpu, args(pos(bigIntV("1"+strings.Repeat("0", 400))), pos(strV("s"))), kw("labels", strsV("nope"))),
			"unknown labels ['nope'] in register_cpu_ci(); valid labels: [" + allLabelsSorted + "]. To add a new label: edit tests/ci/labels.py + create matching `run-ci-<label>` in GitHub repo Settings -> Labels."},
	}
	cfg := config.Default()
	// As on Miles, where tests/ci/labels.py holds the labels: the message is
	// then the Python collector's, byte for byte.
	cfg.LabelsFromFile = true
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &callChecker{cfg: cfg, file: "tests/e2e/test_x.py"}
			_, err := c.check(tc.call)
			require.NotNil(t, err)
			assert.Equal(t, "tests/e2e/test_x.py: "+tc.want, err.Msg)
			assert.Equal(t, "tests/e2e/test_x.py", err.File)
			assert.Equal(t, 3, err.Line)
		})
	}
}

func TestCheck_ValidCallsBecomeRegistrations(t *testing.T) {
	reason := func(s string) *string { return &s }
	cases := []struct {
		name string
		call pysrc.Call
		want Registration
	}{
		{"positional cpu", call("register_cpu_ci", args(pos(intV(10)), pos(strV("stage-b-cpu")))),
			Registration{Backend: config.CPU, Suite: "stage-b-cpu", EstTime: 10, Labels: []string{}}},
		{"keywords in any order", call("register_cuda_ci", nil, kw("labels", strsV("fsdp", "fsdp")), kw("suite", strV("s")), kw("est_time", floatV(1.5)), kw("nightly", boolV(true)), kw("disabled", strV("flaky"))),
			Registration{Backend: config.CUDA, Suite: "s", EstTime: 1.5, Labels: []string{"fsdp", "fsdp"}, Nightly: true, Disabled: reason("flaky")}},
		{"bool est True is 1.0", call("register_cpu_ci", args(pos(boolV(true)), pos(strV("s")))),
			Registration{Backend: config.CPU, Suite: "s", EstTime: 1, Labels: []string{}}},
		{"bool est False is 0.0", call("register_cpu_ci", args(pos(boolV(false)), pos(strV("s")))),
			Registration{Backend: config.CPU, Suite: "s", EstTime: 0, Labels: []string{}}},
		{"big int rounds like Python", call("register_cpu_ci", args(pos(bigIntV("9007199254740993")), pos(strV("s")))),
			Registration{Backend: config.CPU, Suite: "s", EstTime: 9007199254740992, Labels: []string{}}},
		{"labels None and disabled None", call("register_cpu_ci", args(pos(intV(1)), pos(strV("s"))), kw("labels", noneV()), kw("disabled", noneV()), kw("nightly", boolV(false))),
			Registration{Backend: config.CPU, Suite: "s", EstTime: 1, Labels: []string{}}},
		{"empty disabled string disables", call("register_rocm_ci", args(pos(intV(1)), pos(strV("s"))), kw("labels", strsV("amd")), kw("disabled", strV(""))),
			Registration{Backend: config.ROCM, Suite: "s", EstTime: 1, Labels: []string{"amd"}, Disabled: reason("")}},
		{"suite outside the roster is accepted", call("register_cpu_ci", args(pos(intV(1)), pos(strV("no-such-suite")))),
			Registration{Backend: config.CPU, Suite: "no-such-suite", EstTime: 1, Labels: []string{}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &callChecker{cfg: config.Default(), file: "tests/e2e/test_x.py"}
			got, err := c.check(tc.call)
			require.Nil(t, err)
			tc.want.File, tc.want.Line = "tests/e2e/test_x.py", 3
			assert.Equal(t, tc.want, got)
			assert.NotNil(t, got.Labels)
		})
	}
}

func TestCheckCalls_FirstFailingCallOfTheFileWins(t *testing.T) {
	calls := []pysrc.Call{
		call("register_cpu_ci", args(pos(intV(1)), pos(strV("s")))),
		call("register_cpu_ci", args(pos(intV(1)))),
		call("register_cpu_ci", nil),
	}
	calls[1].Line, calls[2].Line = 7, 9
	_, err := checkCalls("tests/e2e/test_x.py", calls, nil, config.Default())
	require.NotNil(t, err)
	assert.Equal(t, "tests/e2e/test_x.py: suite is required in register_cpu_ci()", err.Msg)
	assert.Equal(t, 7, err.Line)
}

func TestCheckCalls_PerFileRules(t *testing.T) {
	cpuCall := call("register_cpu_ci", args(pos(intV(5)), pos(strV("stage-b-cpu"))))
	cudaCall := call("register_cuda_ci", args(pos(intV(5)), pos(strV("stage-b-2-gpu-h200"))), kw("labels", strsV("fsdp")))
	rocmCall := call("register_rocm_ci", args(pos(intV(5)), pos(strV("stage-c-4-gpu-mi350"))), kw("labels", strsV("amd")))
	cases := []struct {
		name    string
		file    string
		calls   []pysrc.Call
		src     string
		wantErr string
		want    []Registration
	}{
		{name: "cuda in fast is forbidden", file: "tests/fast/test_a.py", calls: []pysrc.Call{cpuCall, cudaCall},
			wantErr: "tests/fast/test_a.py: register_cuda_ci is forbidden in tests/fast/; move the file to tests/fast-gpu/ instead"},
		{name: "rocm in fast gets the same message", file: "tests/fast/sub/test_a.py", calls: []pysrc.Call{rocmCall},
			wantErr: "tests/fast/sub/test_a.py: register_cuda_ci is forbidden in tests/fast/; move the file to tests/fast-gpu/ instead"},
		{name: "argument errors come before the forbidden check", file: "tests/fast/test_a.py", calls: []pysrc.Call{cudaCall, call("register_cpu_ci", nil)},
			wantErr: "tests/fast/test_a.py: est_time is required in register_cpu_ci()"},
		{name: "textual cpu mention without a call", file: "tests/fast/test_a.py", src: "# see register_cpu_ci\n",
			wantErr: "tests/fast/test_a.py: file mentions register_cpu_ci or register_cuda_ci textually but no top-level call was parsed; check for aliased import, non-toplevel call, or attribute access"},
		{name: "textual cuda mention in a string", file: "tests/fast/test_a.py", src: "x = 'register_cuda_ci('\n",
			wantErr: "tests/fast/test_a.py: file mentions register_cpu_ci or register_cuda_ci textually but no top-level call was parsed; check for aliased import, non-toplevel call, or attribute access"},
		{name: "a rocm mention alone is implicit", file: "tests/fast/test_a.py", src: "# register_rocm_ci\n",
			want: []Registration{{File: "tests/fast/test_a.py", Backend: config.CPU, Suite: "stage-a-cpu", EstTime: 1, Labels: []string{}, Implicit: true}}},
		{name: "an empty fast file is implicit", file: "tests/fast/test_a.py",
			want: []Registration{{File: "tests/fast/test_a.py", Backend: config.CPU, Suite: "stage-a-cpu", EstTime: 1, Labels: []string{}, Implicit: true}}},
		{name: "explicit cpu in fast is kept", file: "tests/fast/test_a.py", calls: []pysrc.Call{cpuCall, cpuCall}, src: "register_cpu_ci",
			want: []Registration{
				{File: "tests/fast/test_a.py", Backend: config.CPU, Suite: "stage-b-cpu", EstTime: 5, Labels: []string{}, Line: 3},
				{File: "tests/fast/test_a.py", Backend: config.CPU, Suite: "stage-b-cpu", EstTime: 5, Labels: []string{}, Line: 3}}},
		{name: "fast-gpu is not the implicit root", file: "tests/fast-gpu/test_a.py",
			wantErr: "No CI registry found in tests/fast-gpu/test_a.py"},
		{name: "e2e without a call", file: "tests/e2e/test_a.py", src: "register_cpu_ci",
			wantErr: "No CI registry found in tests/e2e/test_a.py"},
		{name: "cuda outside fast is fine", file: "tests/fast-gpu/test_a.py", calls: []pysrc.Call{cudaCall},
			want: []Registration{{File: "tests/fast-gpu/test_a.py", Backend: config.CUDA, Suite: "stage-b-2-gpu-h200", EstTime: 5, Labels: []string{"fsdp"}, Line: 3}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := checkCalls(tc.file, tc.calls, []byte(tc.src), config.Default())
			if tc.wantErr != "" {
				require.NotNil(t, err)
				assert.Equal(t, tc.wantErr, err.Msg)
				assert.Equal(t, tc.file, err.File)
				return
			}
			require.Nil(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestEstSeconds_OverflowEdge(t *testing.T) {
	// The largest float64 converts; 2**1024 does not, and neither does a
	// value that only rounds up to it (as Python's float() refuses it).
	maxFloat := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 1024-53))
	f, ok := estSeconds(pysrc.Constant{Type: pysrc.Int, Int: maxFloat})
	assert.True(t, ok)
	assert.Equal(t, 1.7976931348623157e308, f)

	_, ok = estSeconds(pysrc.Constant{Type: pysrc.Int, Int: new(big.Int).Lsh(big.NewInt(1), 1024)})
	assert.False(t, ok)

	roundsUp := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 1024), new(big.Int).Lsh(big.NewInt(1), 1024-54))
	_, ok = estSeconds(pysrc.Constant{Type: pysrc.Int, Int: roundsUp})
	assert.False(t, ok)
}

func TestMentionsRegister_FindsEitherNameAnywhere(t *testing.T) {
	for src, want := range map[string]bool{
		"# call register_cpu_ci later":         true,
		"x = 'register_cuda_ci'":               true,
		"register_cregister_cuda_ci":           true, // a false start before the name
		"register_rocm_ci(1, 's')":             false,
		"register_cp_ci register_cud register": false,
		"register_cpu_ci":                      true, // at the very start
		"gister_cpu_ci":                        false,
		"x_gister_cuda_ci rgister_cpu_ci":      false,
		"":                                     false,
	} {
		assert.Equal(t, want, mentionsRegister([]byte(src)), src)
	}
}
