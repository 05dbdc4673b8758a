//go:build !linux

package runner

// becomeSubreaper has no equivalent here: an orphan is reparented to init,
// leaves miles-ci's descendants, and only the process-group kill reaches it
// (while it stays in the group). See the README.
func becomeSubreaper() bool { return false }
