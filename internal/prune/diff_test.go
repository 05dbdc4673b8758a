package prune

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/config"
)

func TestParseDiff_UsableDiffs(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Entry
	}{
		{"one modification", "M\x00miles/x.py\x00", []Entry{{"M", []string{"miles/x.py"}}}},
		{"every single-path status", "A\x00a\x00D\x00d\x00M\x00m\x00T\x00t\x00U\x00u\x00X\x00x\x00B\x00b\x00", []Entry{
			{"A", []string{"a"}}, {"D", []string{"d"}}, {"M", []string{"m"}}, {"T", []string{"t"}},
			{"U", []string{"u"}}, {"X", []string{"x"}}, {"B", []string{"b"}}}},
		{"a rename has two paths", "R087\x00docs/old.md\x00docs/new.md\x00", []Entry{{"R087", []string{"docs/old.md", "docs/new.md"}}}},
		{"a copy has two paths", "C75\x00a\x00b\x00", []Entry{{"C75", []string{"a", "b"}}}},
		{"a one-digit score", "R1\x00a\x00b\x00", []Entry{{"R1", []string{"a", "b"}}}},
		{"a score over 100 is still three digits", "R999\x00a\x00b\x00", []Entry{{"R999", []string{"a", "b"}}}},
		{"paths are kept as given", "M\x00./tests/x.py\x00M\x00a b\n\tc\x00", []Entry{
			{"M", []string{"./tests/x.py"}}, {"M", []string{"a b\n\tc"}}}},
		{"UTF-8 paths", "A\x00docs/\u00e9t\u00e9.md\x00", []Entry{{"A", []string{"docs/\u00e9t\u00e9.md"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDiff([]byte(tt.in))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.in, string(WriteDiff(got)))
		})
	}
}

func TestParseDiff_FailsOpen(t *testing.T) {
	tests := []struct {
		name, in, reason string
	}{
		{"empty file", "", "the file is empty"},
		{"no trailing NUL", "M\x00docs/a.md", "the last field does not end in NUL"},
		{"newline instead of NUL", "M\tdocs/a.md\n", "the file has no NUL byte, so it was not made with git diff -z"},
		{"invalid UTF-8", "M\x00docs/\xff.md\x00", "the file is not valid UTF-8"},
		{"an encoded surrogate is not UTF-8", "M\x00\xed\xa0\x80\x00", "the file is not valid UTF-8"},
		{"an overlong encoding is not UTF-8", "M\x00\xc0\xaf\x00", "the file is not valid UTF-8"},
		{"a lone NUL", "\x00", `bad status ""`},
		{"unknown status letter", "Z\x00docs/a.md\x00", `bad status "Z"`},
		{"lower-case status", "m\x00a\x00", `bad status "m"`},
		{"status with a score it must not have", "M100\x00a\x00", `bad status "M100"`},
		{"rename without a score", "R\x00a\x00b\x00", `bad status "R"`},
		{"rename with a four-digit score", "R1000\x00a\x00b\x00", `bad status "R1000"`},
		{"rename with a non-ASCII digit", "R\u0661\x00a\x00b\x00", "bad status \"R\u0661\""},
		{"status with a trailing newline", "M\n\x00a\x00", `bad status "M\n"`},
		{"status then a tab and a path (no -z)", "M\tmiles/x.py\x00", `bad status "M\tmiles/x.py"`},
		{"missing path", "M\x00", `status "M" is missing a path`},
		{"rename missing its second path", "R100\x00a\x00", `status "R100" is missing a path`},
		{"empty path", "M\x00\x00", `status "M" has an empty path`},
		{"rename with an empty source", "R100\x00\x00b\x00", `status "R100" has an empty path`},
		{"rename with an empty target", "R100\x00a\x00\x00", `status "R100" has an empty path`},
		{"a bad entry after good ones", "M\x00a\x00Q\x00b\x00", `bad status "Q"`},
		{"a doubled NUL between entries", "M\x00a\x00\x00M\x00b\x00", `bad status ""`},
		{"a long bad status is shortened", strings.Repeat("x", 30) + "\x00a\x00", `bad status "xxxxxxxxxxxxxxxxxxxx"...`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDiff([]byte(tt.in))
			assert.Nil(t, got)
			var bad *UnusableError
			require.ErrorAs(t, err, &bad)
			assert.Equal(t, tt.reason, bad.Reason)
		})
	}
}

// FuzzParseDiff checks that the reader never panics and that every diff it
// accepts is exactly the serialization of the entries it returns.
func FuzzParseDiff(f *testing.F) {
	for _, s := range []string{
		"", "\x00", "M\x00a\x00", "R100\x00a\x00b\x00", "C5\x00a\x00b\x00D\x00c\x00",
		"M\x00a", "M\x00\x00", "R1\x00a\x00", "\xff\x00", "M\x00docs/\xe9\x00", "Z\x00a\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseDiff(data)
		if err != nil {
			var bad *UnusableError
			if !errors.As(err, &bad) || entries != nil {
				t.Fatalf("unusable diff must be an *UnusableError with no entries: %v %v", err, entries)
			}
			return
		}
		if len(entries) == 0 {
			t.Fatalf("a usable diff has entries: %q", data)
		}
		for _, e := range entries {
			if !validStatus(e.Status) {
				t.Fatalf("accepted bad status %q", e.Status)
			}
			for _, p := range e.Paths {
				if p == "" || strings.IndexByte(p, 0) >= 0 {
					t.Fatalf("accepted bad path %q", p)
				}
			}
		}
		if got := WriteDiff(entries); !bytes.Equal(got, data) {
			t.Fatalf("re-serialization %q differs from input %q", got, data)
		}
	})
}

// pythonNoGPUPath is the reference's rule, written out: an exact name, a
// "docs/" prefix or an ".md"/".mdx" suffix, compared as given.
func pythonNoGPUPath(p string) bool {
	return p == ".pre-commit-config.yaml" || p == "scripts/tools/sync_example_docs.py" ||
		strings.HasPrefix(p, "docs/") || strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".mdx")
}

var noGPUEdgePaths = []string{
	"docs", "docs/", "docs//x", "docs/a/b/c.py", "docs/.hidden", "docs\\x", "./docs/x", "/docs/x", "x/docs/y", "docsx/a.png",
	".md", "a/.md", "..md", "x.md/", "//x.md", "/x.md", "a//b.md", "a\n.md", "x.md\n", "README.MD", "a.mdx", ".mdx", "a.mdxx",
	"[.md", "*.md", "a]b.md", "a{b.md", "a\\b.md", "docs/[x", "docs/{a", "docs/a[", "docs/*",
	".pre-commit-config.yaml", "a/.pre-commit-config.yaml", ".pre-commit-config.yaml/x",
	"scripts/tools/sync_example_docs.py", "scripts/tools/sync_example_docs.pyc", "miles/trainer.py",
}

func TestDefaultNoGPUPaths_MatchThePythonRules(t *testing.T) {
	cfg := config.Default()
	for _, p := range noGPUEdgePaths {
		assert.Equal(t, pythonNoGPUPath(p), cfg.IsNoGPUPath(p), "%q", p)
	}
}

// FuzzNoGPUPaths compares the default configuration's doublestar patterns
// with the reference's string rules on arbitrary paths.
func FuzzNoGPUPaths(f *testing.F) {
	for _, p := range noGPUEdgePaths {
		f.Add(p)
	}
	cfg := config.Default()
	f.Fuzz(func(t *testing.T, p string) {
		if got, want := cfg.IsNoGPUPath(p), pythonNoGPUPath(p); got != want {
			t.Fatalf("IsNoGPUPath(%q) = %v, the Python rule says %v", p, got, want)
		}
	})
}
