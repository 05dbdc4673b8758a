package argparse

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// Choice is a string flag limited to a few choices (argparse's choices=).
// Seen, when set, is called each time the flag is given.
type Choice struct {
	Flag    string // as messages name it: "--hw"
	Target  *string
	Choices []string
	Seen    func()
}

func (v *Choice) String() string { return *v.Target }
func (v *Choice) Type() string   { return "string" }

// Set implements pflag.Value.
func (v *Choice) Set(s string) error {
	if !slices.Contains(v.Choices, s) {
		quoted := make([]string, len(v.Choices))
		for i, c := range v.Choices {
			quoted[i] = pyfmt.Repr(c)
		}
		return errorf("argument %s: invalid choice: %s (choose from %s)", v.Flag, pyfmt.Repr(s), strings.Join(quoted, ", "))
	}
	*v.Target = s
	if v.Seen != nil {
		v.Seen()
	}
	return nil
}

// String is a string flag that records that it was given: an explicitly
// empty value satisfies argparse's required check.
type String struct {
	Target *string
	Given  *bool
}

func (v *String) String() string { return *v.Target }
func (v *String) Type() string   { return "string" }

// Set implements pflag.Value.
func (v *String) Set(s string) error {
	*v.Target, *v.Given = s, true
	return nil
}

// Const is a flag that takes no value, like argparse's store_true or
// store_const. Add it with AddConst, which marks it as taking no value.
type Const struct {
	Flag   string
	Target *bool
	Seen   func()
}

func (v *Const) String() string   { return strconv.FormatBool(*v.Target) }
func (v *Const) Type() string     { return "bool" }
func (v *Const) IsBoolFlag() bool { return true }

// Set implements pflag.Value.
func (v *Const) Set(s string) error {
	if s != "true" {
		return errorf("argument %s: ignored explicit argument %s", v.Flag, pyfmt.Repr(s))
	}
	*v.Target = true
	if v.Seen != nil {
		v.Seen()
	}
	return nil
}

// AddConst adds a Const flag to fs.
func AddConst(fs *pflag.FlagSet, v *Const, name, usage string) {
	fs.VarPF(v, name, "", usage).NoOptDefVal = "true"
}

// List receives the zero-or-more values of the list flag, as Normalize
// encodes them; like argparse, a later occurrence replaces an earlier one.
type List struct{ Target *[]string }

func (v *List) String() string {
	if v.Target == nil || len(*v.Target) == 0 {
		return ""
	}
	return pyfmt.ReprList(*v.Target)
}
func (v *List) Type() string { return "strings" }

// Set implements pflag.Value.
func (v *List) Set(s string) error {
	var values []string
	if err := json.Unmarshal([]byte(s), &values); err != nil {
		// Not from Normalize: take the text as one value.
		values = []string{s}
	}
	if values == nil {
		values = []string{}
	}
	*v.Target = values
	return nil
}

// Int is an int flag read as Python's int() reads it (argparse's
// type=int), with argparse's message for a bad value. Text keeps what was
// typed, so that a message about a value beyond int's range can quote it
// instead of the saturated number; Given, if not nil, records that the
// flag was given.
type Int struct {
	Flag   string
	Target *int
	Given  *bool
	Text   string
	// Spelled is the flag as last given: Flag, or an alias (AddIntAlias).
	Spelled string
}

// Name is the flag as the user spelled it, for messages.
func (v *Int) Name() string { return cmp.Or(v.Spelled, v.Flag) }

func (v *Int) String() string { return strconv.Itoa(*v.Target) }
func (v *Int) Type() string   { return "int" }

// Set implements pflag.Value.
func (v *Int) Set(s string) error {
	n, ok := pyfmt.ParseInt(s)
	if !ok {
		return errorf("argument %s: invalid int value: %s", v.Flag, pyfmt.Repr(s))
	}
	*v.Target, v.Text, v.Spelled = n, s, v.Flag
	if v.Given != nil {
		*v.Given = true
	}
	return nil
}

// Typed is the value the user gave, written as Python writes the int it
// reads (so a value beyond int's range is written in full, not saturated),
// or the default when the flag was not given.
func (v *Int) Typed() string {
	if v.Text == "" {
		return strconv.Itoa(*v.Target)
	}
	return pyfmt.IntText(v.Text)
}

// AddInt adds an Int flag with default def to fs and returns it.
func AddInt(fs *pflag.FlagSet, target *int, given *bool, name string, def int, usage string) *Int {
	*target = def
	v := &Int{Flag: "--" + name, Target: target, Given: given}
	fs.Var(v, name, usage)
	return v
}

// AddIntAlias adds name as another spelling of v's flag. Both set v, as
// two argparse options sharing one dest do: the last one given wins, and
// messages name it.
func AddIntAlias(fs *pflag.FlagSet, v *Int, name, usage string) {
	fs.Var(&intAlias{Int: v, name: "--" + name}, name, usage)
}

type intAlias struct {
	*Int
	name string
}

func (a *intAlias) Set(s string) error {
	flag := a.Flag
	a.Flag = a.name
	defer func() { a.Flag = flag }()
	return a.Int.Set(s)
}
