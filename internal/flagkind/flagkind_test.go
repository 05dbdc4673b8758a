package flagkind

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
)

func TestKinds_SayWhatTheChecksAndCompletionNeed(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var s string
	var n int
	report := String(fs, &s, "report", "o", "", Output, "json")
	env := EmptyOK(String(fs, &s, "env-file", "", "", Path))
	dir := String(fs, &s, "root", "", "", Dir)
	name := String(fs, &s, "name", "", "", Text)
	fs.IntVar(&n, "size", 0, "")
	fs.Bool("json", false, "")
	fs.String("forgotten", "", "")

	assert.Equal(t, Output, Of(report))
	assert.True(t, IsFile(report))
	assert.True(t, RefusesEmpty(report))
	assert.Equal(t, []string{"json"}, Extensions(report))
	assert.Equal(t, []string{"json"}, report.Annotations[cobra.BashCompFilenameExt], "cobra filters by the extensions")
	assert.Equal(t, "o", fs.ShorthandLookup("o").Shorthand)

	assert.False(t, RefusesEmpty(env), "an empty value that means something")
	assert.Nil(t, Extensions(env), "any file")
	assert.Contains(t, dir.Annotations, cobra.BashCompSubdirsInDir, "cobra completes directories")
	assert.False(t, RefusesEmpty(dir), "only files refuse an empty value")
	assert.False(t, IsFile(name))

	assert.Equal(t, Number, Of(fs.Lookup("size")), "an int needs no declaration")
	assert.Equal(t, None, Of(fs.Lookup("json")))
	assert.False(t, Undeclared(fs.Lookup("json")), "a bool takes no value")
	assert.True(t, Undeclared(fs.Lookup("forgotten")))
}

func TestInOrder_VisitsInDeclarationOrderAndKeepsTheSort(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	for _, name := range []string{"junit-xml", "json-report", "timings-out"} {
		fs.String(name, "", "")
	}
	var got []string
	InOrder(fs, func(fl *pflag.Flag) { got = append(got, fl.Name) })
	assert.Equal(t, []string{"junit-xml", "json-report", "timings-out"}, got)
	assert.True(t, fs.SortFlags, "help still lists the flags sorted")
}

// A repeatable path flag is a path flag like any other, and each of its
// values is checked.
func TestStringArray_EachValueIsAValue(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	var files []string
	var one string
	fl := StringArray(fs, &files, "runners", "", "", Path, "json")
	String(fs, &one, "one", "", "", Path)
	assert.Equal(t, Path, Of(fl))
	assert.True(t, RefusesEmpty(fl))
	assert.Equal(t, []string{"json"}, Extensions(fl))
	assert.NoError(t, fs.Parse([]string{"--runners", "a,b.json", "--runners", "", "--one", "x"}))
	assert.Equal(t, []string{"a,b.json", ""}, files)
	assert.Equal(t, []string{"a,b.json", ""}, Values(fl))
	assert.Equal(t, []string{"x"}, Values(fs.Lookup("one")))
}
