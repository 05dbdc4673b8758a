package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
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
	fs.StringVar(&s.Suite, "suite", "", "the suite (CI stage) to select")
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

// resolve checks what pflag cannot: the two cadence flags together, the
// required flags. It leaves the effective cadence in s.Cadence.
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
	if s.Suite == "" {
		missing = append(missing, "--suite")
	}
	if len(missing) > 0 {
		return usageErrorf("the following arguments are required: %s", strings.Join(missing, ", "))
	}
	if s.Nightly {
		s.Cadence = policy.Nightly
	}
	return nil
}

// parseOwnFlags parses args (everything after the command path, global
// flags included) into cmd's flags. It returns help=true when --help was
// asked for; every error is a *UsageError.
func parseOwnFlags(cmd *cobra.Command, args []string) (help bool, err error) {
	cmd.InheritedFlags() // merges the global flags into cmd.Flags()
	fs := cmd.Flags()
	rewritten, err := rewriteListArgs(fs, args, labelsFlag)
	if err != nil {
		return false, err
	}
	if err := fs.Parse(rewritten); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil
		}
		var ae *argError
		if errors.As(err, &ae) {
			return false, &UsageError{Msg: ae.msg}
		}
		return false, &UsageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return false, usageErrorf("unrecognized arguments: %s", strings.Join(fs.Args(), " "))
	}
	help, _ = fs.GetBool("help")
	return help, nil
}

// rewriteListArgs rewrites each occurrence of the zero-or-more-valued flag
// list in args into the single token --list=<JSON array of its values>.
// Values are taken argparse's way: `--list=v` is exactly one value; a bare
// `--list` takes every following token up to the first that looks like an
// option (see looksLikeOption) or `--`, possibly none. The values of other
// flags are skipped over so that they are never read as options, and, as in
// argparse, a flag whose value looks like an option is an error.
func rewriteListArgs(fs *pflag.FlagSet, args []string, list string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if !looksLikeOption(fs, a) || !strings.HasPrefix(a, "--") {
			out = append(out, a)
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		if name == list {
			var values []string
			if hasValue {
				values = []string{value}
			} else {
				values = []string{}
				for i+1 < len(args) && args[i+1] != "--" && !looksLikeOption(fs, args[i+1]) {
					values = append(values, args[i+1])
					i++
				}
			}
			enc, _ := json.Marshal(values) // a []string always encodes
			out = append(out, "--"+list+"="+string(enc))
			continue
		}
		out = append(out, a)
		fl := fs.Lookup(name)
		if fl == nil || hasValue || fl.NoOptDefVal != "" || i+1 >= len(args) {
			continue
		}
		if next := args[i+1]; next == "--" || looksLikeOption(fs, next) {
			return nil, usageErrorf("argument --%s: expected one argument", name)
		}
		out = append(out, args[i+1])
		i++
	}
	return out, nil
}

var negativeNumber = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

// looksLikeOption tells, as argparse does, whether a token is an option
// rather than a value: it starts with '-' and is not '-' alone, a negative
// number, or a text with a space that names no flag.
func looksLikeOption(fs *pflag.FlagSet, a string) bool {
	if len(a) < 2 || a[0] != '-' {
		return false
	}
	if strings.HasPrefix(a, "--") {
		name, _, _ := strings.Cut(a[2:], "=")
		if fs.Lookup(name) != nil {
			return true
		}
	}
	if negativeNumber.MatchString(a) {
		return false
	}
	return !strings.Contains(a, " ")
}

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
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return &argError{msg: fmt.Sprintf("argument %s: invalid int value: %s", v.flag, pyfmt.Repr(s))}
	}
	*v.target = n
	if v.set != nil {
		*v.set = true
	}
	return nil
}

func addIntFlag(fs *pflag.FlagSet, target *int, set *bool, name string, def int, usage string) {
	*target = def
	fs.Var(&intValue{flag: "--" + name, target: target, set: set}, name, usage)
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
