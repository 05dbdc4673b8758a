package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// keyedKey is one key of a keyed section, as its tags declare it.
type keyedKey struct {
	name  string // section.key
	field reflect.StructField
	keyField
}

// keyedKeys returns every key of the keyed sections (the fields of Config
// tagged section:"NAME"), as their tags declare them.
func keyedKeys(t *testing.T) []keyedKey {
	var out []keyedKey
	ct := reflect.TypeFor[Config]()
	for i := range ct.NumField() {
		section := ct.Field(i).Tag.Get("section")
		if section == "" {
			continue
		}
		out = appendKeys(t, out, section, ct.Field(i).Type)
	}
	require.NotEmpty(t, out)
	return out
}

// appendKeys appends the keys of the section struct st, its blocks' keys
// after the block's own.
func appendKeys(t *testing.T, out []keyedKey, section string, st reflect.Type) []keyedKey {
	fields := keyFields(st)
	require.NotEmpty(t, fields, "section %s has no tagged key", section)
	for _, kf := range fields {
		k := keyedKey{name: section + "." + kf.key, field: st.FieldByIndex(kf.index), keyField: kf}
		out = append(out, k)
		if kf.check == "block" {
			out = appendKeys(t, out, k.name, k.field.Type)
		}
	}
	return out
}

// The key table of `miles-ci help config` is derived from the tags: every
// key a tag declares has its row there, with its default as the tag says
// ("required" for a required key, "none" for a key without a default),
// and every row names a key a tag declares.
func TestKeys_TheDocsKeyTableListsEveryKey(t *testing.T) {
	b, err := os.ReadFile("../docs/topics/config.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(b), "\n## Keys of ")
	require.True(t, ok, "config.md has a Keys section")
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([a-z_]+\\.[a-z_.]+)` \\| ([^|]+) \\|")
	documented := map[string]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		_, dup := documented[m[1]]
		assert.False(t, dup, "config.md lists key %s twice", m[1])
		documented[m[1]] = strings.TrimSpace(m[2])
	}
	declared := map[string]bool{}
	for _, k := range keyedKeys(t) {
		declared[k.name] = true
		doc, ok := documented[k.name]
		if !assert.True(t, ok, "configuration key %s (config.go, field %s) has no row in the key table of internal/docs/topics/config.md", k.name, k.field.Name) {
			continue
		}
		want := "none"
		switch {
		case k.required != "":
			want = "required"
		case k.def != "":
			want = "`" + k.def + "`"
		}
		assert.Equal(t, want, doc, "the default of %s in config.md is its tag's", k.name)
	}
	for name := range documented {
		assert.True(t, declared[name], "config.md's key table lists %s, which no field of config.go declares", name)
	}
}

// Every tag names a kind readKey knows, for a field of that kind's type,
// and a default that reads as a value of the key.
func TestKeys_TagsNameAKnownKindOfTheFieldsType(t *testing.T) {
	for _, k := range keyedKeys(t) {
		name, arg, _ := strings.Cut(k.check, "=")
		if name == "block" {
			assert.Equal(t, reflect.Struct, k.field.Type.Kind(), "%s: a block is a struct of keys", k.name)
			assert.Empty(t, k.def, "%s: a block's defaults are its keys'", k.name)
			continue
		}
		kind, ok := kinds[name]
		if !assert.True(t, ok, "%s: check %q is no kind", k.name, k.check) {
			continue
		}
		assert.Equal(t, kind.typ, k.field.Type, "%s: a %s key is a %s field", k.name, name, kind.typ)
		if name == "text" {
			_, ok := texts[arg]
			assert.True(t, ok, "%s: no text rule %q", k.name, arg)
		}
		if k.def != "" {
			assert.NotPanics(t, func() { defaultValue("s", k.keyField, k.field.Type) }, "%s: default %q", k.name, k.def)
		}
		assert.False(t, k.def != "" && k.required != "", "%s: a required key has no default", k.name)
	}
}

// Every kind takes its good example, as a value of its type, and refuses
// its bad one with a one-line message naming the key, its value and line.
func TestKinds_TakeAndRefuseTheirExamples(t *testing.T) {
	p := &parser{file: "ci.yaml"}
	node := func(text string) *yaml.Node {
		var doc yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte("\n"+text), &doc), text)
		return doc.Content[0]
	}
	for name, k := range kinds {
		x, err := p.readKey(node(k.good), "s.key", name+"="+k.arg)
		if assert.NoError(t, err, "%s takes %s", name, k.good) {
			assert.Equal(t, k.typ, reflect.TypeOf(x), "%s reads a %s", name, k.typ)
		}
		_, err = p.readKey(node(k.bad), "s.key", name+"="+k.arg)
		if assert.Error(t, err, "%s refuses %s", name, k.bad) {
			assert.Regexp(t, `^ci\.yaml:2: s\.key [^\n]*must be [^\n]+$`, err.Error(), name)
		}
	}
}

// The kinds a new key is likely to need, a list of strings and a
// duration, read and refuse values as the sections' keys do; a key left
// out keeps its default, and a required one left out names the section; a
// block of keys reads as a section of its own.
func TestKeyed_ReadsAStringListADurationAndABlock(t *testing.T) {
	type limits struct {
		Wait time.Duration `key:"wait" check:"duration" default:"1m"`
		Max  int           `key:"max" check:"seconds"`
	}
	type probe struct {
		Argv    []string      `key:"argv" check:"strings" required:"command"`
		Timeout time.Duration `key:"timeout" check:"duration" default:"30s"`
		Mode    string        `key:"mode" check:"enum=a|b|c" default:"b"`
		Limits  limits        `key:"limits" check:"block"`
	}
	read := func(doc string) (probe, error) {
		var n yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(doc), &n))
		var got probe
		_, err := (&parser{file: "ci.yaml"}).keyed(n.Content[0], "probe", &got)
		return got, err
	}
	got, err := read("argv: [nvidia-smi, -L]\n")
	require.NoError(t, err)
	assert.Equal(t, probe{Argv: []string{"nvidia-smi", "-L"}, Timeout: 30 * time.Second, Mode: "b", Limits: limits{Wait: time.Minute}}, got)
	got, err = read("argv: []\ntimeout: 1m30s\nmode: c\nlimits: {max: 5}\n")
	require.NoError(t, err)
	assert.Equal(t, probe{Argv: []string{}, Timeout: 90 * time.Second, Mode: "c", Limits: limits{Wait: time.Minute, Max: 5}}, got)

	for doc, msg := range map[string]string{
		"timeout: 5s\n":                  `ci.yaml:1: the probe section has no "argv" command`,
		"argv: nvidia-smi\n":             `ci.yaml:1: probe.argv must be a list of strings`,
		"argv: [a, [b]]\n":               `ci.yaml:1: probe.argv entry must be a string`,
		"argv: [a]\ntimeout: 0\n":        `ci.yaml:2: probe.timeout "0" must be a positive duration, as 120s, 2m or 1m30s (a bare number is seconds), of at most 2147483647 seconds`,
		"argv: [a]\nmode: d\n":           `ci.yaml:2: probe.mode "d" must be a, b or c`,
		"argv: [a]\nretries: 3\n":        `ci.yaml:2: unknown key "retries" in probe; expected one of argv, timeout, mode, limits`,
		"argv: [a]\nmode: [a]\n":         `ci.yaml:2: probe.mode must be a string`,
		"argv: [a]\nargv: [b]\n":         `ci.yaml:2: key "argv" appears twice in probe`,
		"- argv\n":                       `ci.yaml:1: probe must be a mapping`,
		"argv: [a]\ntimeout: 1.5\n":      `ci.yaml:2: probe.timeout "1.5" must be a positive duration`,
		"argv: [a]\ntimeout: 2147483648": `ci.yaml:2: probe.timeout "2147483648" must be a positive duration`,
		"argv: [a]\nlimits: {max: 0}\n":  `ci.yaml:2: probe.limits.max "0" must be a whole number of seconds from 1 to 2147483647`,
		"argv: [a]\nlimits: {min: 1}\n":  `ci.yaml:2: unknown key "min" in probe.limits; expected one of wait, max`,
		"argv: [a]\nlimits: 3\n":         `ci.yaml:2: probe.limits must be a mapping`,
	} {
		_, err := read(doc)
		if assert.Error(t, err, doc) {
			assert.True(t, strings.HasPrefix(err.Error(), msg), "%q: %s, want %s", doc, err, msg)
		}
	}
}

// A section's allowed keys, in its messages, are its struct's keys in
// declaration order.
// The list is read from the tags here too, so that a new key changes no
// test; its first keys are spelled out, so that the order is checked.
func TestKeyed_AllowedKeysAreTheTagsInOrder(t *testing.T) {
	keysOf := func(v any) string {
		var keys []string
		for _, kf := range keyFields(reflect.TypeOf(v)) {
			keys = append(keys, kf.key)
		}
		return strings.Join(keys, ", ")
	}
	for _, c := range []struct{ doc, msg, first string }{
		{"preflight:\n  retries: 3\n", `unknown key "retries" in preflight; expected one of ` + keysOf(Preflight{}), "timeout, interval, query_timeout, foreign_processes, "},
		{"file_run:\n  image: x\n", `unknown key "image" in file_run; expected one of ` + keysOf(FileRun{}), "image_repository, min_timeout"},
		{"gate:\n  module: x\n", `unknown key "module" in gate; expected one of ` + keysOf(Gate{}), "python, hook, store, provenance, registry, timeout"},
	} {
		_, err := Parse("ci.yaml", []byte(minimal+c.doc))
		assert.ErrorContains(t, err, c.msg)
		assert.ErrorContains(t, err, "expected one of "+c.first)
	}
}
