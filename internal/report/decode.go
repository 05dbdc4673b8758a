package report

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// decoder reads a report document from a stream one value at a time, so
// that reading costs the memory of what it keeps (and of its largest
// single value) rather than a multiple of the document: the top-level
// object key by key, each list element by element into its struct. It
// answers as encoding/json would read the whole document with
// pyfmt.UnmarshalExact: keys match fields exactly, a value of the wrong
// type is remembered (the first one, with its dotted field path) and
// skipped, a value's own decoder (est_time) stops the reading at its
// error. A syntax error is only flagged: the exact message is encoding/json's,
// which the caller asks for (see syntaxMessage).
type decoder struct {
	dec *json.Decoder
	// path is the JSON names of the fields being read, for type errors;
	// depth the nesting of the value being read, bounded as
	// encoding/json's scanner bounds it.
	path  []string
	depth int

	// typeErr is the first value of the wrong type; valueErr the first
	// error of a value's own decoder; syntax a document that is not JSON
	// (an io error of the source included).
	typeErr  *json.UnmarshalTypeError
	valueErr error
	syntax   error
	// opaque is set when a value read whole with Decode (a list or an
	// object where a number or a string goes, est_time's value) was
	// refused: its nesting was bounded apart from the document's, so the
	// document may yet be deeper than encoding/json reads.
	opaque bool

	// dropOutput drops each attempt's output tail once checked.
	dropOutput bool
}

// maxDepth is encoding/json's bound on nesting.
const maxDepth = 10000

// errTooDeep is a document nested deeper than encoding/json reads.
var errTooDeep = errors.New("exceeded max depth")

// head is what Parse checks before the rest of a report (the version, and
// that the document is not a timings file), as encoding/json reads it.
type head struct {
	// typeErr is the first "version" or "suite" of the wrong type, or
	// the document itself when it is not an object.
	typeErr      *json.UnmarshalTypeError
	hasVersion   bool
	version      int
	hasSuite     bool
	hasTimings   bool
	hasPartition bool
}

// decodeReport reads the document in src into a Report. It returns the
// report, what the head says, and the decoder holding the errors found.
// spaced reads it through a spacer, the way that allocates least, but a
// value's own decoder then sees spaces the document does not hold.
func decodeReport(src io.Reader, dropOutput, spaced bool) (*Report, *head, *decoder) {
	// Whole pieces of the file, however little the decoder asks for.
	src = bufio.NewReaderSize(src, 64<<10)
	if spaced {
		src = &spacer{r: src}
	}
	d := &decoder{dec: json.NewDecoder(src), dropOutput: dropOutput}
	// Numbers in values skipped over stay text: a number beyond float64
	// is no error there.
	d.dec.UseNumber()
	r := &Report{}
	h := &head{}
	d.document(r, h)
	return r, h, d
}

// document reads the top-level value, then checks that nothing follows.
func (d *decoder) document(r *Report, h *head) {
	tok, err := d.dec.Token()
	if err != nil {
		d.fail(err)
		return
	}
	if tok != json.Delim('{') {
		if tok == nil {
			// null: nothing set, as encoding/json reads it into a struct.
			d.end()
			return
		}
		h.typeErr = &json.UnmarshalTypeError{Value: kindOf(tok), Type: reflect.TypeFor[Report]()}
		if delim, ok := tok.(json.Delim); ok {
			d.depth++
			d.skipRest(delim)
			d.depth--
		}
		d.end()
		return
	}
	d.depth++
	rv := reflect.ValueOf(r).Elem()
	fields := fieldsOf(rv.Type())
	for d.syntax == nil && d.dec.More() {
		key, ok := d.key()
		if !ok {
			return
		}
		switch key {
		case "version":
			// Read as the head reads it (null is no version) and as the
			// report does.
			var v *int
			if err := d.scalar(&v, key); err != nil {
				h.typeErr = cmp.Or(h.typeErr, err)
			} else if h.hasVersion = v != nil; v != nil {
				h.version, r.Version = *v, *v
			}
			continue
		case "suite":
			var v *string
			if err := d.scalar(&v, key); err != nil {
				h.typeErr = cmp.Or(h.typeErr, err)
			} else if h.hasSuite = v != nil; v != nil {
				r.Suite = *v
			}
			continue
		case "timings":
			h.hasTimings = true
		case "partition":
			h.hasPartition = true
		}
		if i, ok := fields[key]; ok {
			d.field(rv.Field(i), key)
		} else {
			d.skip()
		}
	}
	d.close()
	d.depth--
	d.end()
}

// end checks that the document ends after its value, as encoding/json's
// scanner does.
func (d *decoder) end() {
	if d.syntax != nil {
		return
	}
	if _, err := d.dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the top-level value")
		}
		d.fail(err)
	}
}

// fail records the first error that makes the document unreadable.
func (d *decoder) fail(err error) {
	if d.syntax == nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		d.syntax = err
	}
}

// key reads an object's next key.
func (d *decoder) key() (string, bool) {
	tok, err := d.dec.Token()
	if err != nil {
		d.fail(err)
		return "", false
	}
	return tok.(string), true
}

// close reads the end of an object or a list.
func (d *decoder) close() {
	if d.syntax != nil {
		return
	}
	if _, err := d.dec.Token(); err != nil {
		d.fail(err)
	}
}

// field reads the value of the field named name into v.
func (d *decoder) field(v reflect.Value, name string) {
	d.path = append(d.path, name)
	d.value(v)
	d.path = d.path[:len(d.path)-1]
}

// value reads the next value into v: a struct or a list of them element by
// element, anything else (a number, a string, est_time, a pointer to
// them) with encoding/json's Decode.
func (d *decoder) value(v reflect.Value) {
	if d.syntax != nil {
		return
	}
	t := v.Type()
	elem := t
	if t.Kind() == reflect.Pointer {
		elem = t.Elem()
	}
	switch {
	case elem.Kind() == reflect.Struct && !reflect.PointerTo(elem).Implements(unmarshalerType):
		d.object(v)
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		d.list(v)
	default:
		target := v.Addr().Interface()
		if d.dropOutput && len(d.path) == 3 && d.path[0] == "files" && d.path[1] == "attempts_detail" && d.path[2] == "output_tail" {
			// Checked as the report's, then dropped.
			target = new(*string)
		}
		_ = d.scalar(target, "")
	}
}

// scalar decodes the next value into target. A value of the wrong type is
// recorded (and returned, with name appended to the path), and skipped.
func (d *decoder) scalar(target any, name string) *json.UnmarshalTypeError {
	err := d.dec.Decode(target)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		path := d.path
		if name != "" {
			path = append(path[:len(path):len(path)], name)
		}
		te.Field = strings.Join(path, ".")
		d.opaque = d.opaque || te.Value == "array" || te.Value == "object"
		if d.typeErr == nil {
			d.typeErr = te
		}
		return te
	}
	var se *json.SyntaxError
	if errors.As(err, &se) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		d.fail(err)
		return nil
	}
	if _, ok := err.(*readError); ok {
		d.fail(err)
		return nil
	}
	// A value's own decoder (est_time): encoding/json stops there.
	d.opaque = true
	if d.valueErr == nil {
		d.valueErr = err
	}
	return nil
}

// object reads an object into v, a struct or a pointer to one (null sets
// the pointer to nil, as encoding/json does).
func (d *decoder) object(v reflect.Value) {
	tok, err := d.dec.Token()
	if err != nil {
		d.fail(err)
		return
	}
	if tok != json.Delim('{') {
		d.mismatch(v, tok)
		return
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		v = v.Elem()
	}
	if !d.enter() {
		return
	}
	fields := fieldsOf(v.Type())
	for d.syntax == nil && d.dec.More() {
		key, ok := d.key()
		if !ok {
			return
		}
		if i, ok := fields[key]; ok {
			d.field(v.Field(i), key)
		} else {
			d.skip()
		}
	}
	d.close()
	d.depth--
}

// list reads a list into v, a slice of structs, one element at a time: the
// slice is reset, and each element is read into its place as encoding/json
// reads it.
func (d *decoder) list(v reflect.Value) {
	tok, err := d.dec.Token()
	if err != nil {
		d.fail(err)
		return
	}
	if tok != json.Delim('[') {
		d.mismatch(v, tok)
		return
	}
	if !d.enter() {
		return
	}
	i := 0
	for d.syntax == nil && d.dec.More() {
		if i >= v.Cap() {
			// Doubling: a list of n elements allocates about 2n, where
			// append's growth by a quarter would allocate about 5n.
			v.Grow(max(v.Cap(), 1))
		}
		if i >= v.Len() {
			v.SetLen(i + 1)
		}
		d.value(v.Index(i))
		i++
	}
	if i < v.Len() {
		v.SetLen(i)
	}
	if i == 0 {
		v.Set(reflect.MakeSlice(v.Type(), 0, 0))
	}
	d.close()
	d.depth--
}

// mismatch handles a value that is not the object or list v takes: null
// sets a pointer or slice to nil (and leaves a struct as it is), anything
// else is a value of the wrong type, skipped.
func (d *decoder) mismatch(v reflect.Value, tok json.Token) {
	if tok == nil {
		if k := v.Kind(); k == reflect.Pointer || k == reflect.Slice {
			v.SetZero()
		}
		return
	}
	if d.typeErr == nil {
		d.typeErr = &json.UnmarshalTypeError{Value: kindOf(tok), Type: v.Type(), Field: strings.Join(d.path, ".")}
	}
	if delim, ok := tok.(json.Delim); ok {
		if d.enter() {
			d.skipRest(delim)
			d.depth--
		}
	}
}

// enter counts one more level of nesting, and flags a document nested
// deeper than encoding/json reads.
func (d *decoder) enter() bool {
	d.depth++
	if d.depth > maxDepth {
		d.fail(errTooDeep)
		return false
	}
	return true
}

// skip reads over the next value, token by token: its memory is that of
// its largest string.
func (d *decoder) skip() {
	tok, err := d.dec.Token()
	if err != nil {
		d.fail(err)
		return
	}
	if delim, ok := tok.(json.Delim); ok {
		if d.enter() {
			d.skipRest(delim)
			d.depth--
		}
	}
}

// skipRest reads over the rest of the object or list that open began.
func (d *decoder) skipRest(open json.Delim) {
	for d.syntax == nil && d.dec.More() {
		if open == '{' {
			if _, ok := d.key(); !ok {
				return
			}
		}
		d.skip()
	}
	d.close()
}

// kindOf names a token's JSON kind as encoding/json's type errors do.
func kindOf(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		if tok == json.Delim('[') {
			return "array"
		}
		return "object"
	case string:
		return "string"
	case bool:
		return "bool"
	}
	return "number"
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// fieldIndex maps a struct type's JSON names to its fields.
var fieldIndex sync.Map // reflect.Type → map[string]int

// fieldsOf returns the JSON names of t's exported fields and their
// indices (the report's structs embed none), once per type.
func fieldsOf(t reflect.Type) map[string]int {
	if m, ok := fieldIndex.Load(t); ok {
		return m.(map[string]int)
	}
	m := pyfmt.JSONFields(t)
	fieldIndex.Store(t, m)
	return m
}

// readError is a failure of the source, not of the document.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// sourceReader passes reads on, wrapping their errors (but io.EOF) so
// that they are told from the document's.
type sourceReader struct{ r io.Reader }

func (s sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF {
		err = &readError{err}
	}
	return n, err
}

// syntaxMessage is encoding/json's message for data that is not JSON, nil
// when data is JSON.
func syntaxMessage(data []byte) error {
	if json.Valid(data) {
		return nil
	}
	// Unmarshal checks the whole document before it decodes anything.
	err := json.Unmarshal(data, &struct{}{})
	if err == nil {
		return fmt.Errorf("invalid JSON")
	}
	return err
}

// spacer passes a JSON document on with a space before every ',', ':',
// '}' and ']' outside strings, which changes no document's meaning nor
// whether it is JSON. encoding/json's Decoder reads one byte past each
// value it decodes, and allocates an error (then dropped) for any byte
// there but a space: without the spaces, reading a report would allocate
// one for nearly every value, several times the report's size.
type spacer struct {
	r   io.Reader
	buf []byte
	// inString and escaped are where the bytes passed on stand.
	inString, escaped bool
}

func (s *spacer) Read(p []byte) (int, error) {
	// At most every other byte passed on is an added space.
	want := max(len(p)/2, 1)
	if cap(s.buf) < want {
		s.buf = make([]byte, want)
	}
	n, err := s.r.Read(s.buf[:want])
	out := p[:0]
	for _, c := range s.buf[:n] {
		switch {
		case s.inString:
			switch {
			case s.escaped:
				s.escaped = false
			case c == '\\':
				s.escaped = true
			case c == '"':
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == ',' || c == ':' || c == '}' || c == ']':
			out = append(out, ' ')
		}
		out = append(out, c)
	}
	return len(out), err
}
