package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A database URL given where a file is expected is refused in one line
// that shows none of it: not the password, not the host. Every command
// that opens a file the user names (a timings file, a report, the
// configuration, a workflow or runners listing for lint) says so the same
// way (only --from, --to and --history read a URL).
func TestFileArguments_ADatabaseURLIsNeverEchoed(t *testing.T) {
	const url = "postgres://u:secretpw@db.example:5432/x"
	root := execRepo(t, map[string]string{"tests/e2e/test_a.py": gpuTest("a", "")})
	for _, args := range [][]string{
		{"timings", "apply", url},
		{"timings", "apply", "--check", url},
		{"report", "hosts", url},
		{"report", "summary", url},
		{"timings", "merge", url},
		runArgs("--timings", url),
		{"partition", "--hw", "cuda", "--suite", reportSuite, "--labels", "run-ci-fsdp", "--timings", url},
		runArgs("--rerun-failed", url),
		{"--config", url, "suites"},
		{"lint", "--external", url},
		{"lint", "--runners", url},
	} {
		code, out, errOut := miles(t, root, nil, args...)
		assert.NotZero(t, code, "%v", args)
		assert.NotContains(t, out+errOut, "secretpw", "%v", args)
		assert.NotContains(t, out+errOut, "db.example", "%v", args)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		assert.Len(t, lines, 1, "%v: %s", args, errOut)
		assert.Regexp(t, `^error: (read (timings|report|config)|--external|--runners) \(a name that is no file and looks like a database URL, not shown: it may hold a password\): (open: )?no such file or directory$`,
			lines[0], "%v", args)
	}
	// A file that is simply missing is named, as before.
	code, _, errOut := miles(t, root, nil, "timings", "apply", "no-such-timings.json")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, `read timings "no-such-timings.json"`)
}
