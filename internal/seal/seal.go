// Package seal hands a secret to the process's own next image through a
// pipe, so that neither its environment nor its arguments hold it: any
// process of the same user reads those in /proc/PID/environ and
// /proc/PID/cmdline (and `ps` shows the arguments) for as long as the
// process lives, whatever it later removes from its own copy.
package seal

import "errors"

// maxSecret bounds what Receive reads: a secret is a line, a URL.
const maxSecret = 64 << 10

// ErrUnsupported is Exec's error where a process cannot replace itself.
var ErrUnsupported = errors.ErrUnsupported
