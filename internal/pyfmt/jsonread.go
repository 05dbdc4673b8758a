package pyfmt

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
)

// JSONValue is a JSON document read the way Python's json.loads reads it
// (NaN and ±Infinity allowed, lone surrogates kept, integers of any size,
// the last of duplicate keys wins in the first one's place), so that it can
// be written back the way json.dumps writes it (", " and ": " separators,
// ASCII only, Python's float repr). Integers are written back digit for
// digit; floats are re-printed from their value, as Python does. The
// metric-history gate's records are read and merged with it.

type jsonKind uint8

const (
	jNull jsonKind = iota
	jBool
	jInt
	jFloat
	jString
	jList
	jObject
)

type JSONValue struct {
	kind jsonKind
	b    bool
	n    int64    // jInt that fits an int64 (i is nil)
	i    *big.Int // jInt past int64
	f    float64
	s    string       // WTF-8: lone surrogates are kept as themselves
	list []*JSONValue // jList: the items; jObject: the values, parallel to keys
	keys []string     // jObject: keys in first-seen order
}

// Get is the value of key in an object; false for a missing key or a value
// that is not an object.
func (v *JSONValue) Get(key string) (*JSONValue, bool) {
	if v.kind != jObject {
		return nil, false
	}
	for i, k := range v.keys {
		if k == key {
			return v.list[i], true
		}
	}
	return nil, false
}

// ParseJSON parses one JSON document.
func ParseJSON(data []byte) (*JSONValue, error) {
	p := &jsonParser{src: data}
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

type jsonParser struct {
	src []byte
	pos int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at column %d: %s", p.pos+1, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) literal(word string) bool {
	if len(p.src)-p.pos >= len(word) && string(p.src[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return true
	}
	return false
}

const maxDepth = 1000

// MaxIntDigits is Python's default limit on the digits of an integer read
// from a string (sys.int_info.default_max_str_digits).
const MaxIntDigits = 4300

func (p *jsonParser) value(depth int) (*JSONValue, error) {
	if depth > maxDepth {
		return nil, p.errorf("nested too deeply")
	}
	if p.pos >= len(p.src) {
		return nil, p.errorf("expecting value")
	}
	switch c := p.src[p.pos]; {
	case c == '"':
		s, err := p.str()
		return &JSONValue{kind: jString, s: s}, err
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case p.literal("null"):
		return &JSONValue{kind: jNull}, nil
	case p.literal("true"):
		return &JSONValue{kind: jBool, b: true}, nil
	case p.literal("false"):
		return &JSONValue{kind: jBool}, nil
	case p.literal("NaN"):
		return &JSONValue{kind: jFloat, f: math.NaN()}, nil
	case p.literal("Infinity"):
		return &JSONValue{kind: jFloat, f: math.Inf(1)}, nil
	case p.literal("-Infinity"):
		return &JSONValue{kind: jFloat, f: math.Inf(-1)}, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	return nil, p.errorf("expecting value")
}

func (p *jsonParser) digits() int {
	start := p.pos
	for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
		p.pos++
	}
	return p.pos - start
}

func (p *jsonParser) number() (*JSONValue, error) {
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
	if !isFloat {
		// Python's int() refuses more digits than this, and so json.loads.
		// Counting first also spares the conversion, which grows with the
		// square of the digits.
		n := p.pos - start
		if p.src[start] == '-' {
			n--
		}
		if n > MaxIntDigits {
			p.pos = start
			return nil, p.errorf("integer exceeds the limit (%d digits) for integer string conversion: value has %d digits", MaxIntDigits, n)
		}
	}
	text := string(p.src[start:p.pos])
	if isFloat {
		f, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, p.errorf("bad number %q", text)
		}
		return &JSONValue{kind: jFloat, f: f}, nil
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return &JSONValue{kind: jInt, n: n}, nil
	}
	i, ok := new(big.Int).SetString(text, 10)
	if !ok {
		return nil, p.errorf("bad number %q", text)
	}
	return &JSONValue{kind: jInt, i: i}, nil
}

func (p *jsonParser) str() (string, error) {
	p.pos++ // opening quote
	var out []byte
	for {
		if p.pos >= len(p.src) {
			return "", p.errorf("unterminated string")
		}
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), nil
		case c < 0x20:
			return "", p.errorf("invalid control character")
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", p.errorf("unterminated string")
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				out = append(out, e)
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
					return "", err
				}
				if 0xd800 <= u && u < 0xdc00 && p.pos+1 < len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
					save := p.pos
					p.pos += 2
					lo, err := p.hex4()
					if err != nil {
						return "", err
					}
					if 0xdc00 <= lo && lo < 0xe000 {
						u = 0x10000 + (u-0xd800)<<10 + (lo - 0xdc00)
					} else {
						p.pos = save
					}
				}
				out = appendWTF8(out, u)
			default:
				return "", p.errorf("invalid escape")
			}
		default:
			// The records are checked to be UTF-8 before they are parsed.
			out = append(out, c)
			p.pos++
		}
	}
}

func (p *jsonParser) hex4() (rune, error) {
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

func (p *jsonParser) array(depth int) (*JSONValue, error) {
	p.pos++
	v := &JSONValue{kind: jList, list: []*JSONValue{}}
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

func (p *jsonParser) object(depth int) (*JSONValue, error) {
	p.pos++
	v := &JSONValue{kind: jObject}
	var index map[string]int
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
		// The last of duplicate keys wins, in the first one's place.
		if i, ok := index[s]; ok {
			v.list[i] = item
		} else {
			if index == nil {
				index = map[string]int{}
			}
			index[s] = len(v.keys)
			v.keys = append(v.keys, s)
			v.list = append(v.list, item)
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

// AppendJSON appends v as Python's json.dumps writes it by default.
func (v *JSONValue) AppendJSON(out []byte) []byte {
	switch v.kind {
	case jNull:
		return append(out, "null"...)
	case jBool:
		if v.b {
			return append(out, "true"...)
		}
		return append(out, "false"...)
	case jInt:
		if v.i == nil {
			return strconv.AppendInt(out, v.n, 10)
		}
		return v.i.Append(out, 10)
	case jFloat:
		switch {
		case math.IsNaN(v.f):
			return append(out, "NaN"...)
		case math.IsInf(v.f, 1):
			return append(out, "Infinity"...)
		case math.IsInf(v.f, -1):
			return append(out, "-Infinity"...)
		}
		return append(out, Float(v.f)...)
	case jString:
		return AppendJSONStringASCII(out, v.s)
	case jList:
		out = append(out, '[')
		for i, item := range v.list {
			if i > 0 {
				out = append(out, ", "...)
			}
			out = item.AppendJSON(out)
		}
		return append(out, ']')
	case jObject:
		out = append(out, '{')
		for i, k := range v.keys {
			if i > 0 {
				out = append(out, ", "...)
			}
			out = AppendJSONStringASCII(out, k)
			out = append(out, ": "...)
			out = v.list[i].AppendJSON(out)
		}
		return append(out, '}')
	}
	return out
}

// jsonLess is Python's a < b for the step values of two points.
func jsonLess(a, b *JSONValue) (bool, error) {
	numeric := func(v *JSONValue) bool { return v.kind == jInt || v.kind == jFloat || v.kind == jBool }
	switch {
	case numeric(a) && numeric(b):
		if a.kind == jFloat && math.IsNaN(a.f) || b.kind == jFloat && math.IsNaN(b.f) {
			return false, nil
		}
		return toBig(a).Cmp(toBig(b)) < 0, nil
	case a.kind == jString && b.kind == jString:
		// WTF-8 keeps code point order, as UTF-8 does.
		return a.s < b.s, nil
	}
	return false, fmt.Errorf("steps %s and %s cannot be ordered", a.AppendJSON(nil), b.AppendJSON(nil))
}

func toBig(v *JSONValue) *big.Float {
	switch v.kind {
	case jInt:
		if v.i == nil {
			return new(big.Float).SetInt64(v.n)
		}
		return new(big.Float).SetInt(v.i)
	case jBool:
		if v.b {
			return big.NewFloat(1)
		}
		return big.NewFloat(0)
	}
	return big.NewFloat(v.f)
}
