package pysrc

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Literal decoding. The scanner has already accepted every literal, so the
// decoders here cannot meet a malformed one.

// value turns a parsed argument into the Value the registry sees.
func (p *parser) value(n node) Value {
	switch n.class {
	case "Constant":
		return Value{Kind: KindConstant, Node: "Constant", Const: p.constant(n),
			Start: int(p.toks[n.lo].start), End: int(p.toks[n.hi-1].end)}
	case "List":
		v := Value{Kind: KindList, Node: "List", Elems: make([]Value, 0, len(n.elems))}
		for _, e := range n.elems {
			v.Elems = append(v.Elems, p.value(e))
		}
		return v
	}
	return Value{Kind: KindOther, Node: n.class}
}

func (p *parser) constant(n node) Constant {
	t := p.toks[n.lo]
	text := p.src[t.start:t.end]
	switch t.kind {
	case tName:
		switch string(text) {
		case "True":
			return Constant{Type: Bool, Bool: true}
		case "False":
			return Constant{Type: Bool}
		}
		return Constant{Type: NoneType}
	case tNumber:
		return decodeNumber(string(text))
	case tOp:
		return Constant{Type: Ellipsis}
	}
	typ := Str
	var sb strings.Builder
	for _, t := range p.toks[n.lo:n.hi] {
		if t.flags&fBytes != 0 {
			typ = Bytes
		}
		decodeString(&sb, p.src[t.start:t.end], t.flags)
	}
	return Constant{Type: typ, Str: sb.String()}
}

// decodeNumber converts an accepted numeric literal.
func decodeNumber(text string) Constant {
	text = strings.ReplaceAll(text, "_", "")
	if last := text[len(text)-1]; last == 'j' || last == 'J' {
		f, _ := strconv.ParseFloat(text[:len(text)-1], 64)
		return Constant{Type: Complex, Float: f}
	}
	if len(text) > 1 && text[0] == '0' {
		base := 0
		switch text[1] | 0x20 {
		case 'x':
			base = 16
		case 'o':
			base = 8
		case 'b':
			base = 2
		}
		if base != 0 {
			v, _ := new(big.Int).SetString(text[2:], base)
			return Constant{Type: Int, Int: v}
		}
	}
	if strings.ContainsAny(text, ".eE") {
		// An overflowing literal reads as infinity, as in Python; the
		// range error ParseFloat reports then is expected.
		f, _ := strconv.ParseFloat(text, 64)
		return Constant{Type: Float, Float: f}
	}
	v, _ := new(big.Int).SetString(text, 10)
	return Constant{Type: Int, Int: v}
}

// stringBody returns the text between the quotes of the string literal
// token lit (prefix and quotes included).
func stringBody(lit []byte) []byte {
	i := 0
	for lit[i] != '"' && lit[i] != '\'' {
		i++
	}
	q := 1
	if i+2 < len(lit) && lit[i+1] == lit[i] && lit[i+2] == lit[i] && len(lit)-i >= 6 {
		q = 3
	}
	return lit[i+q : len(lit)-q]
}

// decodeString appends the value of one string literal token (prefix and
// quotes included) to sb. Line breaks of any style read as "\n", as the
// reference's text-mode read makes them. A surrogate escape (\ud800) is
// kept as Python keeps it, a lone surrogate, in its 3-byte WTF-8 form (see
// writeCode).
func decodeString(sb *strings.Builder, lit []byte, flags uint8) {
	body := stringBody(lit)
	bytesLit := flags&fBytes != 0
	raw := flags&fRaw != 0
	for j := 0; j < len(body); {
		c := body[j]
		if c == '\r' {
			sb.WriteByte('\n')
			j++
			if j < len(body) && body[j] == '\n' {
				j++
			}
			continue
		}
		if c != '\\' {
			sb.WriteByte(c)
			j++
			continue
		}
		if raw {
			// A raw literal keeps the backslash and the character after it.
			sb.WriteByte(c)
			j++
			continue
		}
		j++
		if j >= len(body) {
			sb.WriteByte('\\')
			break
		}
		e := body[j]
		j++
		switch e {
		case '\n':
		case '\r':
			if j < len(body) && body[j] == '\n' {
				j++
			}
		case '\\', '\'', '"':
			sb.WriteByte(e)
		case 'a':
			sb.WriteByte(7)
		case 'b':
			sb.WriteByte(8)
		case 'f':
			sb.WriteByte(12)
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'v':
			sb.WriteByte(11)
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := rune(e - '0')
			for k := 0; k < 2 && j < len(body) && body[j] >= '0' && body[j] <= '7'; k++ {
				v = v*8 + rune(body[j]-'0')
				j++
			}
			writeCode(sb, v, bytesLit)
		case 'x':
			writeCode(sb, rune(hexVal(body[j]))<<4|rune(hexVal(body[j+1])), bytesLit)
			j += 2
		case 'u', 'U':
			if bytesLit {
				sb.WriteByte('\\')
				sb.WriteByte(e)
				continue
			}
			n := 4
			if e == 'U' {
				n = 8
			}
			var v rune
			for k := 0; k < n; k++ {
				v = v<<4 | rune(hexVal(body[j+k]))
			}
			j += n
			writeCode(sb, v, false)
		case 'N':
			if bytesLit {
				sb.WriteString("\\N")
				continue
			}
			r, end, _ := namedEscape(body, j-1)
			writeCode(sb, r, false)
			j = end
		default:
			sb.WriteByte('\\')
			j-- // an unknown escape keeps both characters
		}
	}
}

// writeCode writes code point v: as a byte in a bytes literal (octal
// escapes above 0o377 wrap, as CPython does), else as UTF-8. A surrogate
// (U+D800..U+DFFF, which UTF-8 cannot hold) is written in WTF-8, the
// bytes UTF-8's rule would give it (0xED 0xA0..0xBF 0x80..0xBF), so that
// the value stays what Python holds: a lone surrogate, and two escapes of
// a surrogate pair two lone surrogates, as Python does not combine them.
// internal/pyfmt writes such bytes back as \udXXX.
func writeCode(sb *strings.Builder, v rune, bytesLit bool) {
	if bytesLit {
		sb.WriteByte(byte(v))
		return
	}
	if v < utf8.RuneSelf {
		sb.WriteByte(byte(v))
		return
	}
	if v >= 0xD800 && v <= 0xDFFF {
		sb.WriteByte(0xE0 | byte(v>>12))
		sb.WriteByte(0x80 | byte(v>>6)&0x3F)
		sb.WriteByte(0x80 | byte(v)&0x3F)
		return
	}
	sb.WriteRune(v)
}
