package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// Test files that fail as a broken host makes them fail: PyTorch's
// traceback on stderr, ending in the line of CUDA error 802. (Each writes
// to one stream: the tests' stdout and stderr are one buffer, not a file,
// which two streams would reach in no set order.)
const (
	sh802 = `echo '[2026-08-14 10:21:07] server_args=ServerArgs(model_path=...)' >&2
echo 'Traceback (most recent call last):' >&2
echo '  File "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py", line 372, in _lazy_init' >&2
echo '    torch._C._cuda_init()' >&2
echo '` + line802 + `' >&2
exit 1
`
	// sh802Once fails with error 802 on its first attempt only.
	sh802Once = `state="$(dirname "$0")/.state"
if [ ! -e "$state" ]; then
    : > "$state"
` + sh802 + `fi
echo 'gsm8k accuracy 0.81'
`
	// sh802Hang prints the line, then hangs until killed.
	sh802Hang = `echo '` + line802 + `' >&2
exec sleep 60
`
	// shPasses802 prints the line, yet passes (a warning it survived).
	shPasses802 = `echo 'UserWarning: CUDA initialization: Error 802: system not yet initialized' >&2
echo 'retrying on the next device' >&2
`
)

// scriptedHost is ready at the start of a run and, when checked again
// (after an infra failure), answers ready; it records every check asked of
// it after the start.
type scriptedHost struct {
	ready bool
	asked []string
}

func (p *scriptedHost) check(_ context.Context, when string) bool {
	if when == "start" {
		return true
	}
	p.asked = append(p.asked, when)
	return p.ready
}

func infraOptions(t *testing.T, files map[string]string, out *bytes.Buffer, pf *scriptedHost) (Options, *recLog) {
	t.Helper()
	opts, log := baseOptions(repo(t, files), out)
	opts.Fingerprints = testFingerprints
	opts.Host = "h100-runner-7 (novita-host2)"
	if pf != nil {
		opts.Preflight = pf.check
	}
	return opts, log
}

// A test that prints CUDA error 802 fails with cause infra and that line,
// retries or not; the host is asked again, and the report says so.
func TestRun_AnInfraFingerprintNamesTheCause(t *testing.T) {
	var out bytes.Buffer
	pf := &scriptedHost{ready: true}
	opts, log := infraOptions(t, map[string]string{"a.py": sh802, "b.py": shPass}, &out, pf)
	rep := Run(context.Background(), []File{{"a.py", 1}, {"b.py", 1}}, opts)

	require.Len(t, rep.Files[0].Attempts, 1)
	a := rep.Files[0].Attempts[0]
	assert.Equal(t, Fail, a.Status)
	assert.Equal(t, report.CauseInfra, a.Cause)
	assert.Equal(t, "cuda-802", a.Fingerprint)
	assert.Equal(t, line802, a.CauseLine)
	assert.Equal(t, []string{"after a.py attempt 1"}, pf.asked)
	// A ready host and no --enable-retry: the run goes on as it would,
	// which without --continue-on-error is to stop.
	assert.Equal(t, NotRun, rep.Files[1].Status)
	assert.Equal(t, "not run: an earlier file failed", rep.Files[1].Reason())
	assert.False(t, rep.HostNotReady)

	text := out.String()
	assert.Contains(t, text, "\n[CI Infra] a.py: cuda-802 matched: "+line802+"\n")
	assert.Contains(t, text, "FAILED: a.py returned exit code 1\n")
	assert.Contains(t, text, "\nFAILED:\n  a.py (exit code 1, infra: cuda-802)\n")
	assert.Contains(t, log.lines, "error a.py: Infra failure on h100-runner-7 (novita-host2): attempt 1 failed: infra fingerprint cuda-802 matched: "+line802)

	doc := rep.Document("stage-c-8-gpu-h100", "cuda")
	f := doc.Files[0]
	assert.Equal(t, report.CauseInfra, f.Cause)
	assert.Equal(t, "exit code 1", f.Reason)
	assert.Equal(t, report.CauseInfra, f.AttemptsDetail[0].Cause)
	assert.Equal(t, line802, f.AttemptsDetail[0].CauseLine)
	assert.Equal(t, "cuda-802", f.AttemptsDetail[0].Fingerprint)
}

// With --enable-retry and a host that recovers, the file passes on retry
// and is flaky with cause infra, although the retry classifier calls a
// RuntimeError not retriable.
func TestRun_InfraFailureIsRetriedOnAHostFoundReady(t *testing.T) {
	var out bytes.Buffer
	pf := &scriptedHost{ready: true}
	opts, log := infraOptions(t, map[string]string{"flaky.py": sh802Once}, &out, pf)
	opts.EnableRetry, opts.MaxAttempts = true, 3
	rep := Run(context.Background(), []File{{"flaky.py", 1}}, opts)

	require.True(t, rep.Passed())
	f := rep.Files[0]
	require.Len(t, f.Attempts, 2)
	assert.Equal(t, report.CauseInfra, f.Attempts[0].Cause)
	assert.Equal(t, "infra failure: cuda-802", f.Attempts[0].RetryReason)
	assert.Equal(t, report.Cause(""), f.Attempts[1].Cause)
	assert.Equal(t, []string{"after flaky.py attempt 1"}, pf.asked)
	assert.Contains(t, out.String(), "[CI Retry] flaky.py failed with infra failure: cuda-802\n[CI Retry] Waiting 0s before retry...\n")
	assert.Contains(t, out.String(), "PASSED on retry (attempt 2): flaky.py\n")
	assert.Contains(t, log.lines, "warning flaky.py: Infra failure on h100-runner-7 (novita-host2): attempt 1 failed: infra fingerprint cuda-802 matched: "+line802)

	doc := rep.Document("s", "cuda")
	assert.True(t, doc.Files[0].Flaky)
	assert.Equal(t, report.Pass, doc.Files[0].Status)
	assert.Equal(t, report.Cause(""), doc.Files[0].Cause, "the last attempt passed")
	assert.Equal(t, report.CauseInfra, doc.Files[0].AttemptsDetail[0].Cause)
}

// A host that does not recover stops the run with the preflight's status:
// no further attempt or file, and the files left say why.
func TestRun_AHostNotReadyStopsTheRun(t *testing.T) {
	var out bytes.Buffer
	pf := &scriptedHost{ready: false}
	opts, _ := infraOptions(t, map[string]string{"a.py": shPass, "b.py": sh802, "c.py": shPass, "d.py": shPass}, &out, pf)
	opts.EnableRetry, opts.MaxAttempts, opts.ContinueOnError = true, 3, true
	var done []string
	opts.FileDone = func(i int, res *FileResult) { done = append(done, res.File) }
	rep := Run(context.Background(), []File{{"a.py", 1}, {"b.py", 1}, {"c.py", 1}, {"d.py", 1}}, opts)

	assert.True(t, rep.HostNotReady)
	assert.False(t, rep.Passed())
	assert.Equal(t, []string{"after b.py attempt 1"}, pf.asked)
	assert.Equal(t, []string{"a.py", "b.py"}, done)
	statuses := []Status{}
	for _, f := range rep.Files {
		statuses = append(statuses, f.Status)
	}
	assert.Equal(t, []Status{Pass, Fail, NotRun, NotRun}, statuses)
	assert.Len(t, rep.Files[1].Attempts, 1, "no retry on a host not ready")
	assert.Equal(t, "not run: host not ready", rep.Files[2].Reason())
	assert.Contains(t, out.String(), "[CI Infra] the host is not ready after b.py attempt 1: the run stops here; 2 files not run\n")

	doc := rep.Document("s", "cuda")
	assert.True(t, doc.HostNotReady)
	assert.Equal(t, "not run: host not ready", doc.Files[3].Reason)
}

// Without a preflight (--no-preflight, or no GPU tool) an infra failure
// is still retried with --enable-retry; a timeout whose output matched
// is an infra failure too, and is retried where a timeout is not.
func TestRun_InfraTimeoutIsRetriedWithoutAPreflight(t *testing.T) {
	var out bytes.Buffer
	opts, _ := infraOptions(t, map[string]string{"hang.py": sh802Hang}, &out, nil)
	opts.EnableRetry, opts.MaxAttempts, opts.TimeoutPerFile = true, 2, 1
	rep := Run(context.Background(), []File{{"hang.py", 0.5}}, opts)

	f := rep.Files[0]
	assert.Equal(t, Timeout, f.Status)
	require.Len(t, f.Attempts, 2)
	for _, a := range f.Attempts {
		assert.Equal(t, Timeout, a.Status)
		assert.Equal(t, report.CauseInfra, a.Cause)
	}
	assert.Contains(t, out.String(), "TIMEOUT: hang.py after 1 seconds\n\n[CI Infra] hang.py: cuda-802 matched: ")
	assert.Contains(t, out.String(), "  hang.py (timeout after 1s, infra: cuda-802)\n")
}

// Without a match nothing changes: the causes are test and timeout, no
// preflight is asked, and the output is byte for byte the one of a run
// without fingerprints; a passing attempt that printed a fingerprint's
// line has no cause and asks nothing either.
func TestRun_WithoutAMatchNothingIsAdded(t *testing.T) {
	testutil.SkipShort(t, "runs that wait out a hung file's timeout, with and without retries")
	files := map[string]string{"fail.py": shFail3, "hang.py": shHang, "warn.py": shPasses802, "flaky.py": shFlaky}
	plan := []File{{"warn.py", 1}, {"fail.py", 1}, {"flaky.py", 1}, {"hang.py", 0.5}}
	for _, retry := range []bool{false, true} {
		run := func(fps []Fingerprint) (*Results, string, []string, *scriptedHost) {
			var out bytes.Buffer
			pf := &scriptedHost{ready: true}
			opts, log := baseOptions(repo(t, files), &out)
			opts.Fingerprints, opts.Preflight = fps, pf.check
			opts.EnableRetry, opts.ContinueOnError, opts.TimeoutPerFile = retry, true, 1
			rep := Run(context.Background(), plan, opts)
			// Each run has a repository of its own, whose path is printed.
			return rep, strings.ReplaceAll(out.String(), opts.Root, "ROOT"), log.lines, pf
		}
		rep, with, logWith, pf := run(testFingerprints)
		_, without, logWithout, _ := run(nil)
		assert.Equal(t, without, with, "retry=%v", retry)
		assert.Equal(t, logWithout, logWith)
		assert.Empty(t, pf.asked, "no check but the one at the start")
		assert.Equal(t, report.Cause(""), rep.Files[0].Attempts[0].Cause, "warn.py passed")
		assert.Equal(t, report.CauseTest, rep.Files[1].Attempts[0].Cause)
		assert.Equal(t, report.CauseTest, rep.Files[2].Attempts[0].Cause)
		assert.Equal(t, report.CauseTimeout, rep.Files[3].Attempts[0].Cause)
	}
}

// Observing the output does not change it: with stdout and stderr one
// file, the lines the child alternates between them keep their order; as
// two files, each gets its own lines; a match on either counts.
func TestRun_ObservingKeepsTheOutputAsItWas(t *testing.T) {
	src := `for i in 1 2 3 4 5; do echo "out $i"; echo "err $i" >&2; done
echo 'OSError: [Errno 98] Address already in use' >&2
exit 1
`
	runTo := func(t *testing.T, fps []Fingerprint, outF, errF *os.File) *Results {
		var sink bytes.Buffer
		opts, _ := baseOptions(repo(t, map[string]string{"a.py": src}), &sink)
		opts.Out, opts.ErrOut, opts.Fingerprints = outF, errF, fps
		return Run(context.Background(), []File{{"a.py", 1}}, opts)
	}
	read := func(f *os.File) string {
		data, err := os.ReadFile(f.Name())
		require.NoError(t, err)
		return string(data)
	}
	childLines := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "out ") || strings.HasPrefix(l, "err ") || strings.HasPrefix(l, "OSError") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	t.Run("one file", func(t *testing.T) {
		f, err := os.CreateTemp(t.TempDir(), "log")
		require.NoError(t, err)
		defer f.Close()
		rep := runTo(t, testFingerprints, f, f)
		assert.Equal(t, "out 1\nerr 1\nout 2\nerr 2\nout 3\nerr 3\nout 4\nerr 4\nout 5\nerr 5\nOSError: [Errno 98] Address already in use", childLines(read(f)))
		assert.Equal(t, "port-in-use", rep.Files[0].Attempts[0].Fingerprint)
	})
	t.Run("two files", func(t *testing.T) {
		dir := t.TempDir()
		o, err := os.Create(filepath.Join(dir, "out"))
		require.NoError(t, err)
		defer o.Close()
		e, err := os.Create(filepath.Join(dir, "err"))
		require.NoError(t, err)
		defer e.Close()
		rep := runTo(t, testFingerprints, o, e)
		assert.Equal(t, "out 1\nout 2\nout 3\nout 4\nout 5", childLines(read(o)))
		assert.Equal(t, "err 1\nerr 2\nerr 3\nerr 4\nerr 5\nOSError: [Errno 98] Address already in use", childLines(read(e)))
		assert.Equal(t, "port-in-use", rep.Files[0].Attempts[0].Fingerprint)
	})
}
