package fsutil

import (
	"os"
	"strconv"
	"strings"
)

// HiddenPath stands in a message for a path that Shown does not print.
const HiddenPath = "(a name that is no file and looks like a database URL, not shown: it may hold a password)"

// LooksLikeConnString reports whether name reads like a database
// connection string rather than a file name: a URL (scheme://), a
// postgres… prefix in any case (POSTGRES://, postgress://), or a keyword
// DSN (host=… password=… dbname=…). Such a value may hold a password.
func LooksLikeConnString(name string) bool {
	lower := strings.ToLower(name)
	return strings.Contains(lower, "://") || strings.HasPrefix(lower, "postgres") ||
		strings.Contains(lower, "password=") || strings.Contains(lower, "host=") || strings.Contains(lower, "dbname=")
}

// Hidden reports whether a message must not print path: it names nothing
// on disk and LooksLikeConnString. A database URL given where a file is
// expected (its password included) is then never echoed, while a real
// file of such a name still is.
func Hidden(path string) bool {
	if !LooksLikeConnString(path) {
		return false
	}
	_, err := os.Lstat(path)
	return err != nil
}

// Shown is path as a message about it quotes it: quoted as %q does, or
// HiddenPath when it is Hidden.
func Shown(path string) string {
	if Hidden(path) {
		return HiddenPath
	}
	return strconv.Quote(path)
}
