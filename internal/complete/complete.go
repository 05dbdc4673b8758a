// Package complete answers a shell's completion of a flag's value from what
// the flag declares itself to be (package flagkind): the backends for --hw,
// the roster's suites for --suite (those of the --hw given), the cadences
// for --cadence, run-ci-<label> for --labels; files, narrowed to their
// extensions, for a path; directories for a directory; nothing for a number
// or free text. On the command lines of `run` and `partition`, which parse
// their own arguments (so cobra cannot tell which flag a word belongs to),
// Func reads the flag set itself; on every other command Register tells
// cobra.
package complete

import (
	"cmp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/policy"
)

// Line is what a command line says so far, before the word being completed.
type Line struct {
	// Flag is the flag whose value the next word is; "" when the next
	// word is not a flag's value.
	Flag string
	// HW, Root and Config are the values of --hw, --root and --config
	// given so far ("" when absent).
	HW, Root, Config string
}

// Scan reads args, the words before the one being completed, as values of
// the flags of fs: a flag taking a value takes the next word, a list flag
// (argparse.IsList) every next word up to another flag.
func Scan(fs *pflag.FlagSet, args []string) Line {
	var l Line
	list := false
	set := func(name, value string) {
		switch name {
		case "hw":
			l.HW = value
		case "root":
			l.Root = value
		case "config":
			l.Config = value
		}
	}
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--"); ok && name != "" {
			l.Flag, list = "", false
			if n, v, hasValue := strings.Cut(name, "="); hasValue {
				set(n, v)
			} else if fl := fs.Lookup(name); fl != nil && flagkind.TakesValue(fl) {
				l.Flag, list = name, argparse.IsList(fl)
			}
			continue
		}
		set(l.Flag, a)
		if !list { // a list flag keeps taking values
			l.Flag = ""
		}
	}
	return l
}

// Values returns the values of flag that start with prefix, or nil for a
// flag whose values are not a fixed list (a path, a number). hw narrows
// the suites to one backend when it names one.
func Values(cfg *config.Config, flag, hw, prefix string) []string {
	var all []string
	switch flag {
	case "hw":
		for _, b := range config.Backends {
			all = append(all, string(b))
		}
	case "suite":
		b, ok := config.ParseBackend(hw)
		for _, s := range cfg.Suites {
			if !ok || s.Backend == b {
				all = append(all, s.Name)
			}
		}
	case "cadence", "cadence-override":
		all = config.Cadences
	case "labels":
		for _, l := range cfg.KnownLabels() {
			all = append(all, policy.RunCIPrefix+l)
		}
		all = append(all, policy.LabelRunCIAll, policy.LabelRunCIImg, policy.LabelBypass, policy.LabelNightly)
	default:
		return nil
	}
	var out []string
	for _, v := range all {
		if strings.HasPrefix(v, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// Selection answers the completion of toComplete after args on the
// command line of run or partition, whose flags are fs: what the flag it
// belongs to completes to (see Flag), written as --flag=value when
// toComplete is. A flag name is cobra's to complete.
func Selection(fs *pflag.FlagSet, args []string, toComplete, root, config string) ([]string, cobra.ShellCompDirective) {
	line := Scan(fs, args)
	flag, prefix, lead := line.Flag, toComplete, ""
	if name, value, ok := strings.Cut(toComplete, "="); ok && strings.HasPrefix(name, "--") {
		flag, prefix, lead = name[2:], value, name+"="
	} else if strings.HasPrefix(toComplete, "-") || flag == "" {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	fl := fs.Lookup(flag)
	if fl == nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	values, directive := Flag(fl, prefix, line.HW, cmp.Or(line.Root, root), cmp.Or(line.Config, config))
	if directive == cobra.ShellCompDirectiveNoFileComp {
		for i, v := range values {
			values[i] = lead + v
		}
	}
	return values, directive
}

// Flag answers the completion of prefix as a value of fl, by its kind: a
// Choice's matching values, read from the configuration of root and config
// (the built-in one when that cannot be loaded: completing never fails),
// the suites narrowed to the backend hw when it names one; the extensions
// of a Path or an Output that has them, for the shell to filter files by,
// else any file; directories for a Dir; nothing for the rest.
func Flag(fl *pflag.Flag, prefix, hw, root, config string) ([]string, cobra.ShellCompDirective) {
	switch flagkind.Of(fl) {
	case flagkind.Choice:
		return Values(load(root, config), fl.Name, hw, prefix), cobra.ShellCompDirectiveNoFileComp
	case flagkind.Path, flagkind.Output:
		if exts := flagkind.Extensions(fl); len(exts) > 0 {
			return exts, cobra.ShellCompDirectiveFilterFileExt
		}
		return nil, cobra.ShellCompDirectiveDefault
	case flagkind.Dir:
		return nil, cobra.ShellCompDirectiveFilterDirs
	}
	return nil, cobra.ShellCompDirectiveNoFileComp
}

func load(root, path string) *config.Config {
	cfg, err := config.Load(root, path)
	if err != nil {
		return config.Default()
	}
	return cfg
}

// Func is Selection as the completion of the arguments of a command that
// parses its own flags (run, partition): cobra hands it every word that is
// not a flag name. root and config are read when a completion is asked
// for, after cobra has parsed the global flags into them.
func Func(root, config *string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cmd.InheritedFlags() // merges the global flags into cmd.Flags()
		return Selection(cmd.Flags(), args, toComplete, *root, *config)
	}
}

// Register tells cobra how each value flag of cmd and its subcommands
// completes, by its kind, where cobra's own annotations (which package
// flagkind sets for files and directories) do not: a Choice completes to
// its values, a Number or Text to nothing rather than to file names. A
// command that parses its own flags completes them with Func instead.
func Register(cmd *cobra.Command, root, config *string) {
	if !cmd.DisableFlagParsing {
		register := func(fl *pflag.Flag) {
			switch flagkind.Of(fl) {
			case flagkind.Choice, flagkind.Number, flagkind.Text:
				_ = cmd.RegisterFlagCompletionFunc(fl.Name, func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
					return Flag(fl, toComplete, "", *root, *config)
				})
			}
		}
		cmd.Flags().VisitAll(register)
		cmd.PersistentFlags().VisitAll(register)
	}
	for _, sub := range cmd.Commands() {
		Register(sub, root, config)
	}
}

// SuiteArg completes the first argument of a command to the roster's
// suites (suites rename OLD NEW) and every later one to nothing: a new
// name is the user's to choose.
func SuiteArg(root, config *string) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return Values(load(*root, *config), "suite", "", toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}
