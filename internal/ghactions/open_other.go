//go:build !unix

package ghactions

import "os"

// openAppend opens the file a workflow command appends to, creating it when
// missing.
func openAppend(path string, perm os.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, perm)
}
