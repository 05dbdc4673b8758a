package runner

import "syscall"

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER (linux/prctl.h),
// which package syscall does not name.
const prSetChildSubreaper = 36

// becomeSubreaper makes this process the child subreaper of its
// descendants: an orphan below it (a daemon that double-forked and called
// setsid) is reparented to miles-ci instead of to init, so it stays among
// the descendants the sweep finds and kills. It reports whether that worked.
func becomeSubreaper() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
}
