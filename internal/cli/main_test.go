package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/radixark/miles-ci/internal/testutil"
)

// asMilesCIEnv makes the test binary miles-ci itself: started with it set
// to 1, the binary runs Main on its arguments and exits, so a test can
// start real miles-ci processes (several at once, each with its own
// environment) without building the command first.
const asMilesCIEnv = "MILES_CI_TEST_AS_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asMilesCIEnv) == "1" {
		f := SystemFactory()
		SealHistoryURL(f, os.Args) // as main does first
		code := Main(os.Args[1:], f)
		KillLeftovers()
		os.Exit(code)
	}
	// The run history's tests share one throwaway PostgreSQL, stopped here.
	os.Exit(testutil.RunWithPostgres(m))
}

// milesCommand prepares a miles-ci process (the test binary as miles-ci)
// in dir, with an environment of its own: this process's without any
// GitHub or history variable, python3 as sh (for ShellTest files), and
// env on top.
func milesCommand(t *testing.T, dir string, env map[string]string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "GITHUB_") || strings.HasPrefix(name, "RUNNER_") ||
			name == envHistoryURL || name == "NEON_DATABASE_URL" || name == testutil.StrictEnv {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, asMilesCIEnv+"=1", "PATH="+testutil.ShellAsPython(t))
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.WaitDelay = 10 * time.Second
	return cmd
}
