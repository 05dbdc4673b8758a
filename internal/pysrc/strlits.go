package pysrc

import "strings"

// StringLit is one string literal of a file as Python reads it: one token,
// or the adjacent tokens an implicit concatenation joins into one value.
type StringLit struct {
	Line int // of the first token
	// Start and End are the byte offsets of the first token's first byte
	// (its prefix) and the last token's end.
	Start, End int
	// Tokens counts the tokens joined.
	Tokens int
	// Format is set when a token is an f-string: Value is then unknown.
	Format bool
	// Bytes is set for a bytes literal.
	Bytes bool
	// Value is the decoded text ("" for an f-string).
	Value string
	// BodyStart and BodyEnd are, for a literal of one token, the offsets of
	// the text between its quotes.
	BodyStart, BodyEnd int
}

// StringLits returns every string literal of src in source order, at any
// depth (module level, functions, inside brackets), as the tokenizer finds
// them; comments are no literals. The file must tokenize, else the error
// is a *SyntaxError.
func StringLits(src []byte) ([]StringLit, error) {
	if err := checkText(src); err != nil {
		return nil, err
	}
	s := newScanner(src)
	var (
		out  []StringLit
		prev = -1 // the index in out of the literal the last token ended
	)
	for {
		t := s.next()
		if s.err != nil {
			return nil, s.settle(s.err)
		}
		if t.kind == tEOF {
			if err := s.settle(nil); err != nil {
				return nil, err
			}
			return out, nil
		}
		if t.kind != tString {
			prev = -1
			continue
		}
		lit := src[t.start:t.end]
		var value string
		if t.flags&fFormat == 0 {
			var sb strings.Builder
			decodeString(&sb, lit, t.flags)
			value = sb.String()
		}
		if prev >= 0 {
			l := &out[prev]
			l.End = int(t.end)
			l.Tokens++
			l.Format = l.Format || t.flags&fFormat != 0
			l.Bytes = l.Bytes || t.flags&fBytes != 0
			l.Value += value
			if l.Format {
				l.Value = ""
			}
			continue
		}
		body := stringBody(lit)
		bodyStart := int(t.start) + bodyOffset(lit, body)
		out = append(out, StringLit{Line: int(t.line), Start: int(t.start), End: int(t.end), Tokens: 1,
			Format: t.flags&fFormat != 0, Bytes: t.flags&fBytes != 0, Value: value,
			BodyStart: bodyStart, BodyEnd: bodyStart + len(body)})
		prev = len(out) - 1
	}
}

// bodyOffset is where body, the text between the quotes of the literal
// token lit, starts in lit: after the prefix and the opening quotes.
func bodyOffset(lit, body []byte) int {
	i := 0
	for lit[i] != '"' && lit[i] != '\'' {
		i++
	}
	return i + (len(lit)-i-len(body))/2
}
