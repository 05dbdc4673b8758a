// Package docs holds the reference that miles-ci carries with it: Markdown
// topics embedded in the binary and shown by `miles-ci help TOPIC`, as
// `go help testflag` shows the go command's.
package docs

import (
	"embed"
	"strings"
)

//go:embed topics/*.md
var files embed.FS

// Dir is where the topic files sit in the embedded file system and, below
// this package, in the repository.
const Dir = "topics"

// names is the order `miles-ci help` lists the topics in. Each is the file
// topics/<name>.md; a test checks that the two agree.
var names = []string{
	"config",
	"migrate",
	"reports",
	"history",
	"hosts",
	"lint-rules",
	"differences",
	"performance",
}

// Topic is one reference page.
type Topic struct {
	// Name is what `miles-ci help NAME` takes.
	Name string
	// Title is the one-line summary the topic list shows: the file's
	// first line, "# NAME: TITLE".
	Title string
	// Text is the whole file, as it is shown.
	Text string
}

// Names returns the topics' names in listing order.
func Names() []string { return append([]string(nil), names...) }

// Topics returns every topic in listing order.
func Topics() []Topic {
	out := make([]Topic, 0, len(names))
	for _, n := range names {
		t, _ := Lookup(n)
		out = append(out, t)
	}
	return out
}

// Lookup returns the topic called name; false when there is none.
func Lookup(name string) (Topic, bool) {
	known := false
	for _, n := range names {
		known = known || n == name
	}
	if !known {
		return Topic{}, false
	}
	b, err := files.ReadFile(Dir + "/" + name + ".md")
	if err != nil {
		// A registered name without its file: the registration test fails
		// on it, and at run time the topic is simply not there.
		return Topic{}, false
	}
	text := string(b)
	first, _, _ := strings.Cut(text, "\n")
	return Topic{Name: name, Title: strings.TrimPrefix(first, "# "+name+": "), Text: text}, true
}
