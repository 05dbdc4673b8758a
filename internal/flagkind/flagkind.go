// Package flagkind declares, on a pflag.Flag itself, what its value is: a
// file the command reads, a file it writes, a directory, one of a list
// miles-ci knows, a number, or free text. The empty-path check, the
// same-output check and shell completion all read that one declaration, so
// a flag is named once, where it is defined, and never again in a list.
//
// The kind is a flag annotation. For files and directories the package also
// sets cobra's own completion annotations (BashCompFilenameExt,
// BashCompSubdirsInDir), so that cobra completes them unaided on the
// commands whose flags it parses.
package flagkind

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Kind is what a flag's value is.
type Kind string

// The kinds. A flag taking no value (a bool) has none.
const (
	None   Kind = ""
	Path   Kind = "path"   // a file the command reads
	Output Kind = "output" // a file the command writes
	Dir    Kind = "dir"    // a directory
	Choice Kind = "choice" // one of a list package complete knows by the flag's name
	Number Kind = "number" // an integer
	Text   Kind = "text"   // anything else: a name, a cron line, JSON, a shell command
)

// The annotation keys.
const (
	kindKey    = "miles-ci_kind"
	emptyOKKey = "miles-ci_empty_ok"
)

// Set declares fl's kind and returns fl. exts, without their dots ("json"),
// narrow the shell's completion of a Path or an Output to those extensions.
func Set(fl *pflag.Flag, k Kind, exts ...string) *pflag.Flag {
	annotate(fl, kindKey, string(k))
	switch k {
	case Path, Output:
		if len(exts) > 0 {
			annotate(fl, cobra.BashCompFilenameExt, exts...)
		}
	case Dir:
		annotate(fl, cobra.BashCompSubdirsInDir)
	}
	return fl
}

// EmptyOK declares that an empty value of the path flag fl means something
// (as the empty environment variable the flag stands for does), so the
// empty-path check lets it through. It returns fl.
func EmptyOK(fl *pflag.Flag) *pflag.Flag {
	annotate(fl, emptyOKKey, "true")
	return fl
}

func annotate(fl *pflag.Flag, key string, values ...string) {
	if fl.Annotations == nil {
		fl.Annotations = map[string][]string{}
	}
	if values == nil {
		values = []string{}
	}
	fl.Annotations[key] = values
}

// String declares on fs the string flag name of kind k (shorthand may be
// "") and returns it.
func String(fs *pflag.FlagSet, p *string, name, shorthand, usage string, k Kind, exts ...string) *pflag.Flag {
	fs.StringVarP(p, name, shorthand, "", usage)
	return Set(fs.Lookup(name), k, exts...)
}

// StringArray declares on fs the repeatable flag name of kind k (each
// occurrence adds one value, commas included) and returns it.
func StringArray(fs *pflag.FlagSet, p *[]string, name, shorthand, usage string, k Kind, exts ...string) *pflag.Flag {
	fs.StringArrayVarP(p, name, shorthand, nil, usage)
	return Set(fs.Lookup(name), k, exts...)
}

// Values are the values fl was given: each of a repeatable flag's, else
// its one value.
func Values(fl *pflag.Flag) []string {
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		return sv.GetSlice()
	}
	return []string{fl.Value.String()}
}

// Of is fl's kind: the one declared; Number for an int flag, which needs no
// declaration; None for a flag taking no value, or a value flag whose kind
// was never declared (see Undeclared).
func Of(fl *pflag.Flag) Kind {
	if v, ok := fl.Annotations[kindKey]; ok && len(v) == 1 {
		return Kind(v[0])
	}
	if fl.Value.Type() == "int" {
		return Number
	}
	return None
}

// Undeclared reports whether fl takes a value but has no kind: each value
// flag has to say what it is, so that no later path flag goes unchecked and
// uncompleted for want of a list entry.
func Undeclared(fl *pflag.Flag) bool {
	return TakesValue(fl) && Of(fl) == None
}

// TakesValue reports whether fl takes a value: a flag with a value for its
// bare name (a bool, a store_true) takes none.
func TakesValue(fl *pflag.Flag) bool { return fl.NoOptDefVal == "" }

// IsFile reports whether fl names a file, read or written.
func IsFile(fl *pflag.Flag) bool {
	k := Of(fl)
	return k == Path || k == Output
}

// RefusesEmpty reports whether an explicitly empty value of fl is an
// error: a file flag given "" would otherwise act as if it were absent.
func RefusesEmpty(fl *pflag.Flag) bool {
	_, ok := fl.Annotations[emptyOKKey]
	return IsFile(fl) && !ok
}

// Extensions are the extensions fl's completion is narrowed to (nil for
// any file).
func Extensions(fl *pflag.Flag) []string {
	return fl.Annotations[cobra.BashCompFilenameExt]
}

// InOrder calls fn for each flag of fs in the order they were declared, not
// pflag's sorted order: where two flags' messages must come in a stable,
// meaningful order (the first output flag, then the second), that order is
// the command's own.
func InOrder(fs *pflag.FlagSet, fn func(*pflag.Flag)) {
	sorted := fs.SortFlags
	fs.SortFlags = false
	defer func() { fs.SortFlags = sorted }()
	fs.VisitAll(fn)
}
