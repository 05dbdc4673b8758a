package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/plan"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/shard"
	"github.com/radixark/miles-ci/internal/timings"
)

// The selection flags of `run` and `partition` follow run_suite.py's
// argparse definitions, whose workflows pass `--labels` a space-separated
// expansion that may be empty. pflag gives every flag exactly one value, so
// these commands parse their own argv (cobra's DisableFlagParsing): each
// `--labels v1 v2 ...` is first rewritten into one `--labels=<JSON list>`
// token, collecting values the way argparse does, and the result is then
// parsed by pflag against the command's flags as usual.

// selectionFlags binds the flags shared by run and partition.
type selectionFlags struct {
	HW             string
	Suite          string
	Cadence        string
	Nightly        bool
	Labels         []string
	MatchAllLabels bool

	// cadenceOrder lists --cadence and --nightly in the order given, for
	// the message naming both.
	cadenceOrder []string
	// suiteSet records that --suite was given: `--suite ''` satisfies
	// argparse's required check (and then names no known suite).
	suiteSet bool
	// extras are the arguments no flag took (see normalizeArgs).
	extras []string
}

// argError is a flag value argparse would refuse, with argparse's message.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

// labelsFlag is the name of the zero-or-more-valued flag.
const labelsFlag = "labels"

func addSelectionFlags(fs *pflag.FlagSet, s *selectionFlags, hwRequired bool) {
	hwHelp := "hardware backend: cpu, cuda or rocm"
	if !hwRequired {
		hwHelp += " (default: the suite's backend)"
	}
	fs.Var(&choiceValue{flag: "--hw", target: &s.HW, choices: []string{"cpu", "cuda", "rocm"}}, "hw", hwHelp)
	fs.Var(&stringValue{target: &s.Suite, set: &s.suiteSet}, "suite", "the suite (CI stage) to select")
	s.Cadence = policy.Regular
	fs.Var(&choiceValue{flag: "--cadence", target: &s.Cadence, choices: config.Cadences,
		seen: func() { s.cadenceOrder = append(s.cadenceOrder, "--cadence") }},
		"cadence", "CI cadence: nightly, regular, release or weekly")
	nf := fs.VarPF(&constValue{flag: "--nightly", target: &s.Nightly,
		seen: func() { s.cadenceOrder = append(s.cadenceOrder, "--nightly") }},
		"nightly", "", "alias for --cadence nightly")
	nf.NoOptDefVal = "true"
	fs.Var(&labelsValue{target: &s.Labels}, labelsFlag,
		"raw PR `LABELS`, zero or more: run-ci-X selects domain label X; nightly, bypass-fastfail, run-ci-all, run-ci-image")
	fs.BoolVar(&s.MatchAllLabels, "match-all-labels", false, "include every known domain label")
}

// resolve checks what pflag cannot, in argparse's order: the two cadence
// flags together, the required flags, then the unrecognized arguments. It
// leaves the effective cadence in s.Cadence.
func (s *selectionFlags) resolve(hwRequired bool) error {
	if len(s.cadenceOrder) > 1 {
		first := s.cadenceOrder[0]
		for _, other := range s.cadenceOrder[1:] {
			if other != first {
				return usageErrorf("argument %s: not allowed with argument %s", other, first)
			}
		}
	}
	var missing []string
	if hwRequired && s.HW == "" {
		missing = append(missing, "--hw")
	}
	if !s.suiteSet {
		missing = append(missing, "--suite")
	}
	if len(missing) > 0 {
		return usageErrorf("the following arguments are required: %s", strings.Join(missing, ", "))
	}
	if err := unrecognized(s.extras); err != nil {
		return err
	}
	if s.Nightly {
		s.Cadence = policy.Nightly
	}
	return nil
}

// parseOwnFlags parses args (everything after the command path, global
// flags included) into cmd's flags. It returns help=true when --help was
// asked for, and the arguments argparse would call unrecognized (the caller
// reports them after the required flags, as argparse does); every error is a
// *UsageError.
func parseOwnFlags(cmd *cobra.Command, args []string) (help bool, extras []string, err error) {
	cmd.InheritedFlags() // merges the global flags into cmd.Flags()
	fs := cmd.Flags()
	normalized, extras, err := normalizeArgs(fs, args, labelsFlag)
	if err != nil {
		return false, nil, err
	}
	if err := fs.Parse(normalized); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil, nil
		}
		var ae *argError
		if errors.As(err, &ae) {
			return false, nil, &UsageError{Msg: ae.msg}
		}
		return false, nil, &UsageError{Msg: err.Error()}
	}
	help, _ = fs.GetBool("help")
	if err := checkPathFlags(fs); err != nil {
		return false, nil, err
	}
	return help, extras, nil
}

// pathFlags name a file miles-ci reads or writes. Given an empty value
// (`--timings "$UNSET"`) each would otherwise act as if it were absent: the
// default configuration, the default split, no report, all silently.
var pathFlags = []string{"config", timingsFlag, "json-report", "junit-xml", "timings-out"}

// checkPathFlags refuses an explicitly empty path flag of fs.
func checkPathFlags(fs *pflag.FlagSet) error {
	for _, name := range pathFlags {
		if fl := fs.Lookup(name); fl != nil && fl.Changed && fl.Value.String() == "" {
			return usageErrorf("--%s needs a path, got an empty value", name)
		}
	}
	return nil
}

// unrecognized is argparse's error for the arguments no flag took.
func unrecognized(extras []string) error {
	if len(extras) == 0 {
		return nil
	}
	return usageErrorf("unrecognized arguments: %s", strings.Join(extras, " "))
}

// argparseFlags are run_suite.py's option strings in its parser's order. An
// abbreviated long flag (argparse accepts any unambiguous prefix, so
// `--list` is `--list-only`) is resolved against these first, so that the
// flags miles-ci adds cannot make a prefix ambiguous that run_suite.py
// accepts (`--co` is `--continue-on-error`, not also `--config`).
var argparseFlags = []string{
	"help", "hw", "suite", "cadence", "nightly", "timeout-per-file", "continue-on-error",
	"auto-partition-id", "auto-partition-size", "enable-retry", "max-attempts",
	"retry-wait-seconds", "retry-timeout-increase", "list-only", "labels", "match-all-labels",
}

// argKind is what argparse makes of one argv token.
type argKind int

const (
	argValue   argKind = iota // a value (argparse's 'A')
	argOption                 // a known flag, possibly abbreviated
	argUnknown                // looks like an option but names no flag
)

// classifiedArg is one argv token as argparse classifies it.
type classifiedArg struct {
	kind     argKind
	flag     *pflag.Flag // argOption
	explicit *string     // the text after '=' (or after -h), argOption only
}

// classifyArg tells, as argparse does, whether a is a value, a flag (exact,
// with `=value`, or a unique prefix of a long flag) or an unknown option: it
// starts with '-' and is not '-' alone, a negative number, or a text with a
// space that names no flag.
func classifyArg(fs *pflag.FlagSet, a string) (classifiedArg, error) {
	if len(a) < 2 || a[0] != '-' {
		return classifiedArg{kind: argValue}, nil
	}
	if !strings.HasPrefix(a, "--") {
		// The only short flag is -h; "-hx" is -h with an explicit "x".
		if fl := fs.ShorthandLookup(a[1:2]); fl != nil {
			c := classifiedArg{kind: argOption, flag: fl}
			if len(a) > 2 {
				rest := strings.TrimPrefix(a[2:], "=")
				c.explicit = &rest
			}
			return c, nil
		}
	} else if a != "--" {
		name, value, hasValue := strings.Cut(a[2:], "=")
		fl := fs.Lookup(name)
		if fl == nil {
			var err error
			if fl, err = lookupPrefix(fs, name); err != nil {
				return classifiedArg{}, err
			}
		}
		if fl != nil {
			c := classifiedArg{kind: argOption, flag: fl}
			if hasValue {
				c.explicit = &value
			}
			return c, nil
		}
	}
	if negativeNumber.MatchString(a) || strings.Contains(a, " ") {
		return classifiedArg{kind: argValue}, nil
	}
	return classifiedArg{kind: argUnknown}, nil
}

// lookupPrefix resolves an abbreviated long flag name: first among
// run_suite.py's flags, then among all of fs's. No match is (nil, nil).
func lookupPrefix(fs *pflag.FlagSet, prefix string) (*pflag.Flag, error) {
	if prefix == "" {
		return nil, nil
	}
	var compat, all []*pflag.Flag
	for _, name := range argparseFlags {
		if fl := fs.Lookup(name); fl != nil && strings.HasPrefix(name, prefix) {
			compat = append(compat, fl)
		}
	}
	fs.VisitAll(func(fl *pflag.Flag) {
		if strings.HasPrefix(fl.Name, prefix) {
			all = append(all, fl)
		}
	})
	for _, cands := range [][]*pflag.Flag{compat, all} {
		switch len(cands) {
		case 0:
			continue
		case 1:
			return cands[0], nil
		}
		names := make([]string, len(cands))
		for i, fl := range cands {
			names[i] = "--" + fl.Name
		}
		return nil, usageErrorf("ambiguous option: --%s could match %s", prefix, strings.Join(names, ", "))
	}
	return nil, nil
}

// normalizeArgs rewrites args the way argparse reads them into tokens pflag
// parses unambiguously: every flag by its full name, a value always joined
// by '=' (`--suite=-x` cannot be misread), and each occurrence of the
// zero-or-more-valued flag list as the single token --list=<JSON array of
// its values>. Values are taken argparse's way: `--list=v` is exactly one
// value; a bare `--list` takes every following value (see classifyArg) up
// to the first option or `--`, possibly none. A flag that takes one value
// must be followed by a value; a flag that takes none refuses `=value`.
// Unknown options, values no flag took, and everything from `--` on are
// returned as extras, which argparse reports as unrecognized.
func normalizeArgs(fs *pflag.FlagSet, args []string, list string) (out, extras []string, err error) {
	// argparse classifies every token before it consumes any, so an
	// ambiguous prefix anywhere is the first error.
	kinds := make([]classifiedArg, len(args))
	for i, a := range args {
		if a == "--" {
			break
		}
		if kinds[i], err = classifyArg(fs, a); err != nil {
			return nil, nil, err
		}
	}
	out = make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a, k := args[i], kinds[i]
		if a == "--" {
			extras = append(extras, args[i:]...)
			break
		}
		switch k.kind {
		case argValue, argUnknown:
			extras = append(extras, a)
			continue
		}
		fl := k.flag
		flagName := "--" + fl.Name
		if fl.Shorthand != "" {
			flagName = "-" + fl.Shorthand + "/" + flagName
		}
		next := func() (string, bool) {
			if i+1 < len(args) && args[i+1] != "--" && kinds[i+1].kind == argValue {
				i++
				return args[i], true
			}
			return "", false
		}
		switch {
		case fl.Name == list:
			values := []string{}
			if k.explicit != nil {
				values = append(values, *k.explicit)
			} else {
				for v, ok := next(); ok; v, ok = next() {
					values = append(values, v)
				}
			}
			enc, _ := json.Marshal(values) // a []string always encodes
			out = append(out, "--"+list+"="+string(enc))
		case fl.NoOptDefVal != "":
			if k.explicit != nil {
				return nil, nil, usageErrorf("argument %s: ignored explicit argument %s", flagName, pyfmt.Repr(*k.explicit))
			}
			out = append(out, "--"+fl.Name)
		default:
			value := ""
			if k.explicit != nil {
				value = *k.explicit
			} else {
				v, ok := next()
				if !ok {
					return nil, nil, usageErrorf("argument %s: expected one argument", flagName)
				}
				value = v
			}
			out = append(out, "--"+fl.Name+"="+value)
		}
	}
	return out, extras, nil
}

var negativeNumber = regexp.MustCompile(`^-\p{Nd}+$|^-\p{Nd}*\.\p{Nd}+$`)

// choiceValue is a string flag limited to a few choices.
type choiceValue struct {
	flag    string
	target  *string
	choices []string
	seen    func()
}

func (v *choiceValue) String() string { return *v.target }
func (v *choiceValue) Type() string   { return "string" }
func (v *choiceValue) Set(s string) error {
	if !slices.Contains(v.choices, s) {
		quoted := make([]string, len(v.choices))
		for i, c := range v.choices {
			quoted[i] = pyfmt.Repr(c)
		}
		return &argError{msg: fmt.Sprintf("argument %s: invalid choice: %s (choose from %s)",
			v.flag, pyfmt.Repr(s), strings.Join(quoted, ", "))}
	}
	*v.target = s
	if v.seen != nil {
		v.seen()
	}
	return nil
}

// stringValue is a string flag that records that it was given.
type stringValue struct {
	target *string
	set    *bool
}

func (v *stringValue) String() string { return *v.target }
func (v *stringValue) Type() string   { return "string" }
func (v *stringValue) Set(s string) error {
	*v.target, *v.set = s, true
	return nil
}

// constValue is a flag that takes no value, like argparse's store_const.
type constValue struct {
	flag   string
	target *bool
	seen   func()
}

func (v *constValue) String() string   { return strconv.FormatBool(*v.target) }
func (v *constValue) Type() string     { return "bool" }
func (v *constValue) IsBoolFlag() bool { return true }
func (v *constValue) Set(s string) error {
	if s != "true" {
		return &argError{msg: fmt.Sprintf("argument %s: ignored explicit argument %s", v.flag, pyfmt.Repr(s))}
	}
	*v.target = true
	if v.seen != nil {
		v.seen()
	}
	return nil
}

// labelsValue receives the JSON lists rewriteListArgs makes; like argparse,
// a later occurrence replaces an earlier one.
type labelsValue struct{ target *[]string }

func (v *labelsValue) String() string {
	if v.target == nil || len(*v.target) == 0 {
		return ""
	}
	return pyfmt.ReprList(*v.target)
}
func (v *labelsValue) Type() string { return "strings" }
func (v *labelsValue) Set(s string) error {
	var values []string
	if err := json.Unmarshal([]byte(s), &values); err != nil {
		// Not from rewriteListArgs: take the text as one label.
		values = []string{s}
	}
	if values == nil {
		values = []string{}
	}
	*v.target = values
	return nil
}

// intValue is an int flag with argparse's message for a bad value; set, if
// not nil, records that the flag was given.
type intValue struct {
	flag   string
	target *int
	set    *bool
}

func (v *intValue) String() string { return strconv.Itoa(*v.target) }
func (v *intValue) Type() string   { return "int" }
func (v *intValue) Set(s string) error {
	n, ok := parsePyInt(s)
	if !ok {
		return &argError{msg: fmt.Sprintf("argument %s: invalid int value: %s", v.flag, pyfmt.Repr(s))}
	}
	*v.target = n
	if v.set != nil {
		*v.set = true
	}
	return nil
}

// parsePyInt reads s as Python's int(s) does (argparse's type=int):
// surrounding whitespace, an optional sign, decimal digits of any script,
// single underscores between digits, leading zeros. A value beyond int's
// range saturates (Python's ints are unbounded).
func parsePyInt(s string) (int, bool) {
	s = strings.TrimFunc(s, isPySpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n uint64
	overflow, digits, afterUnderscore := false, 0, false
	for _, r := range s {
		if r == '_' {
			if digits == 0 || afterUnderscore {
				return 0, false
			}
			afterUnderscore = true
			continue
		}
		d, ok := decimalValue(r)
		if !ok {
			return 0, false
		}
		digits++
		afterUnderscore = false
		if n > (math.MaxUint64-9)/10 {
			overflow = true
		}
		n = n*10 + uint64(d)
	}
	if digits == 0 || afterUnderscore {
		return 0, false
	}
	switch {
	case neg && (overflow || n > uint64(math.MaxInt64)+1):
		return math.MinInt64, true
	case neg:
		return int(-int64(n-1) - 1), true
	case overflow || n > math.MaxInt64:
		return math.MaxInt64, true
	}
	return int(n), true
}

// decimalValue is the value of a Unicode decimal digit (category Nd). Each
// range of Nd digits is made of whole runs from 0 to 9, so the value is the
// distance from the start of the range, modulo 10.
func decimalValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	start := r
	for start > 0 && unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10, true
}

// isPySpace is Python's str.isspace for one rune: Unicode white space and
// the ASCII information separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

func addIntFlag(fs *pflag.FlagSet, target *int, set *bool, name string, def int, usage string) {
	*target = def
	fs.Var(&intValue{flag: "--" + name, target: target, set: set}, name, usage)
}

// timingsFlag is the flag of `run`, `partition` and `suites` naming a
// timings file to shard by (or, for suites, to compare with est_time). It is
// not one of run_suite.py's, so an abbreviation run_suite.py accepts
// (`--tim` is `--timeout-per-file`) still resolves as before.
const timingsFlag = "timings"

func addTimingsFlag(fs *pflag.FlagSet, target *string, usage string) {
	fs.StringVar(target, timingsFlag, "", usage)
}

const timingsUsage = "balance shards on the measured seconds in the timings file `PATH` (as --timings-out writes it); est_time stays the declared one everywhere else"

// partitionBy splits enabled into size shards: on est_time (shard.Partition)
// when path is empty, else on the measured seconds of the timings file at
// path (shard.PartitionTimed), returning the basis to print. A timings file
// that cannot be read or is invalid is a *timings.Error.
func partitionBy(path string, enabled []registry.Registration, size int) ([]shard.Shard, *plan.Basis, error) {
	if path == "" {
		shards, err := shard.Partition(enabled, size)
		return shards, nil, err
	}
	t, err := timings.Read(path)
	if err != nil {
		return nil, nil, err
	}
	shards, err := shard.PartitionTimed(enabled, size, t)
	if err != nil {
		return nil, nil, err
	}
	return shards, &plan.Basis{Path: path, Measured: shard.Measured(enabled, t), Total: len(enabled), Timings: t}, nil
}

// uniqueInOrder drops repeated raw labels (the Python runner makes a set of
// them), keeping first occurrences in order so warnings come out once each.
func uniqueInOrder(raw []string) []string {
	out := make([]string, 0, len(raw))
	for _, r := range raw {
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// resolvedPolicy is the registry and policy a selection runs against.
type resolvedPolicy struct {
	cfg    *config.Config
	regs   []registry.Registration
	policy policy.Policy
}

// resolvePolicy collects the registry and resolves the policy of s, in the
// order of SPEC §5: registry errors before policy errors. Label warnings go
// to f.ErrOut.
func resolvePolicy(f *Factory, s *selectionFlags) (*resolvedPolicy, error) {
	cfg, reg, err := f.Collect()
	if err != nil {
		return nil, reportCollectError(f, err)
	}
	pol, warnings, err := policy.Resolve(cfg, s.Cadence, uniqueInOrder(s.Labels))
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(f.ErrOut, "warning: %s\n", w.Msg)
	}
	if s.MatchAllLabels {
		pol = pol.WithAllLabels(cfg)
	}
	return &resolvedPolicy{cfg: cfg, regs: reg.Registrations, policy: pol}, nil
}
