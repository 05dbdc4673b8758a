package config

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// A key of a keyed section (file_run, gate, preflight, suite_defaults: the
// fields of Config tagged `section:"NAME"`) is declared once, on its field:
//
//	Timeout time.Duration `key:"timeout" check:"duration" default:"120s"`
//
// key is its name in the section; check the kind of its value (see
// kinds), which reads and checks it; default, when given, the value a
// section without the key gets, written as in the file and read as the key
// is; required, a key the section must have, named as the tag says in
// "the gate section has no "hook" function". The section's allowed keys,
// in the order its messages list them, are its fields' keys in declaration
// order, and the key table of `miles-ci help config` is tested against
// them (TestKeys_TheDocsKeyTableListsEveryKey).

// keyField is one tagged field of a keyed section's struct.
type keyField struct {
	index    []int  // of the field in its struct (reflect's FieldByIndex)
	key      string // its name in the section
	check    string // its kind, as "duration" or "enum=warn|fail"
	def      string // its default as YAML text, "" for none
	required string // the word naming it when missing, "" when optional
}

// keyFields returns the tagged fields of a section's struct type, in
// declaration order. The keys of a struct embedded without a key of its
// own are the section's, in its place (the preflight section's probe and
// probe_timeout are Probe's, which a suite's preflight block also reads).
func keyFields(t reflect.Type) []keyField {
	var out []keyField
	for i := range t.NumField() {
		field := t.Field(i)
		key := field.Tag.Get("key")
		if key == "" && field.Anonymous && field.Type.Kind() == reflect.Struct {
			for _, kf := range keyFields(field.Type) {
				kf.index = append([]int{i}, kf.index...)
				out = append(out, kf)
			}
			continue
		}
		if key != "" {
			out = append(out, keyField{index: []int{i}, key: key, check: field.Tag.Get("check"), def: field.Tag.Get("default"), required: field.Tag.Get("required")})
		}
	}
	return out
}

// keyed reads the section n (nil when the file has none) into dst, a
// pointer to the section's struct: every field's default first, then each
// key the section holds, in the struct's order. It returns the section's
// values by key, for what a section does beyond its keys.
func (p *parser) keyed(n *yaml.Node, name string, dst any) (map[string]*yaml.Node, error) {
	s := reflect.ValueOf(dst).Elem()
	setDefaults(name, s)
	fields := keyFields(s.Type())
	if n == nil {
		return nil, nil
	}
	allowed := make([]string, len(fields))
	for i, kf := range fields {
		allowed[i] = kf.key
	}
	f, err := p.fields(n, name, allowed...)
	if err != nil {
		return nil, err
	}
	for _, kf := range fields {
		v := f[kf.key]
		switch {
		case v == nil && kf.required != "":
			return nil, p.errf(n, "the %s section has no %q %s", name, kf.key, kf.required)
		case v == nil:
			continue
		case kf.check == "block":
			if _, err := p.keyed(v, name+"."+kf.key, s.FieldByIndex(kf.index).Addr().Interface()); err != nil {
				return nil, err
			}
			continue
		}
		x, err := p.readKey(v, name+"."+kf.key, kf.check)
		if err != nil {
			return nil, err
		}
		s.FieldByIndex(kf.index).Set(reflect.ValueOf(x).Convert(s.FieldByIndex(kf.index).Type()))
	}
	return f, nil
}

// setDefaults sets each field of the section struct s that has a default
// tag, and those of its blocks (check:"block": a struct of keys of its
// own, read as the section name.key).
func setDefaults(name string, s reflect.Value) {
	for _, kf := range keyFields(s.Type()) {
		switch {
		case kf.check == "block":
			setDefaults(name+"."+kf.key, s.FieldByIndex(kf.index))
		case kf.def != "":
			s.FieldByIndex(kf.index).Set(defaultValue(name, kf, s.FieldByIndex(kf.index).Type()))
		}
	}
}

// defaultValue is the value of a key's default tag, read as a value in a
// file is. A default that does not read is a mistake in the tag, never in
// a file: it panics (and every test that parses a configuration finds it).
func defaultValue(section string, kf keyField, t reflect.Type) reflect.Value {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(kf.def), &doc); err != nil || len(doc.Content) != 1 {
		panic(fmt.Sprintf("config: the default of %s.%s, %q, is not one YAML value", section, kf.key, kf.def))
	}
	x, err := (&parser{file: "default tag"}).readKey(doc.Content[0], section+"."+kf.key, kf.check)
	if err != nil {
		panic("config: " + err.Error())
	}
	return reflect.ValueOf(x).Convert(t)
}

// readKey reads the value v of the key what by its check, a kind and
// what follows its "=" (see kinds). A kind no key has yet is a line of
// kinds: its Go type, its reader, and a value it takes and one it refuses,
// which TestKinds_TakeAndRefuseTheirExamples reads.
func (p *parser) readKey(v *yaml.Node, what, check string) (any, error) {
	name, arg, _ := strings.Cut(check, "=")
	k, ok := kinds[name]
	if !ok {
		panic(fmt.Sprintf("config: %s has no known check %q", what, check))
	}
	return k.read(p, v, what, arg)
}

// kind is how a key's value is read: into its Go type typ, or a problem,
// most often "what "value" must be ..." (see mustBe).
type kind struct {
	typ  reflect.Type
	read func(p *parser, v *yaml.Node, what, arg string) (any, error)
	// arg, good and bad are an example of the check's argument, a value
	// the kind takes and one it refuses, as YAML text.
	arg, good, bad string
}

// mustBe is the problem of a value of the wrong kind.
func (p *parser) mustBe(v *yaml.Node, what, phrase string) error {
	return p.errf(v, "%s %q must be %s", what, v.Value, phrase)
}

// kinds are the checks a key's tag names (check:"NAME" or "NAME=ARG");
// block, a struct of keys of its own, keyed reads as a section.
var kinds = map[string]kind{
	// A positive duration: Go's syntax (120s, 2m, 1m30s) or whole
	// seconds, at most MaxTimeout seconds.
	"duration": {reflect.TypeFor[time.Duration](), func(p *parser, v *yaml.Node, what, _ string) (any, error) {
		bad := p.mustBe(v, what, fmt.Sprintf("a positive duration, as 120s, 2m or 1m30s (a bare number is seconds), of at most %d seconds", MaxTimeout))
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			return nil, bad
		}
		if v.Tag == "!!int" {
			secs, err := strconv.ParseInt(v.Value, 10, 64)
			if err != nil || secs < 1 || secs > MaxTimeout {
				return nil, bad
			}
			return time.Duration(secs) * time.Second, nil
		}
		d, err := time.ParseDuration(v.Value)
		if err != nil || d <= 0 || d > MaxTimeout*time.Second {
			return nil, bad
		}
		return d, nil
	}, "", "1m30s", "0s"},
	// Whole seconds from 1 to MaxTimeout.
	"seconds": {reflect.TypeFor[int](), func(p *parser, v *yaml.Node, what, _ string) (any, error) {
		// yaml.v3 would decode 1.5 into an int as 1; only an integer is one.
		var secs int
		if v.ShortTag() != "!!int" || v.Decode(&secs) != nil || secs < 1 || secs > MaxTimeout {
			return nil, p.mustBe(v, what, fmt.Sprintf("a whole number of seconds from 1 to %d", MaxTimeout))
		}
		return secs, nil
	}, "", "600", "1.5"},
	// A number of minutes, an integer or a float, of at least 0.
	"minutes": {reflect.TypeFor[float64](), func(p *parser, v *yaml.Node, what, _ string) (any, error) {
		m, ok := minutes(v)
		if !ok || m < 0 {
			return nil, p.mustBe(v, what, "a number of minutes of at least 0")
		}
		return m, nil
	}, "", "7.5", ".inf"},
	// A string, one of those the argument lists: enum=warn|fail.
	"enum": {reflect.TypeFor[string](), func(p *parser, v *yaml.Node, what, arg string) (any, error) {
		s, err := p.str(v, what)
		values := strings.Split(arg, "|")
		if err == nil && !slices.Contains(values, s) {
			err = p.mustBe(v, what, orList(values))
		}
		return s, err
	}, "warn|fail", "warn", "kill"},
	// A string that the text rule the argument names accepts: text=image.
	"text": {reflect.TypeFor[string](), func(p *parser, v *yaml.Node, what, arg string) (any, error) {
		rule, ok := texts[arg]
		if !ok {
			panic(fmt.Sprintf("config: %s names no text rule %q", what, arg))
		}
		s, err := p.str(v, what)
		if err == nil && !rule.ok(s) {
			err = p.mustBe(v, what, rule.must)
		}
		return s, err
	}, "image", "radixark/miles", "radixark/miles:dev"},
	// A command: a non-empty list of strings, the program first, no
	// control character in any (see probeArgv).
	"argv": {reflect.TypeFor[[]string](), func(p *parser, v *yaml.Node, what, _ string) (any, error) {
		return p.probeArgv(v, what)
	}, "", "[python3, -c, 'import torch']", "[]"},
	// A list of strings (an argv, labels).
	"strings": {reflect.TypeFor[[]string](), func(p *parser, v *yaml.Node, what, _ string) (any, error) {
		return p.strList(v, what)
	}, "", "[nvidia-smi, -L]", "nvidia-smi"},
}

// texts are the rules a text key names (check:"text=RULE"): what the
// string must be, as its message says, and the test.
var texts = map[string]struct {
	must string
	ok   func(string) bool
}{
	"interpreter": {"an interpreter's name or path", func(s string) bool {
		return s != "" && !strings.ContainsAny(s, "\r\n\x00")
	}},
	// An image is written to GITHUB_OUTPUT as repository:tag, one line.
	"image": {"a non-empty image name without spaces or ':'", func(s string) bool {
		return s != "" && !strings.ContainsAny(s, " \t\r\n:")
	}},
	"function": {"module:function, as tests.ci.ci_utils:run_gate_hook", gateFuncRE.MatchString},
}

// gateFuncRE matches a gate function's "module:function".
var gateFuncRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$`)

// orList writes values as "a", "a or b", "a, b or c".
func orList(values []string) string {
	if len(values) == 1 {
		return values[0]
	}
	return strings.Join(values[:len(values)-1], ", ") + " or " + values[len(values)-1]
}
