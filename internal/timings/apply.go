package timings

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pysrc"
	"github.com/radixark/miles-ci/internal/registry"
)

// This file decides what `miles-ci timings apply` does to a test file: from
// the measured seconds of several runs, which register calls' est_time
// literals drift, and the text they become. It reads and writes nothing;
// the CLI does.

// Measurements gathers the timings files of several runs: every measured
// second of each file, in the order the files were given.
type Measurements map[string][]float64

// Add records one run's timings.
func (m Measurements) Add(t Timings) {
	for f, v := range t {
		m[f] = append(m[f], v)
	}
}

// Median is the figure apply uses for a file measured in several runs: the
// middle value, or the mean of the two middle ones for an even count. One
// slow or fast run does not move it, which a mean or the last run would.
func Median(values []float64) float64 {
	s := slices.Clone(values)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Threshold says how far a measured time must be from the declared
// est_time for apply to change it: by more than Rel times the declared
// value and by more than Abs seconds, both.
type Threshold struct {
	Rel float64 // a fraction: 0.25 is 25%
	Abs float64 // seconds
}

// DefaultThreshold is 25% and 60 seconds: a shard plan shrugs at less, and
// CI times vary by about that much from run to run.
var DefaultThreshold = Threshold{Rel: 0.25, Abs: 60}

// ParseThreshold reads a --threshold value: "25%", "60s", or both joined by
// a comma ("25%,60s"). A part left out is 0, so "0" or "0%" alone makes
// every difference count.
func ParseThreshold(s string) (Threshold, error) {
	var th Threshold
	var sawRel, sawAbs bool
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		var num string
		var rel bool
		switch {
		case strings.HasSuffix(part, "%"):
			num, rel = strings.TrimSuffix(part, "%"), true
		case strings.HasSuffix(part, "s"):
			num = strings.TrimSuffix(part, "s")
		case part == "0":
			num, rel = "0", true
		default:
			return Threshold{}, fmt.Errorf("invalid threshold %q: expected PERCENT%%, SECONDSs or both, as 25%%,60s", s)
		}
		v, err := strconv.ParseFloat(num, 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) || num != strings.TrimSpace(num) {
			return Threshold{}, fmt.Errorf("invalid threshold %q: %q is not a number >= 0", s, part)
		}
		if rel {
			if sawRel {
				return Threshold{}, fmt.Errorf("invalid threshold %q: two percentages", s)
			}
			th.Rel, sawRel = v/100, true
		} else {
			if sawAbs {
				return Threshold{}, fmt.Errorf("invalid threshold %q: two second counts", s)
			}
			th.Abs, sawAbs = v, true
		}
	}
	return th, nil
}

// Drifted reports whether measured is past the threshold from declared.
func (th Threshold) Drifted(declared, measured float64) bool {
	d := math.Abs(measured - declared)
	return d > th.Abs && d > th.Rel*declared
}

// Round is the est_time apply writes for a measured time: the seconds
// rounded up to two significant digits, and to a whole number of at least
// 1 (7.2 → 8, 187 → 190, 1234 → 1300, 12345 → 13000), the kind of value
// a person writes. Up, so that the per-file timeout (1.25 × est_time when
// that is above --timeout-per-file) stays above the measured time.
func Round(seconds float64) int64 {
	if seconds <= 1 || math.IsNaN(seconds) {
		return 1
	}
	c := math.Ceil(seconds - 1e-9) // 60.0000000001 is 60, not 61
	if c < 100 {
		return int64(c)
	}
	step := math.Pow(10, math.Floor(math.Log10(c))-1)
	return int64(math.Ceil(c/step) * step)
}

// Edit is one est_time literal that apply replaces.
type Edit struct {
	Line     int // of the register call
	Suite    string
	Backend  config.Backend
	Start    int // byte offsets of the literal in the file
	End      int
	Declared float64
	Measured float64
	Proposed int64
}

// Text is the literal's new text.
func (e Edit) Text() string { return strconv.FormatInt(e.Proposed, 10) }

// Kept is one register call that measured seconds concern but apply leaves
// alone, and why.
type Kept struct {
	Line   int
	Reason string
}

// FilePlan is what apply does to one test file.
type FilePlan struct {
	File     string
	Measured float64
	// Calls are the register calls measured: the file's calls of the
	// suite, or all of them when no suite is given. Their est_time after
	// apply (the proposed one for an edit) decides the timeout warning.
	Calls []Call
	Edits []Edit
	Kept  []Kept
}

// Call is a register call that the measured seconds belong to.
type Call struct {
	Line    int
	Suite   string
	Backend config.Backend
	EstTime float64 // declared
}

// Plan decides the edits of the test file file (its text src) for the
// measured seconds. With suite set, only the register calls of that suite
// are measured (a timings file holds one suite's run: `run --suite S
// --timings-out`); without it, a file whose calls name more than one suite
// or backend is ambiguous and kept whole. The error is the registry's
// refusal of the file, which apply reports and leaves the file alone for.
func Plan(file string, src []byte, cfg *config.Config, suite string, measured float64, th Threshold) (FilePlan, error) {
	p := FilePlan{File: file, Measured: measured}
	names := make(map[string]bool, len(cfg.RegisterFuncs))
	for _, f := range cfg.RegisterFuncs {
		names[f.Name] = true
	}
	regs, ferr := registry.FileRegistrations(file, src, cfg, names)
	if ferr != nil {
		return p, ferr
	}
	calls, err := pysrc.ReadCalls(src, names)
	if err != nil {
		return p, err // the registry accepted the file: never reached
	}
	if len(regs) == 1 && regs[0].Implicit {
		return p, errors.New(file + ": registers nothing; its est_time is the implicit suite's, not written in the file")
	}
	if len(regs) != len(calls) {
		return p, fmt.Errorf("%s: %d register calls read as %d registrations", file, len(calls), len(regs))
	}
	var chosen []int
	roster, inRoster := cfg.Suite(suite)
	for i, r := range regs {
		// A suite of the roster runs one backend: a file registering the
		// suite's name for cuda and rocm was measured by the roster's one.
		if suite == "" || r.Suite == suite && (!inRoster || r.Backend == roster.Backend) {
			chosen = append(chosen, i)
		}
	}
	if len(chosen) == 0 {
		return p, fmt.Errorf("%s: no register call of suite %s", file, suite)
	}
	if suite == "" {
		for _, i := range chosen[1:] {
			if regs[i].Suite != regs[chosen[0]].Suite || regs[i].Backend != regs[chosen[0]].Backend {
				return p, fmt.Errorf("%s: registers for several suites (%s:%d and %s:%d); pass --suite to say which one the timings measured",
					file, regs[chosen[0]].Suite, regs[chosen[0]].Line, regs[i].Suite, regs[i].Line)
			}
		}
	}
	for _, i := range chosen {
		r := regs[i]
		p.Calls = append(p.Calls, Call{Line: r.Line, Suite: r.Suite, Backend: r.Backend, EstTime: r.EstTime})
		if !th.Drifted(r.EstTime, measured) {
			continue
		}
		v, ok := estTimeValue(calls[i])
		if !ok || !plainNumber(src[v.Start:v.End]) {
			text := "?"
			if ok {
				text = string(src[v.Start:v.End])
			}
			p.Kept = append(p.Kept, Kept{Line: r.Line, Reason: fmt.Sprintf("est_time %s is not a plain number literal; left alone", text)})
			continue
		}
		proposed := Round(measured)
		if float64(proposed) == r.EstTime {
			continue
		}
		p.Edits = append(p.Edits, Edit{Line: r.Line, Suite: r.Suite, Backend: r.Backend, Start: v.Start, End: v.End,
			Declared: r.EstTime, Measured: measured, Proposed: proposed})
	}
	return p, nil
}

// estTimeValue returns the est_time argument of a call the registry
// accepted: the first positional argument, or the est_time keyword.
func estTimeValue(c pysrc.Call) (pysrc.Value, bool) {
	if len(c.Args) > 0 {
		return c.Args[0].Value, c.Args[0].Value.Kind == pysrc.KindConstant
	}
	for _, k := range c.Keywords {
		if k.Name == "est_time" {
			return k.Value, k.Value.Kind == pysrc.KindConstant
		}
	}
	return pysrc.Value{}, false
}

// plainNumber reports whether text is a decimal int or float literal:
// digits, underscores, a point, an exponent. True, 0x3C and 1j are not.
func plainNumber(text []byte) bool {
	if len(text) == 0 || !(text[0] >= '0' && text[0] <= '9' || text[0] == '.') {
		return false
	}
	if len(text) > 1 && text[0] == '0' && strings.ContainsRune("xXoObB", rune(text[1])) {
		return false
	}
	for _, c := range text {
		if !(c >= '0' && c <= '9' || c == '_' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

// Rewrite returns src with every edit's literal replaced by its new text
// and every other byte as it was. Edits must not overlap.
func Rewrite(src []byte, edits []Edit) []byte {
	s := slices.Clone(edits)
	slices.SortFunc(s, func(a, b Edit) int { return a.Start - b.Start })
	out := make([]byte, 0, len(src)+8*len(s))
	at := 0
	for _, e := range s {
		out = append(out, src[at:e.Start]...)
		out = append(out, e.Text()...)
		at = e.End
	}
	return append(out, src[at:]...)
}
