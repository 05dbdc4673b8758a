package config

import (
	"strings"
	"testing"
)

// FuzzParse checks that no document, however malformed, panics the loader or
// yields an error spanning several lines.
func FuzzParse(f *testing.F) {
	f.Add(string(DefaultYAML()))
	f.Add(minimal)
	f.Add("suites: {cpu: [{name: a, shards: -1}]}")
	f.Add("labels: [{a: b, c: d}]\n")
	f.Add(minimal + "---\n" + minimal)
	f.Add(strings.Replace(minimal, "roots: [tests]", "roots: &r [tests, *r]", 1))
	f.Add("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b, <<: *b]\n")
	f.Fuzz(func(t *testing.T, doc string) {
		c, err := Parse("fuzz.yaml", []byte(doc))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error: %q", err.Error())
			}
			return
		}
		for _, s := range c.Suites {
			if s.Shards < 1 || s.Name == "" {
				t.Fatalf("accepted invalid suite %+v", s)
			}
		}
	})
}
