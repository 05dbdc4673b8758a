//go:build unix

package fsutil

import (
	"io/fs"
	"os"
	"syscall"
)

// openNonblocking opens path for reading without waiting for a FIFO's
// writer; the caller refuses what is not a regular file.
func openNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openWriteNonblocking opens an existing file for writing without waiting
// for a FIFO's reader (ENXIO when there is none). O_TRUNC empties a
// regular file reached this way and is ignored by devices.
func openWriteNonblocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_TRUNC|syscall.O_NONBLOCK, 0)
}

// keepOwner gives f the owner and group of old where the process may, so
// that replacing a file does not change who owns it: both as root; the
// group alone when the process is in it. Elsewhere the file is the
// writer's, as any rewrite would make it.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if !ok {
		return
	}
	now, err := f.Stat()
	if err != nil {
		return
	}
	cur, ok := now.Sys().(*syscall.Stat_t)
	if !ok || cur.Uid == st.Uid && cur.Gid == st.Gid {
		return
	}
	if f.Chown(int(st.Uid), int(st.Gid)) != nil {
		_ = f.Chown(-1, int(st.Gid))
	}
}

// linkCount is the number of hard links of the file fi describes.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// flock takes (lock) or drops the exclusive flock(2) lock of f, waiting for
// it and retrying after a signal interrupts the wait.
func flock(f *os.File, lock bool) error {
	how := syscall.LOCK_UN
	if lock {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// writeDescriptor writes data to the open descriptor fd, which path names,
// through a duplicate of it. The descriptor is borrowed (stdout, or one a
// caller holds): an *os.File made over fd itself would close it when it is
// closed or, dropped, when its finalizer runs, and the number, reused by a
// later open, would then be closed under its new owner. The duplicate
// shares the file offset and the O_APPEND flag, so the data lands where a
// write to fd would put it.
func writeDescriptor(fd int, path string, data []byte) error {
	syscall.ForkLock.RLock()
	dup, err := syscall.Dup(fd)
	if err == nil {
		syscall.CloseOnExec(dup)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return &fs.PathError{Op: "dup", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(dup), path)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
