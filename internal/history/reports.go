package history

import (
	"errors"
	"os"

	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/report"
)

// Found is where reportFiles looked for run reports under one path given.
type Found struct {
	// Dir says the path is a directory; Files are then the *.json files
	// below it, in the walk's order (each directory's entries by name),
	// and Links the links found there, which are not followed. For a
	// path that is not a directory Files holds the path itself.
	Dir   bool
	Files []string
	Links []string
}

// ReportFiles is the one walker of the places run reports are given, for
// the history's directory reader (Dir) and for the report readers built
// on it (ReportHosts): a path that is a file is read as given (a link
// named is followed), a directory is searched for *.json files. The
// error is os.Stat's for a path that cannot be stat'ed (Found is then
// empty), or the walk's (Found then holds the links met before it).
func ReportFiles(root string) (Found, error) {
	st, err := os.Stat(root)
	if err != nil {
		return Found{}, err
	}
	if !st.IsDir() {
		return Found{Files: []string{root}}, nil
	}
	below, err := fsutil.FilesBelow(root, ".json")
	return Found{Dir: true, Files: below.Files, Links: below.Links}, err
}

// ReportProblem is what report.Read found wrong with a file, without the
// path that a warning names already.
func ReportProblem(err error) string {
	var re *report.Error
	if errors.As(err, &re) {
		return re.Err.Error()
	}
	return err.Error()
}
