// Package complete answers a shell's completion of a flag's value on the
// command lines of `run` and `partition`, which parse their own arguments
// (so cobra cannot tell which flag a word belongs to): the backends for
// --hw, the roster's suites for --suite (those of the --hw given), the
// cadences for --cadence, and run-ci-<label> for --labels.
package complete

import (
	"cmp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/policy"
)

// Line is what a command line says so far, before the word being completed.
type Line struct {
	// Flag is the flag whose value the next word is ("hw", "suite",
	// "cadence", "labels", or another flag taking a value); "" when the
	// next word is not a flag's value.
	Flag string
	// HW, Root and Config are the values of --hw, --root and --config
	// given so far ("" when absent).
	HW, Root, Config string
}

// valueFlags take one value; labels takes zero or more.
var valueFlags = map[string]bool{
	"hw": true, "suite": true, "cadence": true, "root": true, "config": true, "timings": true,
	"auto-partition-id": true, "auto-partition-size": true, "size": true, "id": true,
	"timeout-per-file": true, "max-attempts": true, "retry-wait-seconds": true,
	"retry-timeout-increase": true, "junit-xml": true, "json-report": true, "timings-out": true,
	"gate-hook": true,
}

// Scan reads args, the words before the one being completed.
func Scan(args []string) Line {
	var l Line
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
			l.Flag = ""
			if n, v, hasValue := strings.Cut(name, "="); hasValue {
				set(n, v)
			} else if valueFlags[name] || name == "labels" {
				l.Flag = name
			}
			continue
		}
		set(l.Flag, a)
		if l.Flag != "labels" { // --labels keeps taking values
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
	case "cadence":
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
// command line of run or partition: the matching values of the flag it
// belongs to (written as --flag=value when toComplete is), read from the
// configuration of the --root and --config given (else root and config;
// the built-in one when that cannot be loaded: completing never fails).
// files is true when the value is a path or a number, which the shell
// completes itself; a flag name is cobra's to complete.
func Selection(args []string, toComplete, root, config string) (values []string, files bool) {
	line := Scan(args)
	flag, prefix, lead := line.Flag, toComplete, ""
	if name, value, ok := strings.Cut(toComplete, "="); ok && strings.HasPrefix(name, "--") {
		flag, prefix, lead = name[2:], value, name+"="
	} else if strings.HasPrefix(toComplete, "-") || flag == "" {
		return nil, false
	}
	values = Values(load(cmp.Or(line.Root, root), cmp.Or(line.Config, config)), flag, line.HW, prefix)
	if values == nil {
		return nil, true
	}
	for i, v := range values {
		values[i] = lead + v
	}
	return values, false
}

func load(root, path string) *config.Config {
	cfg, err := config.Load(root, path)
	if err != nil {
		return config.Default()
	}
	return cfg
}

// Func is Selection as a cobra completion function. root and config are
// read when a completion is asked for, after cobra has parsed the global
// flags into them. A command whose flags cobra parses registers it for one
// flag, named in before ("--suite"); run and partition, which parse their
// own, register it for their arguments, and cobra hands it every word that
// is not a flag name.
func Func(root, config *string, before ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		values, files := Selection(append(before, args...), toComplete, *root, *config)
		if files {
			return nil, cobra.ShellCompDirectiveDefault
		}
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}
