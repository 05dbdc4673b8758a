package pyfmt

import "unicode"

// IsSpace is Python's str.isspace for one rune: Unicode white space and the
// ASCII information separators U+001C..U+001F, which Python counts too.
func IsSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}
