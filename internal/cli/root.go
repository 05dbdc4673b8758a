package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/buildinfo"
	"github.com/radixark/miles-ci/internal/complete"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/suggest"
)

// Version and Commit are stamped by the build (-ldflags "-X
// ...cli.Version=... -X ...cli.Commit=...", as `make build` and `make dist`
// do); left unstamped, --version reads the build information.
var (
	Version = "dev"
	Commit  = ""
)

// NewCmdRoot builds the miles-ci command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "miles-ci",
		Short: "Select, shard and run the Miles CI test suites",
		Long: `miles-ci reads the CI registrations of a Miles checkout (the register_*_ci
calls at the top of each test file), resolves the CI policy of a workflow run,
and selects, shards and runs one stage's tests.`,
		Version:       buildinfo.Describe(Version, Commit),
		SilenceUsage:  true,
		SilenceErrors: true,
		// run and partition parse their own flags (parseOwnFlags checks
		// them there); for them nothing is Changed yet at this point.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return checkPathFlags(cmd.Flags())
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&f.Root, "root", ".", "repository root `DIR`")
	flagkind.Set(pf.Lookup("root"), flagkind.Dir)
	flagkind.String(pf, &f.ConfigPath, "config", "", "configuration `FILE` (default: <root>/"+".miles-ci.yaml, else the built-in Miles configuration)", flagkind.Path, "yaml", "yml")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return &UsageError{Msg: err.Error()}
	})
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	root.SetIn(f.In)

	root.AddCommand(
		NewCmdSuites(f, nil),
		NewCmdPolicy(f, nil),
		NewCmdFileRun(f, nil),
		NewCmdRun(f, nil),
		NewCmdPartition(f, nil),
		NewCmdConfig(f, nil),
		NewCmdTimings(f, nil),
		NewCmdHistory(f),
		NewCmdReport(f),
		NewCmdLint(f, nil),
		NewCmdPreflight(f, nil),
	)
	// cobra's completion command is a group too: made here, so that a
	// mistyped shell (`completion bsh`) is a usage error, not its help.
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args, c.RunE = groupArgs, groupRunE
		}
	}
	complete.Register(root, &f.Root, &f.ConfigPath)
	addHelpTopics(root)
	return root
}

// Main runs miles-ci with args and returns the exit status.
func Main(args []string, f *Factory) int {
	return MainContext(context.Background(), args, f)
}

// finishKey is the annotation of a command a stop signal lets finish,
// declared where the command is built (see finishOnSignal).
const finishKey = "miles-ci/finish-on-signal"

// finishOnSignal is the Annotations of a command a stop signal lets
// finish, saying why: run, which stops its children on the cancelled
// context and still writes its reports, and the commands that write files
// of their own, which a cut could leave half written. Every other command
// only reads and prints (policy's GITHUB_OUTPUT and step summary lines are
// appends of one write each): nothing is lost by ending it at once,
// however long it would take. A new command that writes files says so in
// its own file: Annotations: finishOnSignal("writes -o OUT").
func finishOnSignal(why string) map[string]string {
	return map[string]string{finishKey: why}
}

// finishes says whether a stop signal lets cmd finish (see finishOnSignal).
func finishes(cmd *cobra.Command) bool {
	_, ok := cmd.Annotations[finishKey]
	return ok
}

// MainContext is Main with a context that a signal cancels (with a
// *SignalError cause). The exit status is then 128 + the signal's number
// unless the command chose one: at once for a command that only reads and
// prints, once it has finished for one marked finishOnSignal (run stops its
// children first; main bounds the wait).
func MainContext(ctx context.Context, args []string, f *Factory) int {
	root := NewCmdRoot(f)
	markRunErrors(root)
	root.SetArgs(args)
	// The command is found as cobra finds it, before it runs: nothing else
	// may touch the tree while it does.
	finish := false
	if target, _, err := root.Find(args); err == nil {
		finish = finishes(target)
	}
	// The command and the printing of its error run apart, so that a
	// signal can end a command blocked anywhere, even in a write to a full
	// pipe.
	done := make(chan int, 1)
	go func() {
		cmd, err := root.ExecuteContextC(ctx)
		if err != nil && isCobraUsageError(cmd, err) {
			err = cobraUsageError(err.Error())
		}
		done <- exitCode(err, f.ErrOut, cmd.CommandPath()) // cmd is never nil, root at worst
	}()
	var code int
	select {
	case code = <-done:
	case <-ctx.Done():
		select {
		case code = <-done:
		default:
			if !finish {
				// Left running, it ends with the process.
				return interruptedStatus(ctx)
			}
			code = <-done
		}
	}
	if code == exitOK && ctx.Err() != nil {
		return interruptedStatus(ctx)
	}
	return code
}

// ranError marks an error returned by a command's own RunE; any other error
// from cobra (unknown command, missing required flag, bad argument count)
// is a usage error.
type ranError struct{ err error }

func (e *ranError) Error() string { return e.err.Error() }
func (e *ranError) Unwrap() error { return e.err }

func markRunErrors(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if err := run(cmd, args); err != nil {
				return &ranError{err: err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markRunErrors(sub)
	}
}

func isCobraUsageError(_ *cobra.Command, err error) bool {
	var ran *ranError
	var usage *UsageError
	return !errors.As(err, &ran) && !errors.As(err, &usage)
}

// groupRunE is the RunE of a command that only groups subcommands (report,
// timings). Without it cobra prints the help and exits 0 for a misspelled
// subcommand, so a typo in a workflow step (`report summry … >>
// $GITHUB_STEP_SUMMARY`) would pass; with it, an unknown subcommand is
// cobra's usage error (Args: cobra.NoArgs), and none at all is one too.
func groupRunE(cmd *cobra.Command, _ []string) error {
	return usageErrorf("%s needs a subcommand: %s", cmd.CommandPath(), strings.Join(subcommandNames(cmd), ", "))
}

// groupArgs is the Args of a command that only groups subcommands: an
// argument is a subcommand cobra did not find, and the error names the
// nearest one, as cobra does for a mistyped top-level command.
func groupArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	err := &UsageError{Msg: fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())}
	if near, ok := suggest.Closest(args[0], subcommandNames(cmd)); ok {
		err.Hint = "Did you mean this?\n\t" + near
	}
	return err
}

// needInputs is the Args of a command that reads one or more files: none
// at all is a usage error saying which files the command reads.
func needInputs(expected string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) == 0 {
			return usageErrorf("no input file given; expected %s", expected)
		}
		return nil
	}
}

// subcommandNames are the names of cmd's available subcommands.
func subcommandNames(cmd *cobra.Command) []string {
	var names []string
	for _, sub := range cmd.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	return names
}
