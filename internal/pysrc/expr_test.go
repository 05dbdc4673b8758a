package pysrc

import (
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
