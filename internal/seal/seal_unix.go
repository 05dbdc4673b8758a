//go:build unix

package seal

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
)

// Exec replaces the process with its own executable run with argv and env,
// plus the variable name=N, N a descriptor holding secret and nothing else
// (see Receive). The process id, the standard streams and the signals it
// ignores stay. It returns only when it failed, the process unchanged.
func Exec(argv, env []string, name, secret string) error {
	path := "/proc/self/exe" // the running binary, even when renamed or deleted since
	if runtime.GOOS != "linux" {
		var err error
		if path, err = os.Executable(); err != nil {
			return err
		}
	}
	fds := make([]int, 2)
	// The read end is opened without close-on-exec, to reach the next
	// image: no child may be started meanwhile.
	syscall.ForkLock.RLock()
	err := syscall.Pipe(fds)
	if err == nil {
		syscall.CloseOnExec(fds[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return fmt.Errorf("pipe: %w", err)
	}
	r, w := fds[0], fds[1]
	defer syscall.Close(r)
	// Nobody reads before the exec: a write that does not fit must fail,
	// not wait.
	err = syscall.SetNonblock(w, true)
	for b := []byte(secret); err == nil && len(b) > 0; {
		var n int
		if n, err = syscall.Write(w, b); err == nil {
			b = b[n:]
		} else if err == syscall.EINTR {
			err = nil
		}
	}
	syscall.Close(w)
	if errors.Is(err, syscall.EAGAIN) {
		return fmt.Errorf("the secret (%d bytes) is more than a pipe holds", len(secret))
	}
	if err != nil {
		return fmt.Errorf("write to a pipe: %w", err)
	}
	// The reader must not wait either: what is in the pipe is all there
	// is, its writer closed.
	if err := syscall.SetNonblock(r, true); err != nil {
		return fmt.Errorf("pipe: %w", err)
	}
	env = append(slices.Clip(env), name+"="+strconv.Itoa(r))
	return fmt.Errorf("exec %s: %w", path, syscall.Exec(path, argv, env))
}

// Receive reads the secret Exec passed in the descriptor the variable name
// gives, closes it and unsets the variable, so that nothing the process
// starts inherits either. ok is false when name is not set.
func Receive(name string) (secret string, ok bool, err error) {
	v, ok := os.LookupEnv(name)
	if !ok {
		return "", false, nil
	}
	os.Unsetenv(name)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 || len(v) > 9 {
		return "", true, fmt.Errorf("%s is not the number of a descriptor above 2", name)
	}
	// A descriptor that is no pipe is not Exec's: left as it is.
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return "", true, fmt.Errorf("descriptor %d (%s): %w", fd, name, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return "", true, fmt.Errorf("descriptor %d (%s) is not a pipe", fd, name)
	}
	defer syscall.Close(fd)
	syscall.CloseOnExec(fd)
	buf := make([]byte, 0, 512)
	chunk := make([]byte, 4096)
	for {
		n, err := syscall.Read(fd, chunk)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return "", true, fmt.Errorf("descriptor %d (%s): its writer is still open", fd, name)
		case err != nil:
			return "", true, fmt.Errorf("descriptor %d (%s): %w", fd, name, err)
		case n == 0:
			return string(buf), true, nil
		}
		if buf = append(buf, chunk[:n]...); len(buf) > maxSecret {
			return "", true, fmt.Errorf("descriptor %d (%s) holds more than %d bytes", fd, name, maxSecret)
		}
	}
}
