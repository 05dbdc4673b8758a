package ghactions

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/textfmt"
)

// Log writes the log structure of a test run for GitHub Actions: a
// collapsible group per attempt and a one-line summary after each. It is
// silent unless the environment has GITHUB_ACTIONS=true exactly. Every line
// is one Write, so it lands in order with output children write straight
// to the same file.
type Log struct {
	w       io.Writer
	enabled bool
}

// NewLog returns a Log writing to w when getenv("GITHUB_ACTIONS") is "true".
func NewLog(w io.Writer, getenv func(string) string) *Log {
	return &Log{w: w, enabled: getenv("GITHUB_ACTIONS") == "true"}
}

// Enabled reports whether the Log writes anything.
func (l *Log) Enabled() bool { return l.enabled }

// Group opens a group: `::group::<title>` with the title escaped.
func (l *Log) Group(title string) {
	if l.enabled {
		io.WriteString(l.w, "::group::"+EscapeData(title)+"\n")
	}
}

// EndGroup closes the group.
func (l *Log) EndGroup() {
	if l.enabled {
		io.WriteString(l.w, "::endgroup::\n")
	}
}

// AttemptSummary writes `[i/n] <file>  <status>  elapsed=<s>s`, then
// ` exit=<code>`, ` timeout_after=<s>s` and ` retry_of=attempt=<a>` where
// they apply.
func (l *Log) AttemptSummary(i, n int, file, status string, elapsed time.Duration, exitCode, timeoutAfter *int, retryOf int) {
	if !l.enabled {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%d] %s  %s  elapsed=%ds", i, n, textfmt.OneLine(file), status, int(elapsed.Seconds()))
	if exitCode != nil {
		fmt.Fprintf(&b, " exit=%d", *exitCode)
	}
	if timeoutAfter != nil {
		fmt.Fprintf(&b, " timeout_after=%ds", *timeoutAfter)
	}
	if retryOf > 0 {
		fmt.Fprintf(&b, " retry_of=attempt=%d", retryOf)
	}
	b.WriteByte('\n')
	io.WriteString(l.w, b.String())
}

// Annotate writes the workflow command that shows message on file under
// title, at level LevelError or LevelWarning, every part escaped.
func (l *Log) Annotate(level, file, title, message string) {
	if l.enabled {
		io.WriteString(l.w, Annotation{Level: level, File: file, Title: title, Message: message}.String()+"\n")
	}
}
