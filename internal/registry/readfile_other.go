//go:build !unix

package registry

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// readFile reads a regular file of at most MaxFileSize bytes into buf; the
// returned slice aliases buf when it was large enough.
func readFile(name string, buf []byte) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, errors.New("cannot read file: " + Reason(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, errors.New("cannot read file: " + Reason(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	if info.Size() > MaxFileSize {
		return nil, fmt.Errorf("file is %d bytes, larger than the %d MiB a test file may have", info.Size(), MaxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, errors.New("cannot read file: " + Reason(err))
	}
	if len(data) > MaxFileSize {
		return nil, fmt.Errorf("file is larger than the %d MiB a test file may have", MaxFileSize>>20)
	}
	return append(buf[:0], data...), nil
}
