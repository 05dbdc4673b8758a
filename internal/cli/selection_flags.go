package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/suggest"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/timings"
)

// The selection flags of `run` and `partition` follow run_suite.py's
// argparse definitions, whose workflows pass `--labels` a space-separated
// expansion that may be empty. These commands therefore parse their own
// argv (cobra's DisableFlagParsing) with package argparse.

// selectionFlags binds the flags shared by run and partition.
type selectionFlags struct {
	HW             string
	Suite          string
	Cadence        string
	Nightly        bool
	Labels         []string
	MatchAllLabels bool
	// Timings is the --timings file to balance the shards on ("" for
	// est_time, the Python runner's basis).
	Timings string

	// cadenceOrder lists --cadence and --nightly in the order given, for
	// the message naming both.
	cadenceOrder []string
	// suiteSet records that --suite was given: `--suite ''` satisfies
	// argparse's required check (and then names no known suite).
	suiteSet bool
	// extras are the arguments no flag took.
	extras []string
	// flags is the command's flag set, which a mistyped flag is compared
	// with (see nearFlag).
	flags *pflag.FlagSet
}

// addSelectionFlags declares the selection flags run_suite.py declares
// first: --hw, --suite, --cadence and --nightly. Called inside
// argparse.AddOriginal, with addLabelFlags after the caller's own
// run_suite.py flags, so that the flag set holds run_suite.py's flags in its
// order (see argparse.AddOriginal).
func addSelectionFlags(fs *pflag.FlagSet, s *selectionFlags, hwRequired bool) {
	s.flags = fs
	hwHelp := "hardware backend `HW`: cpu, cuda or rocm"
	if !hwRequired {
		hwHelp += " (default: the suite's backend)"
	}
	flagkind.Set(fs.VarPF(&argparse.Choice{Flag: "--hw", Target: &s.HW, Choices: []string{"cpu", "cuda", "rocm"}}, "hw", "", hwHelp), flagkind.Choice)
	flagkind.Set(fs.VarPF(&argparse.String{Target: &s.Suite, Given: &s.suiteSet}, "suite", "", "the `SUITE` (CI stage) to select"), flagkind.Choice)
	s.Cadence = policy.Regular
	flagkind.Set(fs.VarPF(&argparse.Choice{Flag: "--cadence", Target: &s.Cadence, Choices: config.Cadences,
		Seen: func() { s.cadenceOrder = append(s.cadenceOrder, "--cadence") }},
		"cadence", "", "CI `CADENCE`: nightly, regular, release or weekly"), flagkind.Choice)
	argparse.AddConst(fs, &argparse.Const{Flag: "--nightly", Target: &s.Nightly,
		Seen: func() { s.cadenceOrder = append(s.cadenceOrder, "--nightly") }},
		"nightly", "alias for --cadence nightly")
}

// addLabelFlags declares the selection flags run_suite.py declares last:
// --labels and --match-all-labels.
func addLabelFlags(fs *pflag.FlagSet, s *selectionFlags) {
	flagkind.Set(fs.VarPF(&argparse.List{Target: &s.Labels}, "labels", "",
		"raw PR `LABELS`, zero or more: run-ci-X selects domain label X; nightly, bypass-fastfail, run-ci-all, run-ci-image"), flagkind.Choice)
	fs.BoolVar(&s.MatchAllLabels, "match-all-labels", false, "include every known domain label")
}

// addTimingsFlag declares --timings, a timings file read (see timingsFlag).
func addTimingsFlag(fs *pflag.FlagSet, p *string, usage string) {
	flagkind.String(fs, p, timingsFlag, "", usage, flagkind.Path, "json")
}

// resolve checks what pflag cannot: first the unrecognized arguments, then,
// in argparse's order, the two cadence flags together and the required
// flags. argparse names the unrecognized arguments last, so that a
// mistyped flag (--siute X) was reported as the --suite it left missing;
// naming the typo first says what to fix. It leaves the effective cadence
// in s.Cadence. orElse, when not empty, is added to argparse's line when
// --suite is missing: the other way of saying what to run (run's --file),
// which run_suite.py did not have.
func (s *selectionFlags) resolve(hwRequired bool, orElse string) error {
	if err := argparse.Unrecognized(s.extras); err != nil {
		err = asUsage(err)
		var u *UsageError
		if near := nearFlag(s.flags, s.extras); near != "" && errors.As(err, &u) {
			u.Hint = "Did you mean this?\n\t" + near
		}
		return err
	}
	if err := argparse.Exclusive(s.cadenceOrder); err != nil {
		return asUsage(err)
	}
	var missing []string
	if hwRequired && s.HW == "" {
		missing = append(missing, "--hw")
	}
	if !s.suiteSet {
		missing = append(missing, "--suite")
	}
	if err := argparse.Required(missing...); err != nil {
		err = asUsage(err)
		var u *UsageError
		if !s.suiteSet && orElse != "" && errors.As(err, &u) {
			u.Msg += orElse
		}
		return err
	}
	if s.Nightly {
		s.Cadence = policy.Nightly
	}
	return nil
}

// nearFlag is the flag of fs nearest to the first long flag among extras
// (--siute, --siute=X), as cobra names a mistyped command; "" when extras
// hold none or nothing is near.
func nearFlag(fs *pflag.FlagSet, extras []string) string {
	if fs == nil {
		return ""
	}
	for _, e := range extras {
		if e == "--" {
			return "" // what follows is positional
		}
		if !strings.HasPrefix(e, "--") {
			continue
		}
		name, _, _ := strings.Cut(e, "=")
		var names []string
		fs.VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, "--"+f.Name)
			}
		})
		near, _ := suggest.Closest(name, names)
		return near
	}
	return ""
}

// selectSuite selects the stage job of these flags from the configuration
// and the registrations the command collected (see suite.Select; in gives
// the split and the rest), reading here every other file the selection
// looks at: the --timings file and the earlier report rerun names ("" for
// none). The policy's errors come first; shown, when not nil, gets the
// resolved policy before anything else can fail, as the Python runner
// prints it before it checks the suite. Label warnings go to f.ErrOut.
func (s *selectionFlags) selectSuite(f *Factory, cfg *config.Config, regs []registry.Registration, in suite.Inputs, rerun string, shown func(policy.Policy) error) (*suite.Plan, error) {
	pol, warnings, err := policy.ForRun(cfg, s.Cadence, s.Labels, s.MatchAllLabels)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(f.ErrOut, "warning: %s\n", w.Msg)
	}
	if shown != nil {
		if err := shown(pol); err != nil {
			return nil, err
		}
	}
	in.Backend, _ = config.ParseBackend(s.HW) // "" (the suite's) when --hw is absent
	in.Suite, in.Policy = s.Suite, pol
	if s.Timings != "" {
		measured, err := timings.Read(s.Timings)
		if err != nil {
			return nil, err
		}
		in.Timings = &suite.Timings{Path: s.Timings, Seconds: measured}
	}
	if rerun != "" {
		if in.Previous, err = report.ReadWithoutOutput(rerun); err != nil {
			return nil, err
		}
	}
	return suite.Select(cfg, regs, in)
}

// parseOwnFlags parses args (everything after the command path, global
// flags included) into cmd's flags. It returns help=true when --help was
// asked for, and the arguments argparse would call unrecognized (the caller
// reports them before anything else, see resolve).
func parseOwnFlags(cmd *cobra.Command, args []string) (help bool, extras []string, err error) {
	cmd.InheritedFlags() // merges the global flags into cmd.Flags()
	help, extras, err = argparse.Parse(cmd.Flags(), args)
	if err != nil || help {
		return help, nil, asUsage(err)
	}
	return false, extras, checkPathFlags(cmd.Flags())
}

// asUsage makes argparse's refusal a usage error (exit 2), as argparse's
// own exit was.
func asUsage(err error) error {
	var ae *argparse.Error
	if errors.As(err, &ae) {
		return &UsageError{Msg: ae.Msg}
	}
	return err
}

// checkPathFlags refuses an explicitly empty value of a file flag of fs
// (see flagkind.RefusesEmpty): given `--timings "$UNSET"`, each would
// otherwise act as if it were absent (the default configuration, the
// default split, no report, all silently), and an empty --file (run,
// file-run) would turn a file run into a suite run. It also refuses one
// file given to two output flags, where the second report would silently
// replace the first. Flags are checked in the order the command declares
// them.
func checkPathFlags(fs *pflag.FlagSet) error {
	var empty *pflag.Flag
	var outputs []*pflag.Flag
	flagkind.InOrder(fs, func(fl *pflag.Flag) {
		if !fl.Changed {
			return
		}
		if empty == nil && flagkind.RefusesEmpty(fl) && slices.Contains(flagkind.Values(fl), "") {
			empty = fl
		}
		if flagkind.Of(fl) == flagkind.Output && fl.Value.String() != "" {
			outputs = append(outputs, fl)
		}
	})
	if empty != nil {
		return usageErrorf("--%s needs a path, got an empty value", empty.Name)
	}
	for i, a := range outputs {
		for _, b := range outputs[i+1:] {
			if fsutil.SameOutput(a.Value.String(), b.Value.String()) {
				return usageErrorf("--%s and --%s name the same file %q; give each its own path", a.Name, b.Name, b.Value.String())
			}
		}
	}
	return nil
}

// timingsFlag is the flag of `run`, `partition` and `suites` naming a
// timings file to shard by (or, for suites, to compare with est_time). It is
// not one of run_suite.py's, so an abbreviation run_suite.py accepts
// (`--tim` is `--timeout-per-file`) still resolves as before.
const timingsFlag = "timings"

const timingsUsage = "balance shards on the measured seconds in the timings file `PATH` (as --timings-out writes it); est_time stays the declared one everywhere else"
