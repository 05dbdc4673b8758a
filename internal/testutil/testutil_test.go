package testutil

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records how Skip ended it: the first
// call that would have ended a real test.
type recorder struct {
	testing.TB
	ended string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Skip(args ...any)                  { r.end("skip") }
func (r *recorder) SkipNow()                          { r.end("skip") }
func (r *recorder) Fatalf(format string, args ...any) { r.end("fail") }

func (r *recorder) end(how string) {
	if r.ended == "" {
		r.ended = how
	}
}

func TestSkip_FailsOnlyWhenStrict(t *testing.T) {
	for v, want := range map[string]string{"": "skip", "0": "skip", "1": "fail"} {
		t.Setenv(StrictEnv, v)
		r := &recorder{TB: t}
		Skip(r, "no such tool")
		assert.Equal(t, want, r.ended, "%s=%q", StrictEnv, v)
	}
}

// SkipShort leaves a heavy case out only under -short, and a strict run
// never: there -short is a failure, never a silent skip.
func TestSkipShort_SkipsUnderShortAndFailsWhenStrict(t *testing.T) {
	was := flag.Lookup("test.short").Value.String()
	t.Cleanup(func() { _ = flag.Set("test.short", was) })
	for _, tc := range []struct{ short, strict, want string }{
		{"false", "", ""}, {"false", "1", ""}, {"true", "", "skip"}, {"true", "1", "fail"},
	} {
		require.NoError(t, flag.Set("test.short", tc.short))
		t.Setenv(StrictEnv, tc.strict)
		r := &recorder{TB: t}
		SkipShort(r, "a heavy case")
		assert.Equal(t, tc.want, r.ended, "-short=%s %s=%q", tc.short, StrictEnv, tc.strict)
	}
}

// NeedPython names the interpreter itself, not a launcher in front of it:
// asked for its own executable, it names itself.
func TestNeedPython_NamesTheInterpreter(t *testing.T) {
	py := NeedPython(t)
	out, err := exec.Command(py, "-c", "import sys; print(sys.executable)").Output()
	require.NoError(t, err)
	assert.Equal(t, py, strings.TrimSpace(string(out)))
	assert.Equal(t, py, NeedPython(t), "asked once")
}

// A ShellTest file runs its script under sh and shows Python only the
// registration after a string.
func TestShellTest_ShRunsTheScript(t *testing.T) {
	sh := NeedCommand(t, "sh")
	src := ShellTest("register_cuda_ci(est_time=1)\n", "echo \"ran $1\"\nfalse")
	path := WriteFile(t, t.TempDir(), "t.py", src)
	out, err := exec.Command(sh, path, "arg").Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the script's status is the file's")
	assert.Equal(t, "ran arg\n", string(out))
	assert.True(t, strings.HasPrefix(src, "''':'\n"))
	assert.True(t, strings.HasSuffix(src, "\n'''\nregister_cuda_ci(est_time=1)\n"))
}

func TestLauncher_StartReturnsOnceTheChildIsReady(t *testing.T) {
	dir := t.TempDir()
	script := WriteFile(t, dir, "t.py", "echo $$ >&3\n: > \"$0.after\"\nexec sleep 60\n")
	l := &Launcher{Shell: true, Ready: true}
	cmd := exec.Command("python3", script)
	require.NoError(t, l.Start(cmd))
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	assert.Equal(t, "sh", cmd.Args[0], "python3 became sh")
	assert.Equal(t, cmd.Process.Pid, l.Pid(t))
	assert.Equal(t, strconv.Itoa(cmd.Process.Pid), <-l.Readied())
	assert.True(t, Alive(cmd.Process.Pid))
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	assert.False(t, Alive(cmd.Process.Pid), "a reaped child is gone")
}

func TestWriteTree_MakesFilesDirectoriesAndLinks(t *testing.T) {
	root := TempTree(t, map[string]string{"a/b.txt": "text", "d": "/", "l": "->a/b.txt"})
	data, err := os.ReadFile(filepath.Join(root, "l"))
	require.NoError(t, err)
	assert.Equal(t, "text", string(data))
	st, err := os.Stat(filepath.Join(root, "d"))
	require.NoError(t, err)
	assert.True(t, st.IsDir())
}
