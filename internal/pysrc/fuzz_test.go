package pysrc

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzReadCalls checks that any input gives calls or a *SyntaxError whose
// line lies within the file, never a panic or a hang.
func FuzzReadCalls(f *testing.F) {
	for _, s := range differentialInputs {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		calls, err := ReadCalls(src, registerNames)
		lines := bytes.Count(src, []byte("\n")) + bytes.Count(src, []byte("\r")) + 1
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *SyntaxError", err, err)
			}
			if se.Line < 1 || se.Line > lines+1 {
				t.Fatalf("error line %d outside 1..%d: %v", se.Line, lines+1, err)
			}
			if calls != nil {
				t.Fatalf("calls returned with an error")
			}
			return
		}
		for _, c := range calls {
			if c.Line < 1 || c.Line > lines || !registerNames[c.Func] {
				t.Fatalf("bad call %+v", c)
			}
		}
	})
}

// FuzzReadStringDict checks the dict reader the same way.
func FuzzReadStringDict(f *testing.F) {
	f.Add([]byte("KNOWN_LABELS: dict[str, str] = {\"a\": \"b\", 'c' 'd': \"\"\"e\"\"\"}\n"))
	f.Add([]byte("KNOWN_LABELS = {}\nKNOWN_LABELS = {1: 2}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := ReadStringDict(src, "KNOWN_LABELS")
		checkDictError(t, err)
	})
}

// checkDictError fails t unless err is nil or one of the dict readers'
// two errors.
func checkDictError(t *testing.T, err error) {
	t.Helper()
	var se *SyntaxError
	var de *DictError
	if err != nil && !errors.As(err, &se) && !errors.As(err, &de) {
		t.Fatalf("error %v is %T", err, err)
	}
}

// FuzzReadDict checks that the general dict reader places every item and
// element inside the file, or fails with one of its two errors.
func FuzzReadDict(f *testing.F) {
	f.Add([]byte(suitesSrc))
	f.Add([]byte("SUITES = {HWBackend.CPU: ['a'], **x}\nSUITES['b'] = 1\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := ReadDict(src, "SUITES")
		if checkDictError(t, err); err != nil {
			return
		}
		lines := bytes.Count(src, []byte("\n")) + bytes.Count(src, []byte("\r")) + 1
		for _, it := range d.Items {
			if it.Line < d.Line || it.Line > lines {
				t.Fatalf("item at line %d outside %d..%d", it.Line, d.Line, lines)
			}
			for _, l := range it.ElemLines {
				if l < it.Line || l > lines {
					t.Fatalf("element at line %d outside %d..%d", l, it.Line, lines)
				}
			}
		}
	})
}

// FuzzStringLits checks that the string reader places every literal and
// its body inside the file, in order, or fails with a *SyntaxError.
func FuzzStringLits(f *testing.F) {
	for _, s := range differentialInputs {
		f.Add([]byte(s))
	}
	f.Add([]byte("x = ('a' \"b\"\n  r'''c''' f'{d}')\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		lits, err := StringLits(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is %T, want *SyntaxError", err, err)
			}
			return
		}
		at := 0
		for _, l := range lits {
			if l.Start < at || l.End > len(src) || l.Start >= l.End || l.Tokens < 1 {
				t.Fatalf("literal %+v misplaced", l)
			}
			if l.Tokens == 1 && !(l.Start < l.BodyStart && l.BodyStart <= l.BodyEnd && l.BodyEnd < l.End) {
				t.Fatalf("body of %+v misplaced", l)
			}
			at = l.End
		}
	})
}
