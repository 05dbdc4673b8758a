package pyfmt

import (
	"math"
	"strings"
	"unicode"
)

// ParseInt reads s as Python's int(s) does (argparse's type=int):
// surrounding whitespace, an optional sign, decimal digits of any script,
// single underscores between digits, leading zeros. A value beyond int's
// range saturates (Python's ints are unbounded).
func ParseInt(s string) (int, bool) {
	s = strings.TrimFunc(s, IsSpace)
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n uint64
	overflow, digits, afterUnderscore := false, 0, false
	for _, r := range s {
		if r == '_' {
			if digits == 0 || afterUnderscore {
				return 0, false
			}
			afterUnderscore = true
			continue
		}
		d, ok := decimalValue(r)
		if !ok {
			return 0, false
		}
		digits++
		afterUnderscore = false
		if n > (math.MaxUint64-9)/10 {
			overflow = true
		}
		n = n*10 + uint64(d)
	}
	if digits == 0 || afterUnderscore {
		return 0, false
	}
	switch {
	case neg && (overflow || n > uint64(math.MaxInt64)+1):
		return math.MinInt64, true
	case neg:
		return int(-int64(n-1) - 1), true
	case overflow || n > math.MaxInt64:
		return math.MaxInt64, true
	}
	return int(n), true
}

// decimalValue is the value of a Unicode decimal digit (category Nd). Each
// range of Nd digits is made of whole runs from 0 to 9, so the value is the
// distance from the start of the range, modulo 10.
func decimalValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	start := r
	for start > 0 && unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10, true
}

// IntText is Python's str(int(s)) for an s that ParseInt accepts: the value
// in plain decimal digits, however large, without the spaces, underscores,
// leading zeros and non-ASCII digits s may hold. It returns "" for an s
// that ParseInt refuses.
func IntText(s string) string {
	if _, ok := ParseInt(s); !ok {
		return ""
	}
	s = strings.TrimFunc(s, IsSpace)
	neg := s[0] == '-'
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	var digits []byte
	for _, r := range s {
		if d, ok := decimalValue(r); ok && (len(digits) > 0 || d != 0) {
			digits = append(digits, byte('0'+d))
		}
	}
	switch {
	case len(digits) == 0:
		return "0"
	case neg:
		return "-" + string(digits)
	}
	return string(digits)
}
