package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDisplayPath_QuotesOnlyNamesWithControlCharacters(t *testing.T) {
	tests := map[string]string{
		"tests/e2e/test_a.py":      "tests/e2e/test_a.py",
		"tests/e2e/test_é ü.py":    "tests/e2e/test_é ü.py",
		"tests/e2e/\n::error::x":   `"tests/e2e/\n::error::x"`,
		"tests/e2e/x\x7f":          `"tests/e2e/x\x7f"`,
		"tests/e2e/\u009b31m/x.py": `"tests/e2e/\u009b31m/x.py"`,
	}
	for in, want := range tests {
		assert.Equal(t, want, displayPath(in), "%q", in)
	}
}
