//go:build !linux

package registry

import "io/fs"

// listDir calls fn with the name and type of each entry of the directory
// dir, in the order the system returns them. buf is unused here.
func listDir(dir string, buf []byte, fn func(name string, typ fs.FileMode) error) error {
	entries, err := ReadDirUnsorted(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := fn(e.Name(), e.Type()); err != nil {
			return err
		}
	}
	return nil
}
