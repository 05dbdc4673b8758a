// Package fsutil holds the rules miles-ci applies to every file a user
// names for it to read or write: reads take only regular files and only up
// to a size cap, so a link to /dev/zero or a FIFO cannot exhaust memory or
// hang the process; writes replace a regular file atomically but go through
// links and into devices in place; a lock serializes the read-modify-write
// of a file that several processes share.
package fsutil

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// NotRegularError is a file that was to be read but is not a regular file.
type NotRegularError struct {
	// Kind names what it is instead: "a directory", "a FIFO", ...
	Kind string
}

func (e *NotRegularError) Error() string {
	return "is " + e.Kind + ", not a regular file"
}

// TooLargeError is a file larger than the caller's cap.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return "is larger than " + FormatSize(e.Limit)
}

// FormatSize writes a byte count the way the caps are chosen: in whole MiB
// or KiB when it is one, in bytes otherwise.
func FormatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// kind names the type of file mode m for a NotRegularError.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "not a regular file"
}

// ReadRegular reads the file at path, following links, when it is a
// regular file of at most limit bytes. Anything else is an error: a
// *NotRegularError (a FIFO is refused at once, never waited on), a
// *TooLargeError, or the *fs.PathError of the failed system call.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &NotRegularError{Kind: kind(st.Mode())}
	}
	if st.Size() > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	// The size is a hint for the buffer; the limit still holds if the file
	// grows while it is read.
	buf := make([]byte, 0, st.Size()+1)
	data, err := readAtMost(f, buf, limit)
	if err != nil {
		return nil, err
	}
	return data, nil
}

func readAtMost(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &TooLargeError{Limit: limit}
		}
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// OpenRegular opens path for reading as ReadRegular reads it, for a
// reader that takes the file a piece at a time: the same refusals before
// anything is read, and a read past limit bytes (the file grew) fails with
// a *TooLargeError.
func OpenRegular(path string, limit int64) (io.ReadCloser, error) {
	f, err := openNonblocking(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, &NotRegularError{Kind: kind(st.Mode())}
	}
	if st.Size() > limit {
		f.Close()
		return nil, &TooLargeError{Limit: limit}
	}
	return &boundedFile{File: f, left: limit, limit: limit}, nil
}

// boundedFile is a file that refuses to be read past a limit.
type boundedFile struct {
	*os.File
	left  int64
	limit int64
}

func (b *boundedFile) Read(p []byte) (int, error) {
	// One byte past the limit tells a file of exactly limit bytes from a
	// larger one.
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.File.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return 0, &TooLargeError{Limit: b.limit}
	}
	return n, err
}

// CheckRegular reports whether path names a file ReadRegular could read:
// nil when it is a regular file or does not exist (the caller decides what
// a missing file means), a *NotRegularError otherwise. It never opens the
// file, so it never blocks.
func CheckRegular(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &NotRegularError{Kind: kind(st.Mode())}
	}
	return nil
}

// StripPath drops the path an *fs.PathError or *os.LinkError carries,
// keeping the operation and the cause ("open: no such file or directory"),
// for a caller whose message names the file already.
func StripPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("%s: %w", le.Op, le.Err)
	}
	return err
}
