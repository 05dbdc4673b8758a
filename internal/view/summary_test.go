package view

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/suite"
)

func TestStepSummary_FlakyStatusAndList(t *testing.T) {
	zero, one := 0, 1
	r := &report.Report{Suite: "stage-x", Backend: "cuda", Elapsed: 1, Files: []report.File{
		{File: "flaky.py", Status: report.Pass, Attempts: 2, Elapsed: 8, EstTime: 10, ExitCode: &zero, Reason: "",
			AttemptsDetail: []report.Attempt{
				{Attempt: 1, Status: report.Fail, Elapsed: 5, ExitCode: &one, Reason: "exit code 1"},
				{Attempt: 2, Status: report.Pass, Elapsed: 3, ExitCode: &zero},
			}},
		{File: "ok.py", Status: report.Pass, Attempts: 1, Elapsed: 2, EstTime: 10, ExitCode: &zero,
			AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Pass, Elapsed: 2, ExitCode: &zero}}},
	}}
	r.Finish()
	assert.Equal(t, "### CUDA stage-x: 2/2 passed (1 flaky)\n\n"+
		"| File | Status | Attempts | Elapsed / est. | Exit code or timeout |\n"+
		"|---|---|---:|---:|---|\n"+
		"| `flaky.py` | FLAKY (passed on attempt 2) | 2 | 8s / 10s |  |\n"+
		"| `ok.py` | PASS | 1 | 2s / 10s |  |\n"+
		"\n**Flaky 1 test(s)** (failed, then passed on a later attempt):\n"+
		"- `flaky.py`: passed on attempt 2; attempt 1: exit code 1\n"+
		"\n**Retried 1 test(s):**\n- Passed on retry: flaky.py\n\n", StepSummary(r))
}

// hostile are texts a pull request or a forged report can put where a
// step summary shows a file name, a suite, a reason or a runner label.
var hostile = []string{
	"tests/e2e/**ALL_PASSED**<b>x</b>[ok](https:evil.example).py",
	"<img src=x onerror=alert(1)>",
	"<details open><summary>all green</summary>",
	"[x](https://evil.example)",
	"![i](https://evil.example/i.png)",
	"a|b|c",
	"a`b``c",
	"www.evil.example",
	"line\n| forged | row |\n<script>",
	"<!-- hide the rest",
}

// assertInert checks Markdown a step summary writer produced: outside code
// spans (whose text shows as it is), no HTML but the <br> of a line break
// and no link syntax or URL; and every table row with its columns' count
// of cell delimiters.
func assertInert(t *testing.T, md string, columns int) {
	t.Helper()
	for _, line := range strings.Split(md, "\n") {
		text := withoutCodeSpans(line)
		assert.NotContains(t, strings.ReplaceAll(text, "<br>", ""), "<", "raw HTML in %q", line)
		for _, link := range []string{"[", "](", "://", "www."} {
			for i := strings.Index(text, link); i >= 0; i = nextIndex(text, link, i) {
				escaped := i > 0 && text[i-1] == '\\'
				if link == "www." {
					escaped = strings.HasPrefix(text[i:], `www\.`)
				}
				assert.True(t, escaped, "link syntax %q in %q", link, line)
			}
		}
		if strings.HasPrefix(line, "|") {
			assert.Equal(t, columns+1, unescapedPipes(line), "a broken table row: %q", line)
		}
	}
}

func nextIndex(s, sub string, i int) int {
	j := strings.Index(s[i+1:], sub)
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// withoutCodeSpans drops the code spans of a line (a backtick run, up to
// the next run of the same length), whose text Markdown shows as it is.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' || i > 0 && line[i-1] == '\\' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		fence := strings.Repeat("`", n)
		end := -1
		for j := i + n; j < len(line); {
			k := strings.Index(line[j:], fence)
			if k < 0 {
				break
			}
			k += j
			if (k+n == len(line) || line[k+n] != '`') && (line[k-1] != '`') {
				end = k
				break
			}
			j = k + 1
		}
		if end < 0 {
			b.WriteString(fence)
			i += n
			continue
		}
		i = end + n
	}
	return b.String()
}

// unescapedPipes counts the '|' of a table row that GitHub reads as cell
// delimiters: those without a backslash before them.
func unescapedPipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '|' && (i == 0 || line[i-1] != '\\') {
			n++
		}
	}
	return n
}

func TestStepSummary_HostileTextIsInert(t *testing.T) {
	zero, one := 0, 1
	for _, h := range hostile {
		t.Run(h, func(t *testing.T) {
			r := &report.Report{Suite: h, Backend: "cuda", Host: &report.Host{Runner: h, Hostname: h + "x"}, HostNotReady: true, Files: []report.File{
				{File: h, Status: report.Fail, Attempts: 2, EstTime: 10, ExitCode: &one, Reason: h, Cause: report.CauseInfra,
					AttemptsDetail: []report.Attempt{
						{Attempt: 1, Status: report.Fail, ExitCode: &one, Reason: h},
						{Attempt: 2, Status: report.Fail, ExitCode: &one, Reason: h, Cause: report.CauseInfra, CauseLine: h, Fingerprint: h}}},
				{File: h + "2", Status: report.Pass, Attempts: 2, EstTime: 10, ExitCode: &zero,
					AttemptsDetail: []report.Attempt{
						{Attempt: 1, Status: report.Fail, ExitCode: &one, Reason: h},
						{Attempt: 2, Status: report.Pass, ExitCode: &zero}}},
			}}
			r.Finish()
			md := StepSummary(r)
			assertInert(t, md, 5)
			assert.Contains(t, md, "**Flaky 1 test(s)**", "the flaky list is there")
			assert.Contains(t, md, "- Still failed: ", "the retry list is there")
			assert.Contains(t, md, "**Infra failures on ", "the infra list is there")
		})
	}
}

func TestShardMatrixMarkdown_HostileTextIsInert(t *testing.T) {
	for _, h := range hostile {
		t.Run(h, func(t *testing.T) {
			md := ShardMatrixMarkdown([]suite.StageMatrix{{
				Suite:  config.Suite{Name: h, Backend: config.CUDA, RunsOn: []string{h, "8gpu"}, Shards: 1},
				Matrix: suite.Full(1)}}, nil)
			assertInert(t, md, 5)
		})
	}
}

// Ordinary names come out as they did: the retry list as the Python runner
// writes it, a file and a stage as code.
func TestStepSummaryAndShardMatrix_OrdinaryNamesUnchanged(t *testing.T) {
	one := 1
	r := &report.Report{Suite: "stage-c-8-gpu-h100", Backend: "cuda", Files: []report.File{
		{File: "tests/e2e/short/test_dumper.py", Status: report.Timeout, Attempts: 2, EstTime: 60, Elapsed: 150, Reason: "timeout after 75s",
			AttemptsDetail: []report.Attempt{{Attempt: 1, Status: report.Fail, ExitCode: &one, Reason: "exit code 1"}, {Attempt: 2, Status: report.Timeout, Reason: "timeout after 75s"}}},
	}}
	r.Finish()
	assert.Equal(t, "### CUDA stage-c-8-gpu-h100: 0/1 passed\n\n"+
		"| File | Status | Attempts | Elapsed / est. | Exit code or timeout |\n"+
		"|---|---|---:|---:|---|\n"+
		"| `tests/e2e/short/test_dumper.py` | TIMEOUT | 2 | 150s / 60s | timeout after 75s |\n"+
		"\n**Retried 1 test(s):**\n- Still failed: tests/e2e/short/test_dumper.py\n\n", StepSummary(r))
	md := ShardMatrixMarkdown([]suite.StageMatrix{{
		Suite:  config.Suite{Name: "stage-c-8-gpu-h100", Backend: config.CUDA, RunsOn: []string{"h100", "8gpu"}, Shards: 2},
		Matrix: suite.Full(2)}}, nil)
	assert.Contains(t, md, "| `stage-c-8-gpu-h100` | h100,8gpu | 2 / 2 | - | - |\n")
}

// A run with an infra failure names its cause in the table and the flaky
// list, then lists the infra failures under the host they happened on,
// and names the command that finds the host's other runs.
func TestStepSummary_InfraFailuresNameTheHost(t *testing.T) {
	zero, one := 0, 1
	const line = "RuntimeError: ... Error 802: system not yet initialized"
	infra := report.Attempt{Attempt: 1, Status: report.Fail, Elapsed: 5, ExitCode: &one, Reason: "exit code 1",
		Cause: report.CauseInfra, CauseLine: line, Fingerprint: "cuda-802"}
	r := &report.Report{Suite: "stage-x", Backend: "cuda", Elapsed: 1, HostNotReady: true,
		Host: &report.Host{Runner: "h100-runner-7", Hostname: "novita-host2"}, Files: []report.File{
			{File: "flaky.py", Status: report.Pass, Attempts: 2, Elapsed: 8, EstTime: 10, ExitCode: &zero,
				AttemptsDetail: []report.Attempt{infra, {Attempt: 2, Status: report.Pass, Elapsed: 3, ExitCode: &zero}}},
			{File: "broken.py", Status: report.Fail, Attempts: 1, Elapsed: 5, EstTime: 10, ExitCode: &one,
				Reason: "exit code 1", Cause: report.CauseInfra, AttemptsDetail: []report.Attempt{infra}},
			{File: "later.py", Status: report.NotRun, EstTime: 10, Reason: "not run: host not ready"},
		}}
	r.Finish()
	assert.Equal(t, "### CUDA stage-x on h100-runner-7 (novita-host2): 1/3 passed (1 flaky)\n\n"+
		"**Host not ready:** the GPU preflight stopped the run, so the tests not run here say nothing about the code; another runner may pass\n\n"+
		"| File | Status | Attempts | Elapsed / est. | Exit code or timeout |\n"+
		"|---|---|---:|---:|---|\n"+
		"| `flaky.py` | FLAKY (passed on attempt 2) | 2 | 8s / 10s |  |\n"+
		"| `broken.py` | FAIL | 1 | 5s / 10s | exit code 1, infra: cuda-802 |\n"+
		"| `later.py` | NOT RUN | 0 | 0s / 10s | not run: host not ready |\n"+
		"\n**Flaky 1 test(s)** (failed, then passed on a later attempt):\n"+
		"- `flaky.py`: passed on attempt 2; attempt 1: exit code 1, infra: cuda-802\n"+
		"\n**Retried 1 test(s):**\n- Passed on retry: flaky.py\n\n"+
		"**Infra failures on h100-runner-7 (novita-host2):** an output line matched an infra fingerprint: the host is to blame, not the code.\n"+
		"- `flaky.py` attempt 1: cuda-802 matched `"+line+"`\n"+
		"- `broken.py` attempt 1: cuda-802 matched `"+line+"`\n"+
		""+
		"\nTo see this host's other runs: `miles-ci report hosts DIR`, DIR holding the JSON reports.\n\n", StepSummary(r))
}

// A run the first preflight stopped ran nothing and matched no
// fingerprint: its summary says the host was not ready, never that an
// output line matched.
func TestStepSummary_AHostNotReadyAtTheStartClaimsNoInfraLine(t *testing.T) {
	r := &report.Report{Suite: "stage-x", Backend: "cuda", HostNotReady: true,
		Host: &report.Host{Runner: "h100-runner-7"}, Files: []report.File{
			{File: "a.py", Status: report.NotRun, EstTime: 10, Reason: "not run: host not ready"}}}
	r.Finish()
	got := StepSummary(r)
	assert.Contains(t, got, "**Host not ready:**")
	assert.NotContains(t, got, "matched an infra fingerprint")
	assert.Contains(t, got, "`miles-ci report hosts DIR`")
}
