package pyfmt

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
)

// UnmarshalExact is json.Unmarshal with the keys of objects matched to
// struct fields exactly, as Python's d["status"] matches them:
// encoding/json would also take "STATUS" or "Status" for the field tagged
// "status", so that a document whose key is spelled otherwise would read
// as if it held it. Such a key is ignored here, as Python ignores a key it
// never looks up; the field keeps its zero value, and a caller that needs
// it reports it missing. Keys of maps (file names) are never touched, and
// errors are encoding/json's own.
func UnmarshalExact(data []byte, v any) error {
	if !json.Valid(data) {
		return json.Unmarshal(data, v)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers written back digit for digit
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return json.Unmarshal(data, v)
	}
	if !dropInexactKeys(doc, reflect.TypeOf(v)) {
		return json.Unmarshal(data, v)
	}
	clean, err := json.Marshal(doc)
	if err != nil {
		return json.Unmarshal(data, v)
	}
	return json.Unmarshal(clean, v)
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// dropInexactKeys deletes, in the decoded document doc read into a value
// of type t, every object key that names a struct field only when case is
// ignored, and says whether it deleted one.
func dropInexactKeys(doc any, t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(unmarshaler) {
		return false // the type reads its own JSON
	}
	dropped := false
	switch t.Kind() {
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return false
		}
		fields := JSONFields(t)
		for k, val := range m {
			if i, ok := fields[k]; ok {
				dropped = dropInexactKeys(val, t.Field(i).Type) || dropped
				continue
			}
			for name := range fields {
				if strings.EqualFold(name, k) {
					delete(m, k)
					dropped = true
					break
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if list, ok := doc.([]any); ok {
			for _, e := range list {
				dropped = dropInexactKeys(e, t.Elem()) || dropped
			}
		}
	case reflect.Map:
		if m, ok := doc.(map[string]any); ok {
			for _, val := range m {
				dropped = dropInexactKeys(val, t.Elem()) || dropped
			}
		}
	}
	return dropped
}

// JSONFields returns the JSON names encoding/json gives t's exported
// fields (a tag's name, else the field's), each with the field's index;
// a field tagged "-" has none. It does not look into embedded structs.
func JSONFields(t reflect.Type) map[string]int {
	fields := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		fields[name] = i
	}
	return fields
}
