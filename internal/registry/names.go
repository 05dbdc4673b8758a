package registry

import (
	"strconv"
	"unicode/utf8"
)

// controlChar returns the first control character of name (C0, DEL or C1,
// Unicode's category Cc) and whether it has one.
func controlChar(name string) (rune, bool) {
	for _, r := range name {
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return r, true
		}
	}
	return 0, false
}

// displayPath returns p as an error message shows it: unchanged, or
// Go-quoted when it holds a control character or is not UTF-8, so that
// it stays on one line and shows every byte.
func displayPath(p string) string {
	if _, bad := controlChar(p); bad || !utf8.ValidString(p) {
		return strconv.Quote(p)
	}
	return p
}

// nameError refuses a test file whose path is not valid UTF-8 (nil when
// it is). Such a name cannot be written in a JSON report, a JUnit file or
// a log line without turning its bad bytes into U+FFFD, and a name so
// changed no longer names the file: `--rerun-failed` and `report merge`
// would lose it. Control characters are not refused: every place that
// prints a name escapes them, as the Python runner does.
func nameError(file string) *FileError {
	if utf8.ValidString(file) {
		return nil
	}
	return &FileError{File: file, Msg: strconv.Quote(file) + ": the file name is not valid UTF-8, which reports and CI logs cannot hold; rename the file"}
}
