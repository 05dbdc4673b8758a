package fsutil

import (
	"errors"
	"io/fs"
	"os"
)

// maxLockAttempts bounds how often Acquire retries after finding that the
// file it locked was replaced meanwhile.
const maxLockAttempts = 1000

// Lock is an exclusive lock on a file shared by several processes, held
// from Acquire to Release.
type Lock struct {
	f      *os.File
	target string
	// Created says the file did not exist: Acquire created it empty, so
	// an empty file under the lock means "nothing written yet".
	Created bool
}

// Acquire waits for the exclusive lock on the file at path, the file that
// WriteFile(path) replaces, creating it empty (0666 less the umask) when it
// does not exist. Every process that reads, merges and writes the file under
// the lock sees the previous writer's result, so none is lost.
//
// WriteFile renames a new file over the locked one; a process that waited
// on the old file finds, once it holds the lock, that the name points
// elsewhere, and waits on the new file instead. The lock is flock(2),
// which NFS clients carry to the server, so the shards of a suite on
// different machines sharing a disk exclude each other too. A path that is
// not a regular file (/dev/stdout) is not locked: there is nothing to merge.
func Acquire(path string) (*Lock, error) {
	for attempt := 0; ; attempt++ {
		// Each retry means another process replaced the file; a thousand
		// in a row means something keeps replacing it without the lock.
		if attempt == maxLockAttempts {
			return nil, &fs.PathError{Op: "lock", Path: path, Err: errors.New("the file keeps being replaced")}
		}
		if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
			return &Lock{}, nil
		}
		target, err := resolveLinks(path)
		if err != nil {
			return nil, err
		}
		f, created, err := openForLock(target)
		if errors.Is(err, fs.ErrExist) {
			continue // created by another process meanwhile
		}
		if err != nil {
			return nil, err
		}
		if err := flock(f, true); err != nil {
			f.Close()
			return nil, &fs.PathError{Op: "lock", Path: target, Err: err}
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(target)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return &Lock{f: f, target: target, Created: created}, nil
		}
		// Another process replaced the file while this one waited.
		flock(f, false)
		f.Close()
	}
}

// openForLock opens target for the lock, creating it when it is missing.
// NFS grants an exclusive lock only on a file open for writing; a file the
// process may read but not write still locks locally.
func openForLock(target string) (f *os.File, created bool, err error) {
	f, err = os.OpenFile(target, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrPermission) {
		f, err = os.Open(target)
	}
	if errors.Is(err, fs.ErrNotExist) {
		f, err = os.OpenFile(target, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		return f, err == nil, err
	}
	return f, false, err
}

// Release drops the lock. When Acquire created the file and nothing was
// written to it, the empty file is removed, so a failed run leaves nothing.
func (l *Lock) Release() error {
	if l.f == nil {
		return nil
	}
	if l.Created {
		if st, err := l.f.Stat(); err == nil && st.Size() == 0 {
			if now, err := os.Stat(l.target); err == nil && os.SameFile(st, now) {
				os.Remove(l.target)
			}
		}
	}
	err := flock(l.f, false)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
