package main

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// Linux's pipe requests, which package syscall does not name.
const (
	fionread    = 0x541B // bytes waiting in the pipe
	fGetPipeSiz = 1032   // F_GETPIPE_SZ: the pipe's capacity
)

// pipeFull reports whether the pipe that r reads from is full, so that its
// writer blocks: the bytes waiting fill its capacity but for at most a
// page, which a write that did not fit a partly filled page leaves free.
func pipeFull(t *testing.T, r *os.File) bool {
	t.Helper()
	queued, capacity := pipeState(t, r)
	return queued >= capacity-os.Getpagesize()
}

// pipeState returns how many bytes wait in the pipe that r reads from, and
// how many it holds.
func pipeState(t *testing.T, r *os.File) (queued, capacity int) {
	t.Helper()
	fd := r.Fd()
	size, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, fGetPipeSiz, 0)
	if errno != 0 {
		t.Fatalf("F_GETPIPE_SZ: %v", errno)
	}
	var n int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, fionread, uintptr(unsafe.Pointer(&n))); errno != 0 {
		t.Fatalf("FIONREAD: %v", errno)
	}
	return int(n), int(size)
}
