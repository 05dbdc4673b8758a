//go:build !unix

package registry

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// readFile reads a regular file of at most MaxFileSize bytes into buf; the
// returned slice aliases buf when it was large enough. A file that does not
// fit buf takes its size from budget before it is read, and held says how
// much, for the caller to give back once done with the file.
func readFile(name string, buf []byte, budget *byteBudget) (data []byte, held int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, errors.New("cannot read file: " + Reason(err))
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, 0, errors.New("cannot read file: " + Reason(err))
	}
	if !info.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("not a regular file")
	}
	if info.Size() > MaxFileSize {
		return nil, 0, fmt.Errorf("file is %d bytes, larger than the %d MiB a test file may have", info.Size(), MaxFileSize>>20)
	}
	if budget != nil && info.Size() >= readBufSize {
		held = min(info.Size(), MaxFileSize) + 1
		budget.acquire(held)
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, held, errors.New("cannot read file: " + Reason(err))
	}
	if len(data) > MaxFileSize {
		return nil, held, fmt.Errorf("file is larger than the %d MiB a test file may have", MaxFileSize>>20)
	}
	return append(buf[:0], data...), held, nil
}
