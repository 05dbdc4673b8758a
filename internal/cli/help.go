package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/docs"
	"github.com/radixark/miles-ci/internal/suggest"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// addHelpTopics gives root the reference topics of package docs: `miles-ci
// help` lists them after the commands, `miles-ci help TOPIC` prints one, as
// `go help testflag` does. A name that is both a topic and a command
// (config) shows the topic: the command's own help is `miles-ci config
// --help`, and the topic says so.
func addHelpTopics(root *cobra.Command) {
	defaultHelp := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		defaultHelp(c, args)
		if c == root {
			writeTopicList(c.OutOrStdout(), root.Name())
		}
	})
	root.SetHelpCommand(newCmdHelp(root))
}

// writeTopicList is the end of the root's help: each topic with its title.
func writeTopicList(w io.Writer, name string) {
	var rows [][]string
	for _, t := range docs.Topics() {
		rows = append(rows, []string{t.Name, t.Title})
	}
	fmt.Fprint(w, "\nAdditional help topics:\n")
	fmt.Fprint(w, textfmt.Layout{Indent: "  ", Left: 2, Show: textfmt.AsIs}.Render(rows))
	fmt.Fprintf(w, "\nUse \"%s help TOPIC\" for more about a topic.\n", name)
}

func newCmdHelp(root *cobra.Command) *cobra.Command {
	return &cobra.Command{
		Use:   "help [command | topic]",
		Short: "Help about any command, or a reference topic",
		Long: `Help prints the help of a command (miles-ci help report merge) or a reference
topic (miles-ci help config); with no argument, the commands and the topics.`,
		ValidArgsFunction: func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			var out []cobra.Completion
			cmd := root
			if len(args) == 0 {
				for _, t := range docs.Topics() {
					out = append(out, cobra.CompletionWithDesc(t.Name, t.Title))
				}
			} else if found, rest, err := root.Find(args); err == nil && len(rest) == 0 {
				cmd = found
			} else {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			var matching []cobra.Completion
			for _, c := range out {
				if strings.HasPrefix(c, toComplete) {
					matching = append(matching, c)
				}
			}
			return matching, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return root.Help()
			}
			if len(args) == 1 {
				if t, ok := docs.Lookup(args[0]); ok {
					_, err := io.WriteString(c.OutOrStdout(), t.Text)
					return err
				}
			}
			cmd, rest, err := root.Find(args)
			if err == nil && len(rest) == 0 && cmd != root {
				cmd.InitDefaultHelpFlag()
				cmd.InitDefaultVersionFlag()
				return cmd.Help()
			}
			return unknownHelpTopic(root, args)
		},
	}
}

// unknownHelpTopic is the usage error of `help NAME` for a NAME that is
// neither a topic nor a command, with the nearest of them as a hint.
func unknownHelpTopic(root *cobra.Command, args []string) error {
	parent := root
	if len(args) > 1 {
		if found, _, err := root.Find(args[:len(args)-1]); err == nil && found != root {
			parent = found
		}
	}
	var names []string
	if parent == root {
		names = docs.Names()
	}
	for _, sub := range parent.Commands() {
		if sub.IsAvailableCommand() {
			names = append(names, sub.Name())
		}
	}
	err := &UsageError{Msg: fmt.Sprintf("unknown help topic %q", strings.Join(args, " "))}
	if near, ok := suggest.Closest(args[len(args)-1], names); ok {
		err.Hint = "Did you mean this?\n\t" + near
	}
	return err
}
