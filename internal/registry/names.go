package registry

import (
	"fmt"
	"strconv"
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
// Go-quoted when it holds a control character, so that it stays on one
// line and cannot start a line of its own.
func displayPath(p string) string {
	if _, bad := controlChar(p); bad {
		return strconv.Quote(p)
	}
	return p
}

// nameError refuses a test file whose path holds a control character
// (nil when it holds none). Every command prints the paths of test files,
// and a line break in one would let a file name start an output line of
// its own, such as a GitHub workflow command ("::error ..."); other
// control characters garble logs and are not allowed in JUnit XML. No
// real test is named so, so the file is refused rather than printed
// escaped everywhere.
func nameError(file string) *FileError {
	r, bad := controlChar(file)
	if !bad {
		return nil
	}
	return &FileError{File: file, Msg: fmt.Sprintf("%s: the file name holds the control character U+%04X, which CI logs cannot show safely; rename the file", strconv.Quote(file), r)}
}
