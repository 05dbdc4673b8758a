package cli

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/docs"
)

// historyQuestionNames are the names of the registered history questions
// (historyQuestions), sorted: the tests that every question must pass
// (inert output, no URL printed, both stores alike) iterate them, so a
// new question is held to them without a line of theirs changing.
func historyQuestionNames() []string {
	var names []string
	for _, q := range historyQuestions {
		names = append(names, q(nil).Name())
	}
	slices.Sort(names)
	return names
}

// questionArgs are `history Q` followed by rest, for every question.
func questionArgs(rest ...string) [][]string {
	var out [][]string
	for _, q := range historyQuestionNames() {
		out = append(out, append([]string{"history", q}, rest...))
	}
	return out
}

func TestHistoryQuestions_AreRegisteredOnceEach(t *testing.T) {
	names := historyQuestionNames()
	// Each question lives in its own history_Q.go: the files and the
	// registry name the same questions, so a file that forgot to register
	// (or a registration without its file) is found here, and a new
	// question needs no line of this test.
	files, err := filepath.Glob("history_*.go")
	require.NoError(t, err)
	var inFiles []string
	for _, f := range files {
		q := strings.TrimSuffix(strings.TrimPrefix(f, "history_"), ".go")
		if !strings.HasSuffix(f, "_test.go") && q != "cmd" {
			inFiles = append(inFiles, q)
		}
	}
	require.NotEmpty(t, inFiles)
	assert.Equal(t, inFiles, names, "each internal/cli/history_Q.go registers the question Q")
	assert.Equal(t, slices.Compact(slices.Clone(names)), names, "a question registered twice")
	var sub []string
	for _, c := range NewCmdHistory(nil).Commands() {
		sub = append(sub, c.Name())
	}
	want := append([]string{"import"}, names...)
	slices.Sort(want)
	assert.Equal(t, want, sub, "history lists import and every question, sorted (cobra sorts them)")
}

// Each question has its section in `miles-ci help history` (a heading
// "## history NAME" or "### history NAME").
func TestHistoryQuestions_EachHasItsSectionInTheHistoryTopic(t *testing.T) {
	tp, ok := docs.Lookup("history")
	require.True(t, ok)
	for _, q := range historyQuestionNames() {
		assert.Regexp(t, regexp.MustCompile(`(?m)^#{2,3} history `+regexp.QuoteMeta(q)+`\b`), tp.Text,
			"history %s has no section in internal/docs/topics/history.md", q)
	}
}
