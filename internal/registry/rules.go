package registry

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/pysrc"
)

// positionalParams are the parameters a register call may pass by position,
// in order; every other parameter is keyword-only.
var positionalParams = [...]string{"est_time", "suite"}

func isKnownParam(name string) bool {
	switch name {
	case "est_time", "suite", "labels", "nightly", "disabled":
		return true
	}
	return false
}

// callChecker applies the argument rules (SPEC §2.3) to the register calls
// of one file. Its messages are the Python collector's, byte for byte.
type callChecker struct {
	cfg  *config.Config
	file string
}

func (c *callChecker) errorf(line int, format string, args ...any) *FileError {
	return &FileError{File: c.file, Line: line, Msg: c.file + ": " + fmt.Sprintf(format, args...)}
}

// parsedArg is a value given for one parameter, and the line it is on.
type parsedArg struct {
	value pysrc.Value
	line  int
	set   bool
}

// check turns one call into a registration, or reports the first rule it
// breaks, in the order of the Python collector.
func (c *callChecker) check(call pysrc.Call) (Registration, *FileError) {
	fn := call.Func
	backend, ok := c.cfg.RegisterBackend(fn)
	if !ok {
		// The reader returns only the names it was asked for; a stranger
		// here is a bug in the caller, not in the test file.
		return Registration{}, c.errorf(call.Line, "%s() is not a configured register function", fn)
	}
	lineOf := func(a pysrc.Arg) int {
		if a.Line > 0 {
			return a.Line
		}
		return call.Line
	}

	for _, a := range call.Args {
		if a.Star {
			return Registration{}, c.errorf(lineOf(a), "starred arguments are not supported in %s()", fn)
		}
	}
	if len(call.Args) > len(positionalParams) {
		return Registration{}, c.errorf(lineOf(call.Args[len(positionalParams)]),
			"too many positional arguments in %s(); only %s may be positional (labels and later are keyword-only)",
			fn, pyfmt.ReprList(positionalParams[:]))
	}

	var (
		estTime, suite, nightly, disabled parsedArg
		labels                            []string
		labelsSet                         bool
	)
	slot := func(name string) *parsedArg {
		switch name {
		case "est_time":
			return &estTime
		case "suite":
			return &suite
		case "nightly":
			return &nightly
		case "disabled":
			return &disabled
		}
		return nil
	}
	for i, a := range call.Args {
		name := positionalParams[i]
		if a.Value.Kind != pysrc.KindConstant {
			return Registration{}, c.errorf(lineOf(a), "%s in %s() must be a literal constant", name, fn)
		}
		*slot(name) = parsedArg{value: a.Value, line: lineOf(a), set: true}
	}

	for _, kw := range call.Keywords {
		if kw.DoubleStar {
			return Registration{}, c.errorf(lineOf(kw), "**kwargs are not supported in %s()", fn)
		}
		if (kw.Name == "labels" && labelsSet) || (slot(kw.Name) != nil && slot(kw.Name).set) {
			return Registration{}, c.errorf(lineOf(kw), "duplicated argument '%s' in %s()", kw.Name, fn)
		}
		if !isKnownParam(kw.Name) {
			return Registration{}, c.errorf(lineOf(kw), "unknown argument '%s' in %s()", kw.Name, fn)
		}
		if kw.Name == "labels" {
			l, err := c.labels(kw, fn, lineOf(kw))
			if err != nil {
				return Registration{}, err
			}
			labels, labelsSet = l, true
			continue
		}
		if kw.Value.Kind != pysrc.KindConstant {
			return Registration{}, c.errorf(lineOf(kw), "%s in %s() must be a literal constant", kw.Name, fn)
		}
		*slot(kw.Name) = parsedArg{value: kw.Value, line: lineOf(kw), set: true}
	}

	if !estTime.set {
		return Registration{}, c.errorf(call.Line, "est_time is required in %s()", fn)
	}
	if !suite.set {
		return Registration{}, c.errorf(call.Line, "suite is required in %s()", fn)
	}
	est := estTime.value.Const
	switch est.Type {
	case pysrc.Int, pysrc.Float, pysrc.Bool:
	default:
		return Registration{}, c.errorf(estTime.line, "est_time must be a number in %s()", fn)
	}
	if suite.value.Const.Type != pysrc.Str {
		return Registration{}, c.errorf(suite.line, "suite must be a string in %s()", fn)
	}
	if backend != config.CPU && len(labels) == 0 {
		return Registration{}, c.errorf(call.Line, "labels in %s() must contain at least one domain label", fn)
	}
	if nightly.set && nightly.value.Const.Type != pysrc.Bool {
		return Registration{}, c.errorf(nightly.line, "nightly must be a boolean in %s()", fn)
	}
	var reason *string
	if disabled.set {
		switch d := disabled.value.Const; d.Type {
		case pysrc.NoneType:
		case pysrc.Str:
			s := strings.Clone(d.Str)
			reason = &s
		default:
			return Registration{}, c.errorf(disabled.line, "disabled must be a string or None in %s()", fn)
		}
	}
	if err := c.knownLabels(labels, fn, call.Line); err != nil {
		return Registration{}, err
	}
	seconds, ok := estSeconds(est)
	if !ok {
		// Python's float() raises OverflowError here and the collector
		// crashes; we name the file instead.
		return Registration{}, c.errorf(estTime.line, "est_time in %s() is too large to convert to a float", fn)
	}
	if labels == nil {
		labels = []string{}
	}
	return Registration{
		File:     c.file,
		Backend:  backend,
		Suite:    strings.Clone(suite.value.Const.Str),
		EstTime:  seconds,
		Labels:   labels,
		Nightly:  nightly.set && nightly.value.Const.Bool,
		Disabled: reason,
		Line:     call.Line,
	}, nil
}

// labels reads a labels= value: a list of string literals, or None for none.
func (c *callChecker) labels(kw pysrc.Arg, fn string, line int) ([]string, *FileError) {
	v := kw.Value
	switch {
	case v.Kind == pysrc.KindConstant && v.Const.Type == pysrc.NoneType:
		return []string{}, nil
	case v.Kind != pysrc.KindList:
		node := v.Node
		if v.Kind == pysrc.KindConstant {
			node = "Constant"
		}
		return nil, c.errorf(line, "labels in %s() must be a list of string literals or None (got %s)", fn, node)
	}
	out := make([]string, 0, len(v.Elems))
	for _, e := range v.Elems {
		if e.Kind != pysrc.KindConstant {
			return nil, c.errorf(line, "labels in %s() must be a list of string literals (non-literal element)", fn)
		}
		if e.Const.Type != pysrc.Str {
			return nil, c.errorf(line, "labels in %s() must be a list of string literals (got %s element)", fn, e.Const.Type)
		}
		out = append(out, strings.Clone(e.Const.Str))
	}
	return out, nil
}

// knownLabels reports the labels outside the configured set, in declared
// order and with duplicates, the way the Python collector words it.
func (c *callChecker) knownLabels(labels []string, fn string, line int) *FileError {
	var unknown []string
	for _, l := range labels {
		if !c.cfg.IsKnownLabel(l) {
			unknown = append(unknown, l)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	valid := c.cfg.KnownLabels()
	sort.Strings(valid)
	return c.errorf(line, "unknown labels %s in %s(); valid labels: [%s]. %s",
		pyfmt.ReprList(unknown), fn, strings.Join(valid, ", "), c.cfg.NewLabelHint())
}

// estSeconds converts an est_time constant the way Python's float() does:
// a bool is 0.0 or 1.0, an int rounds to the nearest float (ties to even),
// and an int beyond the float range does not convert.
func estSeconds(k pysrc.Constant) (float64, bool) {
	switch k.Type {
	case pysrc.Bool:
		if k.Bool {
			return 1, true
		}
		return 0, true
	case pysrc.Int:
		if k.Int == nil {
			return 0, true
		}
		if k.Int.IsInt64() {
			return float64(k.Int.Int64()), true
		}
		f, _ := new(big.Float).SetInt(k.Int).Float64()
		return f, !math.IsInf(f, 0)
	default:
		return k.Float, true
	}
}

// fileRules applies the per-file rules (SPEC §2.4) to the registrations
// read from one file; src is the file's text, for the textual-mention check.
func (c *callChecker) fileRules(regs []Registration, src []byte) ([]Registration, *FileError) {
	imp := c.cfg.Implicit
	if imp.Root != "" && strings.HasPrefix(c.file, imp.Root+"/") {
		for _, r := range regs {
			if r.Backend != config.CPU {
				return nil, c.errorf(r.Line, "register_cuda_ci is forbidden in %s/; move the file to tests/fast-gpu/ instead", imp.Root)
			}
		}
		if len(regs) > 0 {
			return regs, nil
		}
		if mentionsRegister(src) {
			return nil, c.errorf(0, "file mentions register_cpu_ci or register_cuda_ci textually but no top-level call was parsed; check for aliased import, non-toplevel call, or attribute access")
		}
		return []Registration{{
			File:     c.file,
			Backend:  config.CPU,
			Suite:    imp.Suite,
			EstTime:  imp.EstTime,
			Labels:   []string{},
			Implicit: true,
		}}, nil
	}
	if len(regs) == 0 {
		return nil, &FileError{File: c.file, Msg: "No CI registry found in " + c.file}
	}
	return regs, nil
}

// mentionsRegister reports whether src holds register_cpu_ci or
// register_cuda_ci anywhere, as text. It reads src once, not once per name:
// most files of the implicit root have no register call and are searched.
// The search is for "gister_c": bytes.Index looks for its first byte, and
// a 'g' is several times rarer in Python source than the 'r' of "register",
// which makes the search two to three times faster. Measured: searching
// with two bytes.Contains instead costs 7-8.5% of run --list-only CPU on
// Miles (2026-12-02); kept, with the three other fast paths under the 10%
// each must buy, because removing them all took the branch to 1.25x the
// CPU it started from, past the 10% issue 19's acceptance allows.
func mentionsRegister(src []byte) bool {
	const stem = "gister_c"
	for at := 0; ; {
		i := bytes.Index(src[at:], []byte(stem))
		if i < 0 {
			return false
		}
		i += at
		rest := src[i+len(stem):]
		if i >= 2 && src[i-2] == 'r' && src[i-1] == 'e' &&
			(bytes.HasPrefix(rest, []byte("pu_ci")) || bytes.HasPrefix(rest, []byte("uda_ci"))) {
			return true
		}
		at = i + len(stem)
	}
}
