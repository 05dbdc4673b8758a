//go:build linux

package seal

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	stageEnv = "SEAL_TEST_STAGE" // which part of the helper this test binary is
	fdEnv    = "SEAL_TEST_FD"
	secret   = "postgresql://ci:pw-only-in-the-pipe@db/history"
)

// The test binary doubles as the helper: at stage "exec" it hands secret to
// its next image, at stage "receive" (the next image) it reads it and says
// what it sees, and exits 7.
func TestMain(m *testing.M) {
	switch os.Getenv(stageEnv) {
	case "exec":
		env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, stageEnv+"=") })
		env = append(env, stageEnv+"=receive")
		fmt.Fprintln(os.Stderr, Exec(os.Args, env, fdEnv, secret))
		os.Exit(3)
	case "receive":
		os.Exit(receive())
	}
	os.Exit(m.Run())
}

func receive() int {
	fd := os.Getenv(fdEnv)
	got, ok, err := Receive(fdEnv)
	environ, _ := os.ReadFile("/proc/self/environ")
	cmdline, _ := os.ReadFile("/proc/self/cmdline")
	var n int
	_, _ = fmt.Sscan(fd, &n)
	_, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(n), syscall.F_GETFD, 0)
	fmt.Printf("pid=%d ok=%v err=%v secret=%q env=%q closed=%v environ=%v cmdline=%v args=%q\n",
		os.Getpid(), ok, err, got, os.Getenv(fdEnv), errno == syscall.EBADF,
		bytes.Contains(environ, []byte("pw-only")), bytes.Contains(cmdline, []byte("pw-only")), os.Args[1:])
	return 7
}

// Exec replaces the process with its own binary: the same process id, the
// same arguments, standard streams and exit status, the secret read whole
// from the descriptor, which is closed after, with the variable unset, and
// neither the environment nor the arguments in /proc hold it.
func TestExec_TheNextImageReceivesTheSecretAndNothingShowsIt(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$", "arg with space")
	cmd.Env = append(os.Environ(), stageEnv+"=exec")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "%v: %s", err, &errOut)
	assert.Equal(t, 7, exit.ExitCode(), errOut.String())
	assert.Equal(t, fmt.Sprintf("pid=%d ok=true err=<nil> secret=%q env=\"\" closed=true environ=false cmdline=false args=[\"-test.run=^$\" \"arg with space\"]\n",
		cmd.Process.Pid, secret), out.String())
	assert.Empty(t, errOut.String())
}

// Receive reads nothing when its variable is not set, and refuses a value
// that names no pipe, leaving the descriptor as it is.
func TestReceive_RefusesWhatExecDidNotPass(t *testing.T) {
	_, ok, err := Receive("SEAL_TEST_UNSET")
	assert.False(t, ok)
	assert.NoError(t, err)

	f, err := os.CreateTemp(t.TempDir(), "not-a-pipe")
	require.NoError(t, err)
	defer f.Close()
	for value, want := range map[string]string{
		"1":                     "SEAL_TEST_FD is not the number of a descriptor above 2",
		"x":                     "SEAL_TEST_FD is not the number of a descriptor above 2",
		"99999":                 "descriptor 99999 (SEAL_TEST_FD): bad file descriptor",
		fmt.Sprint(f.Fd()):      fmt.Sprintf("descriptor %d (SEAL_TEST_FD) is not a pipe", f.Fd()),
		strings.Repeat("9", 12): "SEAL_TEST_FD is not the number of a descriptor above 2",
	} {
		t.Setenv(fdEnv, value)
		_, ok, err := Receive(fdEnv)
		assert.True(t, ok, value)
		assert.EqualError(t, err, want, value)
		_, set := os.LookupEnv(fdEnv)
		assert.False(t, set, "the variable is unset")
	}
	_, err = f.Stat()
	assert.NoError(t, err, "a descriptor that is no pipe is left open")
}

// A pipe whose writer is still open is not one Exec filled: Receive does
// not wait on it.
func TestReceive_DoesNotWaitOnAnOpenWriter(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	fd, err := syscall.Dup(int(r.Fd()))
	require.NoError(t, err)
	r.Close()
	require.NoError(t, syscall.SetNonblock(fd, true))
	t.Setenv(fdEnv, fmt.Sprint(fd))
	_, ok, err := Receive(fdEnv)
	assert.True(t, ok)
	assert.EqualError(t, err, fmt.Sprintf("descriptor %d (SEAL_TEST_FD): its writer is still open", fd))
}
