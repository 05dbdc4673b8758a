package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/docs"
)

func helpFactory() (*Factory, *bytes.Buffer, *bytes.Buffer) {
	return suitesFactory(".", nil)
}

// listedTopics reads the topic names back from the help's "Additional help
// topics:" block.
func listedTopics(t *testing.T, help string) []string {
	t.Helper()
	_, block, ok := strings.Cut(help, "\nAdditional help topics:\n")
	require.True(t, ok, "the help lists the topics:\n%s", help)
	block, _, _ = strings.Cut(block, "\n\n")
	var names []string
	for _, line := range strings.Split(block, "\n") {
		names = append(names, strings.Fields(line)[0])
	}
	return names
}

func TestHelp_ListsTheTopicsAndEachRenders(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}} {
		f, out, errOut := helpFactory()
		require.Equal(t, 0, Main(args, f), errOut.String())
		help := out.String()
		assert.Contains(t, help, "Available Commands:", "%v", args)
		assert.Contains(t, help, `Use "miles-ci help TOPIC" for more about a topic.`, "%v", args)
		names := listedTopics(t, help)
		assert.Equal(t, docs.Names(), names, "%v", args)

		for _, name := range names {
			f, out, errOut := helpFactory()
			require.Equal(t, 0, Main([]string{"help", name}, f), "help %s: %s", name, errOut.String())
			tp, ok := docs.Lookup(name)
			require.True(t, ok, name)
			assert.Equal(t, tp.Text, out.String(), "help %s prints the topic", name)
			assert.NotEmpty(t, strings.TrimSpace(out.String()), name)
			assert.Empty(t, errOut.String(), name)
		}
	}
}

func TestHelp_OnlyTheRootListsTheTopics(t *testing.T) {
	f, out, _ := helpFactory()
	require.Equal(t, 0, Main([]string{"suites", "--help"}, f))
	assert.NotContains(t, out.String(), "Additional help topics:")
}

func TestHelp_ACommandStillShowsItsHelp(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "run"}, "miles-ci run {--hw {cpu,cuda,rocm} --suite SUITE | --file FILE} [flags]"},
		{[]string{"help", "report", "merge"}, "miles-ci report merge REPORT... [-o OUT] [flags]"},
		{[]string{"help", "timings", "merge"}, "miles-ci timings merge FILE... [-o OUT] [flags]"},
		{[]string{"help", "suites"}, "miles-ci suites [flags]"},
	} {
		f, out, errOut := helpFactory()
		require.Equal(t, 0, Main(tc.args, f), "%v: %s", tc.args, errOut.String())
		assert.Contains(t, out.String(), tc.want, "%v", tc.args)
		assert.NotContains(t, out.String(), "Additional help topics:", "%v", tc.args)
	}
	// The config command's own help is config --help; help config is the topic.
	f, out, _ := helpFactory()
	require.Equal(t, 0, Main([]string{"config", "--help"}, f))
	assert.Contains(t, out.String(), "miles-ci config [flags]")
}

func TestHelp_UnknownTopicIsAUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"help", "confg"}, "error: unknown help topic \"confg\"\n\nDid you mean this?\n\tconfig\n\nRun 'miles-ci help --help' for usage.\n"},
		{[]string{"help", "lint-rule"}, "error: unknown help topic \"lint-rule\"\n\nDid you mean this?\n\tlint-rules\n\nRun 'miles-ci help --help' for usage.\n"},
		{[]string{"help", "partiton"}, "error: unknown help topic \"partiton\"\n\nDid you mean this?\n\tpartition\n\nRun 'miles-ci help --help' for usage.\n"},
		{[]string{"help", "report", "merg"}, "error: unknown help topic \"report merg\"\n\nDid you mean this?\n\tmerge\n\nRun 'miles-ci help --help' for usage.\n"},
		{[]string{"help", "xyzzy"}, "error: unknown help topic \"xyzzy\"\nRun 'miles-ci help --help' for usage.\n"},
		{[]string{"help", "config", "extra"}, "error: unknown help topic \"config extra\"\nRun 'miles-ci help --help' for usage.\n"},
	} {
		f, out, errOut := helpFactory()
		assert.Equal(t, 2, Main(tc.args, f), "%v", tc.args)
		assert.Equal(t, tc.want, errOut.String(), "%v", tc.args)
		assert.Empty(t, out.String(), "%v", tc.args)
	}
}

func TestHelp_CompletesTopicsAndCommands(t *testing.T) {
	f, out, errOut := helpFactory()
	require.Equal(t, 0, Main([]string{"__complete", "help", "co"}, f), errOut.String())
	got := out.String()
	assert.Contains(t, got, "config\t")
	assert.Contains(t, got, "completion\t")
	assert.NotContains(t, got, "migrate")

	f, out, errOut = helpFactory()
	require.Equal(t, 0, Main([]string{"__complete", "help", "report", ""}, f), errOut.String())
	assert.Contains(t, out.String(), "merge\t")
	assert.Contains(t, out.String(), "summary\t")
	assert.NotContains(t, out.String(), "config")
}
