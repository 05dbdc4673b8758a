package ghactions

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendOutputs_AppendsOneLinePerPair(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.WriteFile(path, []byte("earlier=1\n"), 0o600))
	require.NoError(t, AppendOutputs(path, []OutputPair{{"cadence", "regular"}, {"raw_labels", ""}, {"x", "a=b"}}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "earlier=1\ncadence=regular\nraw_labels=\nx=a=b\n", string(got))
}

// An earlier step output written without its line break (printf 'x=1')
// does not swallow the first of ours as part of its value.
func TestAppendOutputs_StartOnANewLineAfterAnUnfinishedOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.WriteFile(path, []byte("done=yes\nearlier=1"), 0o600))
	require.NoError(t, AppendOutputs(path, []OutputPair{{"cadence", "regular"}}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "done=yes\nearlier=1\ncadence=regular\n", string(got))
}

func TestAppendStepSummary_StartsOnANewLine(t *testing.T) {
	for _, tt := range []struct{ before, want string }{
		{"", "### x\n"},
		{"note\n", "note\n### x\n"},
		{"note", "note\n### x\n"},
	} {
		path := filepath.Join(t.TempDir(), "summary.md")
		if tt.before != "" {
			require.NoError(t, os.WriteFile(path, []byte(tt.before), 0o600))
		}
		require.NoError(t, AppendStepSummary(path, "### x\n"))
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, tt.want, string(got), "after %q", tt.before)
	}
}

func TestAppendOutputs_CreatesAMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	require.NoError(t, AppendOutputs(path, []OutputPair{{"a", "1"}}))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a=1\n", string(got))
}

func TestAppendOutputs_RefusesLineBreaksAndWritesNothing(t *testing.T) {
	tests := []struct {
		name string
		pair OutputPair
	}{
		{"LF in a value", OutputPair{"raw_labels", "run-ci-a\nskipped_stages=[]"}},
		{"CR in a value", OutputPair{"raw_labels", "a\rb"}},
		{"LF in a name", OutputPair{"a\nb", "1"}},
		{"'=' in a name", OutputPair{"a=b", "1"}},
		{"empty name", OutputPair{"", "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out")
			require.NoError(t, os.WriteFile(path, []byte("earlier=1\n"), 0o600))
			err := AppendOutputs(path, []OutputPair{{"cadence", "regular"}, tt.pair})
			var oe *OutputError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tt.pair.Name, oe.Name)
			got, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.Equal(t, "earlier=1\n", string(got), "a refused output leaves the file as it was")
		})
	}
}

func TestAppendOutputs_ReportsAnUnwritablePath(t *testing.T) {
	err := AppendOutputs(filepath.Join(t.TempDir(), "missing-dir", "out"), []OutputPair{{"a", "1"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "open GITHUB_OUTPUT")
}

// A write that stops part-way, as on a full disk, leaves the file as it
// was. A file size limit (RLIMIT_FSIZE) makes a real write stop after the
// first bytes; it is set in a child process, the test binary itself running
// only TestAppendOutputs_UnderAFileSizeLimit, so this process keeps its
// own limits.
func TestAppendOutputs_APartialWriteLeavesTheFileAsItWas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.WriteFile(path, []byte("earlier=1\n"), 0o600))
	cmd := exec.Command(os.Args[0], "-test.run=^TestAppendOutputs_UnderAFileSizeLimit$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "MILES_CI_FSIZE_OUTPUT="+path)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "write GITHUB_OUTPUT", "the write must fail")
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "earlier=1\n", string(got))
}

func TestAppendOutputs_UnderAFileSizeLimit(t *testing.T) {
	path := os.Getenv("MILES_CI_FSIZE_OUTPUT")
	if path == "" {
		t.Skip("the helper of TestAppendOutputs_APartialWriteLeavesTheFileAsItWas")
	}
	// Past the limit a write fails with EFBIG instead of killing us.
	signal.Ignore(syscall.SIGXFSZ)
	lim := syscall.Rlimit{Cur: 16, Max: 16}
	require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim))
	err := AppendOutputs(path, []OutputPair{{"cadence", "regular"}, {"raw_labels", ""}})
	require.Error(t, err)
	t.Log(err)
}

func TestStepOutputs_FileWhenSetStdoutWhenUnsetErrorWhenEmpty(t *testing.T) {
	pairs := []OutputPair{{Name: "cadence", Value: "regular"}}
	text, err := StepOutputs("", false, pairs)
	require.NoError(t, err)
	assert.Equal(t, "cadence=regular\n", text, "a developer's terminal gets the lines")

	path := filepath.Join(t.TempDir(), "out")
	text, err = StepOutputs(path, true, pairs)
	require.NoError(t, err)
	assert.Empty(t, text)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "cadence=regular\n", string(data))

	_, err = StepOutputs("", true, pairs)
	assert.EqualError(t, err, "GITHUB_OUTPUT is set but empty; unset it to print the outputs on stdout")
}

// A FIFO that nobody reads, as GITHUB_OUTPUT or GITHUB_STEP_SUMMARY, is an
// error at once, not a step that waits for a reader until the job times out.
func TestAppend_AFIFOWithoutAReaderIsAnErrorAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "out")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for name, write := range map[string]func() error{
		"outputs": func() error { return AppendOutputs(fifo, []OutputPair{{Name: "a", Value: "b"}}) },
		"summary": func() error { return AppendStepSummary(fifo, "# x\n") },
	} {
		done := make(chan error, 1)
		go func() { done <- write() }()
		select {
		case err := <-done:
			assert.Error(t, err, name)
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: waited for a reader", name)
		}
	}
}
