package ghactions

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func intp(i int) *int { return &i }

func TestLog_WritesNothingUnlessGitHubActionsIsTrue(t *testing.T) {
	for _, v := range []string{"", "1", "True", "true "} {
		var out bytes.Buffer
		l := NewLog(&out, func(string) string { return v })
		l.Group("x")
		l.EndGroup()
		l.AttemptSummary(1, 1, "x", "PASS", time.Second, nil, nil, 0)
		l.Annotate(LevelError, "x", "t", "m")
		assert.Empty(t, out.String(), "GITHUB_ACTIONS=%q", v)
	}
}

func TestLog_Lines(t *testing.T) {
	tests := []struct {
		name string
		emit func(l *Log)
		want string
	}{
		{"group title escaped, percent first", func(l *Log) { l.Group("a%0A\r\nb  (1/2 est=3s attempt=1)") },
			"::group::a%250A%0D%0Ab  (1/2 est=3s attempt=1)\n"},
		{"endgroup", func(l *Log) { l.EndGroup() }, "::endgroup::\n"},
		{"pass", func(l *Log) { l.AttemptSummary(2, 3, "t.py", "PASS", 2900*time.Millisecond, nil, nil, 0) },
			"[2/3] t.py  PASS  elapsed=2s\n"},
		{"fail with exit code and retry", func(l *Log) { l.AttemptSummary(1, 1, "t.py", "FAIL", 0, intp(-9), nil, 1) },
			"[1/1] t.py  FAIL  elapsed=0s exit=-9 retry_of=attempt=1\n"},
		{"timeout", func(l *Log) { l.AttemptSummary(1, 1, "t.py", "TIMEOUT", 2*time.Second, nil, intp(2), 0) },
			"[1/1] t.py  TIMEOUT  elapsed=2s timeout_after=2s\n"},
		{"line breaks in the file name are spelled out", func(l *Log) { l.AttemptSummary(1, 1, "a\r\nb%", "PASS", 0, nil, nil, 0) },
			"[1/1] a\\r\\nb%  PASS  elapsed=0s\n"},
		{"an annotation escapes what a test printed", func(l *Log) {
			l.Annotate(LevelWarning, "t.py", "Infra failure on gpu-7 (h-7)", "attempt 1 failed: matched: Error 802\n::error::forged, 100%")
		},
			"::warning file=t.py,title=Infra failure on gpu-7 (h-7)::attempt 1 failed: matched: Error 802%0A::error::forged, 100%25\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tt.emit(NewLog(&out, func(k string) string { return map[string]string{"GITHUB_ACTIONS": "true"}[k] }))
			assert.Equal(t, tt.want, out.String())
		})
	}
}

// A file name shows its line breaks as `\n`, as every log line shows them
// (the backslash itself escaped in Markdown text), and a `|` escaped to
// stay in its cell.
func TestRunSummary_TableEscapesFileNames(t *testing.T) {
	md := RunSummary("CUDA s", []SummaryRow{
		{File: "a|b\nc.py", Status: "FAIL", Attempts: 2, Elapsed: 3.4, EstTime: 10, Detail: "exit code 1", Retried: "failed"},
		{File: "ok.py", Status: "PASS", Attempts: 2, Elapsed: 1, EstTime: 1, Retried: "passed"},
		{File: "later.py", Status: "NOT RUN", EstTime: 5, Detail: "not run: an earlier file failed"},
	}, MissingShards{})
	assert.Equal(t, "### CUDA s: 1/3 passed\n\n"+
		"| File | Status | Attempts | Elapsed / est. | Exit code or timeout |\n"+
		"|---|---|---:|---:|---|\n"+
		"| `a\\|b\\nc.py` | FAIL | 2 | 3s / 10s | exit code 1 |\n"+
		"| `ok.py` | PASS | 2 | 1s / 1s |  |\n"+
		"| `later.py` | NOT RUN | 0 | 0s / 5s | not run: an earlier file failed |\n"+
		"\n**Retried 2 test(s):**\n- Passed on retry: ok.py\n- Still failed: a\\|b\\\\nc.py\n\n", md)
}
