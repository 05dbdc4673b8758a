package runner

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
)

// Stream is one of miles-ci's own output streams (stdout, stderr), which a
// reader may leave: `miles-ci run … --json-report r.json | head -1`. When a
// write fails with EPIPE the stream is gone: that write and every later one
// is dropped and reported as done, so the run goes on, runs every test and
// writes every report. (main asks for SIGPIPE, which would otherwise end
// the process at that write.)
type Stream struct {
	f *os.File
	// direct: children may write to f themselves. A regular file or a
	// terminal cannot go away under them; a pipe or socket can, and a child
	// writing into it after the reader left would get SIGPIPE or EPIPE and
	// fail a test that passed. Such a child gets a pipe of its own, copied
	// to the stream, where the loss is miles-ci's to absorb.
	direct bool
	gone   atomic.Bool
}

// NewStream wraps f, one of the process's standard output streams.
func NewStream(f *os.File) *Stream {
	s := &Stream{f: f}
	if info, err := f.Stat(); err == nil {
		m := info.Mode()
		s.direct = m.IsRegular() || m&os.ModeCharDevice != 0
	}
	return s
}

func (s *Stream) Write(p []byte) (int, error) {
	if s.gone.Load() {
		return len(p), nil
	}
	n, err := s.f.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		s.gone.Store(true)
		return len(p), nil
	}
	return n, err
}

// Gone reports whether the stream's reader has left.
func (s *Stream) Gone() bool { return s.gone.Load() }

// inheritable returns the file a child may be given as its own stdout or
// stderr instead of a pipe copied to w, if there is one.
func inheritable(w io.Writer) (*os.File, bool) {
	switch w := w.(type) {
	case *os.File:
		return w, true
	case *Stream:
		return w.f, w.direct
	}
	return nil, false
}

// sameFile reports whether a and b write to the same open file (stdout and
// stderr after 2>&1), so a child's two streams can share one pipe and keep
// their order.
func sameFile(a, b io.Writer) bool {
	fa, fb := fileOf(a), fileOf(b)
	if fa == nil || fb == nil {
		return false
	}
	ia, err1 := fa.Stat()
	ib, err2 := fb.Stat()
	return err1 == nil && err2 == nil && os.SameFile(ia, ib)
}

func fileOf(w io.Writer) *os.File {
	switch w := w.(type) {
	case *os.File:
		return w
	case *Stream:
		return w.f
	}
	return nil
}
