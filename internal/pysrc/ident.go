package pysrc

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// Identifiers follow PEP 3131: the first character is XID_Start or '_',
// the others XID_Continue, and the name is NFKC-normalized before use.

// notXID lists the characters that are ID_Start/ID_Continue but lose the
// property under NFKC closure, which is what the X in XID removes. The
// values after false are ID_Continue characters that stay XID_Continue.
var notXIDStart = map[rune]bool{
	0x037A: true, 0x0E33: true, 0x0EB3: true, 0x309B: true, 0x309C: true,
	0xFC5E: true, 0xFC5F: true, 0xFC60: true, 0xFC61: true, 0xFC62: true, 0xFC63: true,
	0xFDFA: true, 0xFDFB: true, 0xFE70: true, 0xFE72: true, 0xFE74: true, 0xFE76: true,
	0xFE78: true, 0xFE7A: true, 0xFE7C: true, 0xFE7E: true, 0xFF9E: true, 0xFF9F: true,
}

var notXIDContinue = map[rune]bool{
	0x037A: true, 0x309B: true, 0x309C: true,
	0xFC5E: true, 0xFC5F: true, 0xFC60: true, 0xFC61: true, 0xFC62: true, 0xFC63: true,
	0xFDFA: true, 0xFDFB: true, 0xFE70: true, 0xFE72: true, 0xFE74: true, 0xFE76: true,
	0xFE78: true, 0xFE7A: true, 0xFE7C: true, 0xFE7E: true,
}

func isIDStart(r rune) bool {
	if r < 0x80 {
		return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isXIDStart(r rune) bool { return isIDStart(r) && !notXIDStart[r] }

func isXIDContinue(r rune) bool {
	if r < 0x80 {
		return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	if notXIDContinue[r] {
		return false
	}
	if isIDStart(r) {
		return true
	}
	if unicode.Is(unicode.Pattern_Syntax, r) || unicode.Is(unicode.Pattern_White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// checkIdentifier validates an identifier run of valid UTF-8; on failure it
// returns the rune that is not allowed.
func checkIdentifier(b []byte) (rune, bool) {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		ok := isXIDContinue(r)
		if i == 0 {
			ok = isXIDStart(r)
		}
		if !ok {
			return r, false
		}
		i += n
	}
	return 0, true
}

// identName returns the identifier as Python sees it (NFKC-normalized).
func identName(b []byte, nonASCII bool) string {
	if !nonASCII {
		return string(b)
	}
	return norm.NFKC.String(string(b))
}

func isKeyword(b []byte) bool {
	switch string(b) {
	case "False", "None", "True", "and", "as", "assert", "async", "await",
		"break", "class", "continue", "def", "del", "elif", "else", "except",
		"finally", "for", "from", "global", "if", "import", "in", "is",
		"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
		"while", "with", "yield",
		// Soft keywords may precede a string: match"x": is a match statement.
		"match", "case", "type", "_":
		return true
	}
	return false
}

var (
	namesOnce sync.Once
	namesMap  map[string]rune
)

// nameAliases holds the formal aliases and abbreviations of the Unicode
// NameAliases file that Python code is likely to use; the x/text tables
// hold only the primary names.
var nameAliases = map[string]rune{
	"NULL": 0x00, "NUL": 0x00, "START OF HEADING": 0x01, "START OF TEXT": 0x02,
	"END OF TEXT": 0x03, "END OF TRANSMISSION": 0x04, "ENQUIRY": 0x05,
	"ACKNOWLEDGE": 0x06, "ALERT": 0x07, "BEL": 0x07, "BACKSPACE": 0x08, "BS": 0x08,
	"CHARACTER TABULATION": 0x09, "HORIZONTAL TABULATION": 0x09, "TAB": 0x09, "HT": 0x09,
	"LINE FEED": 0x0A, "NEW LINE": 0x0A, "END OF LINE": 0x0A, "LF": 0x0A, "NL": 0x0A, "EOL": 0x0A,
	"LINE TABULATION": 0x0B, "VERTICAL TABULATION": 0x0B, "VT": 0x0B,
	"FORM FEED": 0x0C, "FF": 0x0C, "CARRIAGE RETURN": 0x0D, "CR": 0x0D,
	"SHIFT OUT": 0x0E, "SHIFT IN": 0x0F, "DATA LINK ESCAPE": 0x10,
	"DEVICE CONTROL ONE": 0x11, "DEVICE CONTROL TWO": 0x12, "DEVICE CONTROL THREE": 0x13,
	"DEVICE CONTROL FOUR": 0x14, "NEGATIVE ACKNOWLEDGE": 0x15, "SYNCHRONOUS IDLE": 0x16,
	"END OF TRANSMISSION BLOCK": 0x17, "CANCEL": 0x18, "END OF MEDIUM": 0x19,
	"SUBSTITUTE": 0x1A, "ESCAPE": 0x1B, "ESC": 0x1B, "INFORMATION SEPARATOR FOUR": 0x1C,
	"FILE SEPARATOR": 0x1C, "INFORMATION SEPARATOR THREE": 0x1D, "GROUP SEPARATOR": 0x1D,
	"INFORMATION SEPARATOR TWO": 0x1E, "RECORD SEPARATOR": 0x1E,
	"INFORMATION SEPARATOR ONE": 0x1F, "UNIT SEPARATOR": 0x1F, "SP": 0x20,
	"DELETE": 0x7F, "DEL": 0x7F, "NEXT LINE": 0x85, "NEL": 0x85,
	"NO-BREAK SPACE": 0xA0, "NBSP": 0xA0, "SHY": 0xAD,
	"ZWSP": 0x200B, "ZWNJ": 0x200C, "ZWJ": 0x200D, "LRM": 0x200E, "RLM": 0x200F,
	"BYTE ORDER MARK": 0xFEFF, "BOM": 0xFEFF, "ZWNBSP": 0xFEFF, "WJ": 0x2060,
	"NNBSP": 0x202F, "MMSP": 0x205F,
}

var (
	hangulL = []string{"G", "GG", "N", "D", "DD", "R", "M", "B", "BB", "S", "SS", "", "J", "JJ", "C", "K", "T", "P", "H"}
	hangulV = []string{"A", "AE", "YA", "YAE", "EO", "E", "YEO", "YE", "O", "WA", "WAE", "OE", "YO", "U", "WEO", "WE", "WI", "YU", "EU", "YI", "I"}
	hangulT = []string{"", "G", "GG", "GS", "N", "NJ", "NH", "D", "L", "LG", "LM", "LB", "LS", "LT", "LP", "LH", "M", "B", "BS", "S", "SS", "NG", "J", "C", "K", "T", "P", "H"}
)

// lookupName finds the character of a \N{...} name, case-insensitively as
// Python does, except for the names made by rule: a Hangul syllable and a
// CJK unified ideograph are found only as CPython spells them, in upper
// case ("HANGUL SYLLABLE GA", "CJK UNIFIED IDEOGRAPH-4E00"). The table is
// built on first use only: most files never hold a \N escape.
func lookupName(b []byte) (rune, bool) {
	if hex, ok := strings.CutPrefix(string(b), "CJK UNIFIED IDEOGRAPH-"); ok {
		if len(hex) != 4 && len(hex) != 5 {
			return 0, false
		}
		var r rune
		for i := 0; i < len(hex); i++ {
			c := hex[i]
			if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'F') {
				return 0, false
			}
			r = r<<4 | rune(hexVal(c))
		}
		return r, strings.HasPrefix(runenames.Name(r), "<CJK Ideograph")
	}
	name := strings.ToUpper(string(b))
	if r, ok := nameAliases[name]; ok {
		return r, true
	}
	if strings.HasPrefix(name, "HANGUL SYLLABLE ") {
		// The syllables are in the table under their upper-case names.
		name = string(b)
	}
	namesOnce.Do(buildNames)
	r, ok := namesMap[name]
	return r, ok
}

func buildNames() {
	namesMap = make(map[string]rune, 1<<16)
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		n := runenames.Name(r)
		if n == "" || n[0] == '<' {
			continue
		}
		namesMap[n] = r
	}
	for l, ln := range hangulL {
		for v, vn := range hangulV {
			for t, tn := range hangulT {
				r := rune(0xAC00 + (l*len(hangulV)+v)*len(hangulT) + t)
				namesMap["HANGUL SYLLABLE "+ln+vn+tn] = r
			}
		}
	}
}
