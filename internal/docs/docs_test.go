package docs

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repoRoot is the repository's root, seen from this package's directory
// (where go test runs its tests).
const repoRoot = "../.."

func TestTopics_EveryFileIsRegisteredAndEveryNameHasAFile(t *testing.T) {
	entries, err := files.ReadDir(Dir)
	require.NoError(t, err)
	var onDisk []string
	for _, e := range entries {
		onDisk = append(onDisk, strings.TrimSuffix(e.Name(), ".md"))
	}
	registered := Names()
	slices.Sort(onDisk)
	slices.Sort(registered)
	assert.Equal(t, onDisk, registered, "each topics/NAME.md needs its NAME in names, and each name its file")
}

func TestTopics_EachHasATitleAndText(t *testing.T) {
	topics := Topics()
	require.Len(t, topics, len(names))
	for i, tp := range topics {
		assert.Equal(t, names[i], tp.Name, "listing order")
		assert.True(t, strings.HasPrefix(tp.Text, "# "+tp.Name+": "), "%s: the first line is \"# %s: summary\"", tp.Name, tp.Name)
		assert.NotEmpty(t, tp.Title, tp.Name)
		assert.NotContains(t, tp.Title, "# ", tp.Name)
		assert.NotContains(t, tp.Title, "\n", tp.Name)
		assert.Greater(t, strings.Count(tp.Text, "\n"), 5, "%s has a body", tp.Name)
	}
}

func TestLookup_UnknownNameIsFalse(t *testing.T) {
	for _, name := range []string{"", "nope", "config.md", "topics/config", "CONFIG"} {
		_, ok := Lookup(name)
		assert.False(t, ok, "%q", name)
	}
}

// documents are the Markdown files whose links and package paths must stay
// true: the README and every topic, by their paths in the repository.
func documents(t *testing.T) map[string]string {
	t.Helper()
	docs := map[string]string{}
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	docs["README.md"] = string(b)
	for _, tp := range Topics() {
		docs[filepath.Join("internal", "docs", Dir, tp.Name+".md")] = tp.Text
	}
	return docs
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

func TestDocs_EveryRelativeLinkResolves(t *testing.T) {
	checked := 0
	for path, text := range documents(t) {
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			full := filepath.Join(repoRoot, filepath.Dir(path), filepath.FromSlash(target))
			_, err := os.Stat(full)
			assert.NoError(t, err, "%s links to %s, which does not exist", path, m[1])
			checked++
		}
	}
	assert.Greater(t, checked, 5, "the README links its topics")
}

// A go command line in the docs (go test ./internal/shard) names a package
// that must exist.
var pkgPath = regexp.MustCompile(`\./internal/([a-z0-9_]+)`)

func TestDocs_EveryPackagePathExists(t *testing.T) {
	for path, text := range documents(t) {
		for _, m := range pkgPath.FindAllStringSubmatch(text, -1) {
			info, err := os.Stat(filepath.Join(repoRoot, "internal", m[1]))
			assert.True(t, err == nil && info.IsDir(), "%s names ./internal/%s, which is not a package directory", path, m[1])
		}
	}
}

func TestREADME_AtMost300Lines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	lines := strings.Count(string(b), "\n")
	assert.LessOrEqual(t, lines, 300, "the README is what a newcomer reads in 15 minutes; move reference into a topic")
}

func TestREADME_LinksEveryTopic(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	for _, n := range Names() {
		assert.Contains(t, string(b), "](internal/docs/"+Dir+"/"+n+".md)", "the README's reference table links %s", n)
	}
}

// The README's architecture map names every package directory, and every
// package it names exists: a package added, renamed or removed changes the
// map in the same commit.
func TestREADME_ArchitectureNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## Architecture\n")
	require.True(t, ok, "the README has an Architecture section")
	section, _, _ = strings.Cut(section, "\n## ")

	mentioned := map[string]bool{}
	for _, m := range regexp.MustCompile(`internal/([a-z0-9_]+)`).FindAllStringSubmatch(section, -1) {
		mentioned[m[1]] = true
	}
	entries, err := os.ReadDir(filepath.Join(repoRoot, "internal"))
	require.NoError(t, err)
	exists := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() {
			exists[e.Name()] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(exists)) {
		assert.True(t, mentioned[name], "internal/%s is not in the README's architecture map", name)
	}
	for _, name := range slices.Sorted(maps.Keys(mentioned)) {
		assert.True(t, exists[name], "the README's architecture map names internal/%s, which does not exist", name)
	}
	assert.Contains(t, section, "cmd/miles-ci")
}

// The README's "Where a change goes" table is a newcomer's map: every path
// it names must exist (NAME, Q and CMD stand for the newcomer's own name, so
// some file of that shape must exist), and no kind of change may need more
// than five files.
func TestREADME_WhereAChangeGoesNamesFilesThatExist(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n### Where a change goes\n")
	require.True(t, ok, "the README's architecture has a Where a change goes table")
	section, _, _ = strings.Cut(section, "\n#")

	placeholder := regexp.MustCompile(`(^|[/_])(NAME|Q|CMD)([._/]|$)`)
	code := regexp.MustCompile("`([^`]+)`")
	kinds := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) != 4 || strings.HasPrefix(cells[1], "---") || strings.HasPrefix(strings.TrimSpace(cells[1]), "change") {
			continue
		}
		kind := strings.TrimSpace(cells[1])
		kinds[kind] = true
		paths := map[string]bool{}
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			if strings.Contains(m[1], "/") {
				paths[m[1]] = true
			}
		}
		assert.NotEmpty(t, paths, "%s: the row names no file", kind)
		assert.LessOrEqual(t, len(paths), 5, "%s: a kind of change lands in at most 5 files", kind)
		for p := range paths {
			pattern := filepath.Join(repoRoot, placeholder.ReplaceAllString(strings.TrimSuffix(p, "/"), "${1}*${3}"))
			found, err := filepath.Glob(pattern)
			require.NoError(t, err, p)
			assert.NotEmpty(t, found, "%s: %s names no file of the repository", kind, p)
		}
	}
	for _, want := range []string{"a lint rule", "a report key", "a configuration key", "a history question"} {
		assert.True(t, kinds[want], "the table has a row for %s", want)
	}
}
