package ghactions

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEscapeData_EscapesPercentFirstThenLineBreaks(t *testing.T) {
	cases := map[string]string{
		"plain":          "plain",
		"100%":           "100%25",
		"a\nb":           "a%0Ab",
		"a\rb":           "a%0Db",
		"%0A literal":    "%250A literal",
		"keeps : and ,":  "keeps : and ,",
		"\r\n%":          "%0D%0A%25",
		"":               "",
		"unicode é 漢 ok": "unicode é 漢 ok",
	}
	for in, want := range cases {
		assert.Equal(t, want, EscapeData(in), "EscapeData(%q)", in)
	}
}

func TestEscapeProperty_AlsoEscapesColonAndComma(t *testing.T) {
	cases := map[string]string{
		"tests/e2e/test_x.py": "tests/e2e/test_x.py",
		"a:b,c":               "a%3Ab%2Cc",
		"50%\n":               "50%25%0A",
		"%3A":                 "%253A",
	}
	for in, want := range cases {
		assert.Equal(t, want, EscapeProperty(in), "EscapeProperty(%q)", in)
	}
}

func TestErrorAnnotation_NamesFileAndLine(t *testing.T) {
	assert.Equal(t,
		"::error file=tests/e2e/test_a%2Cb.py,line=3::tests/e2e/test_a,b.py: suite is required",
		ErrorAnnotation("tests/e2e/test_a,b.py", 3, "tests/e2e/test_a,b.py: suite is required"))
}

func TestErrorAnnotation_OmitsLineWhenUnknown(t *testing.T) {
	assert.Equal(t, "::error file=tests/fast/test_x.py::50%25 too big%0Areally",
		ErrorAnnotation("tests/fast/test_x.py", 0, "50% too big\nreally"))
}

func TestError_EscapesWhatWouldEndOrForgeTheCommand(t *testing.T) {
	assert.Equal(t, "::error::Unknown CI cadence 'x'", Error("Unknown CI cadence 'x'"))
	// A '%' would otherwise be read as the start of an escape, and a line
	// break would end the command and start another one.
	assert.Equal(t, "::error::100%25 broken%0A::error title=X::y", Error("100% broken\n::error title=X::y"))
}

func TestAnnotation_WritesOnlyThePropertiesThatAreSet(t *testing.T) {
	cases := []struct {
		a    Annotation
		want string
	}{
		{Annotation{Level: LevelWarning, File: "tests/e2e/test_x.py", Line: 7, Col: 1, Title: "orphan-registration", Message: "no job runs it"},
			"::warning file=tests/e2e/test_x.py,line=7,col=1,title=orphan-registration::no job runs it"},
		{Annotation{Level: LevelError, File: ".github/workflows/pr-test.yml", Line: 3, Message: "100% wrong\n"},
			"::error file=.github/workflows/pr-test.yml,line=3::100%25 wrong%0A"},
		{Annotation{Level: LevelError, File: "a,b:c.yml", Col: 4, Title: "t:1", Message: "m"},
			"::error file=a%2Cb%3Ac.yml,title=t%3A1::m"},
		// Without a file the annotation is the run's: no file, line or column.
		{Annotation{Level: LevelError, Line: 3, Col: 4, Title: "GPU preflight: host1", Message: "not ready"},
			"::error title=GPU preflight%3A host1::not ready"},
		{Annotation{Level: LevelWarning, Message: "m"}, "::warning::m"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, tc.a.String())
	}
}
