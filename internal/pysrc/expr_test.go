package pysrc

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// argTokens returns the tokens of the one-line text src, its line break
// left out.
func argTokens(t *testing.T, src string) []token {
	t.Helper()
	s := newScanner([]byte(src))
	var toks []token
	for {
		tok := s.next()
		require.Nil(t, s.err, src)
		if tok.kind == tNewline || tok.kind == tEOF {
			return toks
		}
		toks = append(toks, tok)
	}
}

// The short cut for list displays of plain literals must read exactly
// what the full descent reads, and must leave every other list to it.
func TestSimpleList_ReadsWhatListReads(t *testing.T) {
	// Each list starts at the second token, after an opener that the
	// token after it closes.
	for src, short := range map[string]bool{
		"([])":               true,
		"(['a'],)":           true,
		"[['a', 'b',]]":      true,
		"([1, True, None])":  true,
		"([b'x', r'y'])":     true,
		"(['a' 'b'])":        true, // adjacent literals are one constant
		"([f'a'])":           false,
		"([[1]])":            false,
		"([*a])":             false,
		"([x])":              false,
		"([1 + 2])":          false,
		"(['a',, 'b'])":      false,
		"([1 for x in y])":   false,
		"(['a'].count('a'))": false,
		"(['a'] + ['b'])":    false,
	} {
		toks := argTokens(t, src)
		fast := &parser{src: []byte(src), toks: toks, i: 1}
		n, ok := fast.simpleList()
		assert.Equal(t, short, ok, src)
		if !ok {
			assert.Equal(t, 1, fast.i, "%s: a refused list must leave the position alone", src)
			continue
		}
		slow := &parser{src: []byte(src), toks: toks, i: 1}
		var want node
		require.Nil(t, slow.run(func() { want = slow.list() }), src)
		// simpleList reads only constants, which start at their lo: it
		// spares the allocation of starts.
		for i, e := range n.elems {
			assert.Equal(t, e.lo, want.starts[i], src)
		}
		want.starts = nil
		assert.Equal(t, want, n, src)
		assert.Equal(t, slow.i, fast.i, src)
	}
}

func TestDecodeNumber_ReadsIntegersInEveryBase(t *testing.T) {
	for _, text := range []string{"0", "7", "42", "1_000", "00", "0x1F", "999999999999999999",
		"9223372036854775807", "9223372036854775808", "123456789012345678901234567890"} {
		want, ok := new(big.Int).SetString(strings.ReplaceAll(strings.TrimPrefix(text, "0x"), "_", ""), map[bool]int{true: 16, false: 10}[strings.HasPrefix(text, "0x")])
		require.True(t, ok, text)
		got := decodeNumber(text)
		assert.Equal(t, Int, got.Type, text)
		assert.Equal(t, 0, want.Cmp(got.Int), "%s read as %s", text, got.Int)
	}
}
