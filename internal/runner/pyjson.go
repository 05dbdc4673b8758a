package runner

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"unicode/utf8"

	"github.com/radixark/miles-ci/internal/pyfmt"
)

// The metric records are produced and consumed by Python, so the merge
// reads JSON the way json.loads does (NaN and ±Infinity allowed, lone
// surrogates kept, integers of any size, the last of duplicate keys wins in
// the first one's place) and writes it the way json.dumps does by default
// (", " and ": " separators, ASCII only, Python's float repr). Integers are
// written back digit for digit; floats are re-printed from their value, as
// Python does.

type pyKind int

const (
	pyNull pyKind = iota
	pyBool
	pyInt
	pyFloat
	pyString
	pyList
	pyObject
)

type pyValue struct {
	kind  pyKind
	b     bool
	i     *big.Int
	f     float64
	s     []rune // code points; lone surrogates are kept as themselves
	list  []*pyValue
	keys  []*pyValue // pyObject: keys in first-seen order
	items []*pyValue // pyObject: values, parallel to keys
}

func (v *pyValue) get(key string) (*pyValue, bool) {
	if v.kind != pyObject {
		return nil, false
	}
	for i, k := range v.keys {
		if string(k.s) == key {
			return v.items[i], true
		}
	}
	return nil, false
}

// parsePyJSON parses one JSON document.
func parsePyJSON(data []byte) (*pyValue, error) {
	p := &pyParser{src: data}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, p.errorf("extra data")
	}
	return v, nil
}

type pyParser struct {
	src []byte
	pos int
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at column %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *pyParser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *pyParser) literal(word string) bool {
	if len(p.src)-p.pos >= len(word) && string(p.src[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return true
	}
	return false
}

const maxDepth = 1000

func (p *pyParser) value(depth int) (*pyValue, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("expecting value")
	}
	switch c := p.src[p.pos]; {
	case c == '"':
		s, err := p.str()
		return &pyValue{kind: pyString, s: s}, err
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case p.literal("null"):
		return &pyValue{kind: pyNull}, nil
	case p.literal("true"):
		return &pyValue{kind: pyBool, b: true}, nil
	case p.literal("false"):
		return &pyValue{kind: pyBool}, nil
	case p.literal("NaN"):
		return &pyValue{kind: pyFloat, f: math.NaN()}, nil
	case p.literal("Infinity"):
		return &pyValue{kind: pyFloat, f: math.Inf(1)}, nil
	case p.literal("-Infinity"):
		return &pyValue{kind: pyFloat, f: math.Inf(-1)}, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	return nil, p.errorf("expecting value")
}

func (p *pyParser) digits() int {
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

func (p *pyParser) number() (*pyValue, error) {
	start := p.pos
	if p.src[p.pos] == '-' {
		p.pos++
	}
	if p.pos < len(p.src) && p.src[p.pos] == '0' {
		p.pos++
	} else if p.digits() == 0 {
		return nil, p.errorf("expecting value")
	}
	isFloat := false
	if p.pos+1 < len(p.src) && p.src[p.pos] == '.' && '0' <= p.src[p.pos+1] && p.src[p.pos+1] <= '9' {
		p.pos++
		p.digits()
		isFloat = true
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		save := p.pos
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if p.digits() == 0 {
			p.pos = save // not an exponent: the number ends before the 'e'
		} else {
			isFloat = true
		}
	}
	text := string(p.src[start:p.pos])
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, p.errorf("bad number %q", text)
		}
		return &pyValue{kind: pyFloat, f: f}, nil
	}
	i, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return nil, p.errorf("bad number %q", text)
	}
	return &pyValue{kind: pyInt, i: i}, nil
}

func (p *pyParser) str() ([]rune, error) {
	p.pos++ // opening quote
	var out []rune
	for {
		if p.pos >= len(p.src) {
			return nil, p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return out, nil
		case c < 0x20:
			return nil, p.errorf("invalid control character")
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return nil, p.errorf("unterminated string")
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, rune(e))
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				u, err := p.hex4()
				if err != nil {
					return nil, err
				}
				if 0xd800 <= u && u < 0xdc00 && p.pos+1 < len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					lo, err := p.hex4()
					if err != nil {
						return nil, err
					}
					if 0xdc00 <= lo && lo < 0xe000 {
						u = 0x10000 + (u-0xd800)<<10 + (lo - 0xdc00)
					} else {
						p.pos = save
					}
				}
				out = append(out, u)
			default:
				return nil, p.errorf("invalid escape")
			}
		default:
			r, size := utf8.DecodeRune(p.src[p.pos:])
			out = append(out, r)
			p.pos += size
		}
	}
}

func (p *pyParser) hex4() (rune, error) {
	if len(p.src)-p.pos < 4 {
		return 0, p.errorf("invalid \\uXXXX escape")
	}
	v, err := strconv.ParseUint(string(p.src[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.errorf("invalid \\uXXXX escape")
	}
	p.pos += 4
	return rune(v), nil
}

func (p *pyParser) array(depth int) (*pyValue, error) {
	p.pos++
	v := &pyValue{kind: pyList, list: []*pyValue{}}
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.space()
		item, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.list = append(v.list, item)
		p.space()
		if p.pos >= len(p.src) {
			return nil, p.errorf("expecting ',' delimiter")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("expecting ',' delimiter")
		}
	}
}

func (p *pyParser) object(depth int) (*pyValue, error) {
	p.pos++
	v := &pyValue{kind: pyObject}
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.errorf("expecting property name enclosed in double quotes")
		}
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.errorf("expecting ':' delimiter")
		}
		p.pos++
		p.space()
		item, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key := &pyValue{kind: pyString, s: s}
		replaced := false
		for i, k := range v.keys {
			if equalRunes(k.s, s) {
				v.items[i], replaced = item, true
				break
			}
		}
		if !replaced {
			v.keys = append(v.keys, key)
			v.items = append(v.items, item)
		}
		p.space()
		if p.pos >= len(p.src) {
			return nil, p.errorf("expecting ',' delimiter")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("expecting ',' delimiter")
		}
	}
}

func equalRunes(a, b []rune) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const hexDigits = "0123456789abcdef"

// encode appends v as json.dumps writes it.
func (v *pyValue) encode(out []byte) []byte {
	switch v.kind {
	case pyNull:
		return append(out, "null"...)
	case pyBool:
		if v.b {
			return append(out, "true"...)
		}
		return append(out, "false"...)
	case pyInt:
		return v.i.Append(out, 10)
	case pyFloat:
		switch {
		case math.IsNaN(v.f):
			return append(out, "NaN"...)
		case math.IsInf(v.f, 1):
			return append(out, "Infinity"...)
		case math.IsInf(v.f, -1):
			return append(out, "-Infinity"...)
		}
		return append(out, pyfmt.Float(v.f)...)
	case pyString:
		return encodeString(out, v.s)
	case pyList:
		out = append(out, '[')
		for i, item := range v.list {
			if i > 0 {
				out = append(out, ", "...)
			}
			out = item.encode(out)
		}
		return append(out, ']')
	case pyObject:
		out = append(out, '{')
		for i, k := range v.keys {
			if i > 0 {
				out = append(out, ", "...)
			}
			out = encodeString(out, k.s)
			out = append(out, ": "...)
			out = v.items[i].encode(out)
		}
		return append(out, '}')
	}
	return out
}

func encodeString(out []byte, s []rune) []byte {
	u4 := func(out []byte, r rune) []byte {
		return append(out, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
	}
	out = append(out, '"')
	for _, r := range s {
		switch {
		case r == '"':
			out = append(out, `\"`...)
		case r == '\\':
			out = append(out, `\\`...)
		case r == '\n':
			out = append(out, `\n`...)
		case r == '\r':
			out = append(out, `\r`...)
		case r == '\t':
			out = append(out, `\t`...)
		case r == '\b':
			out = append(out, `\b`...)
		case r == '\f':
			out = append(out, `\f`...)
		case ' ' <= r && r <= '~':
			out = append(out, byte(r))
		case r > 0xffff:
			r -= 0x10000
			out = u4(out, 0xd800|(r>>10)&0x3ff)
			out = u4(out, 0xdc00|r&0x3ff)
		default:
			out = u4(out, r)
		}
	}
	return append(out, '"')
}

// pyLess is Python's a < b for the step values of two points.
func pyLess(a, b *pyValue) (bool, error) {
	numeric := func(v *pyValue) bool { return v.kind == pyInt || v.kind == pyFloat || v.kind == pyBool }
	switch {
	case numeric(a) && numeric(b):
		if a.kind == pyFloat && math.IsNaN(a.f) || b.kind == pyFloat && math.IsNaN(b.f) {
			return false, nil
		}
		return toBig(a).Cmp(toBig(b)) < 0, nil
	case a.kind == pyString && b.kind == pyString:
		for i := 0; i < len(a.s) && i < len(b.s); i++ {
			if a.s[i] != b.s[i] {
				return a.s[i] < b.s[i], nil
			}
		}
		return len(a.s) < len(b.s), nil
	}
	return false, fmt.Errorf("steps %s and %s cannot be ordered", a.encode(nil), b.encode(nil))
}

func toBig(v *pyValue) *big.Float {
	switch v.kind {
	case pyInt:
		return new(big.Float).SetInt(v.i)
	case pyBool:
		if v.b {
			return big.NewFloat(1)
		}
		return big.NewFloat(0)
	}
	return big.NewFloat(v.f)
}
