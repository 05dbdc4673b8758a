// Package argparse reads a command line the way Python's argparse read
// run_suite.py's: any unambiguous prefix of a long flag, store_true flags
// that refuse `=value`, one zero-or-more-valued (nargs='*') list flag,
// Python int() values, and argparse's own messages. The flags themselves are
// an ordinary pflag.FlagSet; Parse rewrites argv into tokens pflag reads
// unambiguously, then lets pflag set them.
//
// The Miles workflows pass `--labels` a space-separated expansion that may
// be empty (`--labels --list-only`), which a flag library giving every flag
// exactly one value misreads; that is why this package exists.
package argparse

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// Error is a command line argparse would refuse, with argparse's message.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

func errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// The original parser's flags are marked on the flag set itself (see
// AddOriginal), and the zero-or-more-valued flag is the one whose value is a
// *List, so a flag set is all Parse needs.

// originalKey annotates a flag of the original parser with its place among
// that parser's flags.
const originalKey = "argparse_original"

// AddOriginal adds to fs the flags declare declares, as the original
// parser's, in the order declared: an abbreviation is resolved among these
// first, so that flags added beside them cannot make ambiguous a prefix the
// original accepted, and an ambiguous one is reported with its candidates
// in the original parser's order. Calls add to the flags of earlier ones.
// -h/--help, which argparse declares before all others, is always the
// original parser's first.
func AddOriginal(fs *pflag.FlagSet, declare func(fs *pflag.FlagSet)) {
	n := 0
	fs.VisitAll(func(fl *pflag.Flag) {
		if _, ok := fl.Annotations[originalKey]; ok {
			n++
		}
	})
	orig := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	orig.SortFlags = false // VisitAll in the order declared
	declare(orig)
	orig.VisitAll(func(fl *pflag.Flag) {
		if fl.Annotations == nil {
			fl.Annotations = map[string][]string{}
		}
		fl.Annotations[originalKey] = []string{strconv.Itoa(n)}
		n++
		fs.AddFlag(fl)
	})
}

// originalRank is fl's place among the original parser's flags, and
// whether it is one of them.
func originalRank(fl *pflag.Flag) (int, bool) {
	if fl.Name == "help" {
		return -1, true
	}
	v, ok := fl.Annotations[originalKey]
	if !ok || len(v) != 1 {
		return 0, false
	}
	n, err := strconv.Atoi(v[0])
	return n, err == nil
}

// IsOriginal reports whether fl is one of the original parser's flags.
func IsOriginal(fl *pflag.Flag) bool {
	_, ok := originalRank(fl)
	return ok
}

// IsList reports whether fl takes zero or more values (argparse's
// nargs='*'): its value is a *List.
func IsList(fl *pflag.Flag) bool {
	_, ok := fl.Value.(*List)
	return ok
}

// Parse reads args into fs. It returns help=true when -h/--help was given,
// and the arguments no flag took (argparse reports those as unrecognized,
// after its required-flag check: see Unrecognized). Every error is an
// *Error.
func Parse(fs *pflag.FlagSet, args []string) (help bool, extras []string, err error) {
	normalized, extras, err := Normalize(fs, args)
	if err != nil {
		return false, nil, err
	}
	if err := fs.Parse(normalized); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return true, nil, nil
		}
		var ae *Error
		if errors.As(err, &ae) {
			return false, nil, ae
		}
		return false, nil, &Error{Msg: err.Error()}
	}
	if fl := fs.Lookup("help"); fl != nil {
		help = fl.Value.String() == "true"
	}
	return help, extras, nil
}

// Unrecognized is argparse's error for the arguments no flag took, or nil.
func Unrecognized(extras []string) error {
	if len(extras) == 0 {
		return nil
	}
	return errorf("unrecognized arguments: %s", strings.Join(extras, " "))
}

// Required is argparse's error for missing required flags, or nil.
func Required(missing ...string) error {
	if len(missing) == 0 {
		return nil
	}
	return errorf("the following arguments are required: %s", strings.Join(missing, ", "))
}

// Exclusive is argparse's error for two flags of a mutually exclusive group
// given in order (the first one given, then the other), or nil when every
// flag given is the same one.
func Exclusive(given []string) error {
	for _, other := range given {
		if other != given[0] {
			return errorf("argument %s: not allowed with argument %s", other, given[0])
		}
	}
	return nil
}

// kind is what argparse makes of one argv token.
type kind int

const (
	value   kind = iota // a value (argparse's 'A')
	option              // a known flag, possibly abbreviated
	unknown             // looks like an option but names no flag
)

// token is one argv token as argparse classifies it.
type token struct {
	kind     kind
	flag     *pflag.Flag // option only
	explicit *string     // the text after '=' (or after -h), option only
}

var negativeNumber = regexp.MustCompile(`^-\p{Nd}+$|^-\p{Nd}*\.\p{Nd}+$`)

// classify tells, as argparse does, whether a is a value, a flag (exact,
// with `=value`, or a unique prefix of a long flag) or an unknown option: it
// starts with '-' and is not '-' alone, a negative number, or a text with a
// space that names no flag.
func classify(fs *pflag.FlagSet, a string) (token, error) {
	if len(a) < 2 || a[0] != '-' {
		return token{kind: value}, nil
	}
	if !strings.HasPrefix(a, "--") {
		// Short flags are single letters; "-hx" is -h with an explicit "x".
		if fl := fs.ShorthandLookup(a[1:2]); fl != nil {
			t := token{kind: option, flag: fl}
			if len(a) > 2 {
				rest := strings.TrimPrefix(a[2:], "=")
				t.explicit = &rest
			}
			return t, nil
		}
	} else if a != "--" {
		name, val, hasValue := strings.Cut(a[2:], "=")
		fl := fs.Lookup(name)
		if fl == nil {
			var err error
			if fl, err = lookupPrefix(fs, name); err != nil {
				return token{}, err
			}
		}
		if fl != nil {
			t := token{kind: option, flag: fl}
			if hasValue {
				t.explicit = &val
			}
			return t, nil
		}
	}
	if negativeNumber.MatchString(a) || strings.Contains(a, " ") {
		return token{kind: value}, nil
	}
	return token{kind: unknown}, nil
}

// lookupPrefix resolves an abbreviated long flag name: first among the
// original parser's flags, then among all of fs's. No match is (nil, nil).
func lookupPrefix(fs *pflag.FlagSet, prefix string) (*pflag.Flag, error) {
	if prefix == "" {
		return nil, nil
	}
	var compat, all []*pflag.Flag
	fs.VisitAll(func(fl *pflag.Flag) {
		if strings.HasPrefix(fl.Name, prefix) {
			all = append(all, fl)
			if IsOriginal(fl) {
				compat = append(compat, fl)
			}
		}
	})
	slices.SortFunc(compat, func(a, b *pflag.Flag) int {
		ra, _ := originalRank(a)
		rb, _ := originalRank(b)
		return cmp.Compare(ra, rb)
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
		return nil, errorf("ambiguous option: --%s could match %s", prefix, strings.Join(names, ", "))
	}
	return nil, nil
}

// Occurrence is one flag given on a command line: args[Start:End] are its
// tokens (the flag, then the values it took), Values what it took.
type Occurrence struct {
	Flag       *pflag.Flag
	Start, End int
	Values     []string
}

// Normalize rewrites args the way argparse reads them into tokens pflag
// parses unambiguously: every flag by its full name, a value always joined
// by '=' (`--suite=-x` cannot be misread), and each occurrence of the list
// flag as the single token --list=<JSON array of its values>. Values are
// taken argparse's way (see Scan). Unknown options, values no flag took,
// and everything from `--` on are returned as extras.
func Normalize(fs *pflag.FlagSet, args []string) (out, extras []string, err error) {
	occurrences, extras, err := Scan(fs, args)
	if err != nil {
		return nil, nil, err
	}
	out = make([]string, 0, len(occurrences))
	for _, o := range occurrences {
		switch {
		case IsList(o.Flag):
			enc, _ := json.Marshal(o.Values) // a []string always encodes
			out = append(out, "--"+o.Flag.Name+"="+string(enc))
		case o.Flag.NoOptDefVal != "":
			out = append(out, "--"+o.Flag.Name)
		default:
			out = append(out, "--"+o.Flag.Name+"="+o.Values[0])
		}
	}
	return out, extras, nil
}

// Scan reads args as argparse does and returns the flags given, in order,
// and the arguments no flag took. `--list=v` is exactly one value; a bare
// `--list` takes every following value (see classify) up to the first
// option or `--`, possibly none. A flag that takes one value must be
// followed by a value; a flag that takes none refuses `=value`. Unknown
// options, values no flag took, and everything from `--` on are extras.
func Scan(fs *pflag.FlagSet, args []string) (occurrences []Occurrence, extras []string, err error) {
	// argparse classifies every token before it consumes any, so an
	// ambiguous prefix anywhere is the first error.
	kinds := make([]token, len(args))
	for i, a := range args {
		if a == "--" {
			break
		}
		if kinds[i], err = classify(fs, a); err != nil {
			return nil, nil, err
		}
	}
	for i := 0; i < len(args); i++ {
		a, k := args[i], kinds[i]
		if a == "--" {
			extras = append(extras, args[i:]...)
			break
		}
		if k.kind != option {
			extras = append(extras, a)
			continue
		}
		fl, start := k.flag, i
		flagName := "--" + fl.Name
		if fl.Shorthand != "" {
			flagName = "-" + fl.Shorthand + "/" + flagName
		}
		next := func() (string, bool) {
			if i+1 < len(args) && args[i+1] != "--" && kinds[i+1].kind == value {
				i++
				return args[i], true
			}
			return "", false
		}
		values := []string{}
		switch {
		case IsList(fl):
			if k.explicit != nil {
				values = append(values, *k.explicit)
			} else {
				for v, ok := next(); ok; v, ok = next() {
					values = append(values, v)
				}
			}
		case fl.NoOptDefVal != "":
			if k.explicit != nil {
				return nil, nil, errorf("argument %s: ignored explicit argument %s", flagName, pyfmt.Repr(*k.explicit))
			}
		default:
			if k.explicit != nil {
				values = append(values, *k.explicit)
			} else {
				v, ok := next()
				if !ok {
					return nil, nil, errorf("argument %s: expected one argument", flagName)
				}
				values = append(values, v)
			}
		}
		occurrences = append(occurrences, Occurrence{Flag: fl, Start: start, End: i + 1, Values: values})
	}
	return occurrences, extras, nil
}
