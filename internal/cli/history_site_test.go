package cli

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// siteMonth is the month of history cost's acceptance (costMonth: a
// broken runner-x, the flaky test_flaky.py, test_drift_a.py and
// test_drift_b.py getting slower) with test_drift_b.py declared at 100 s
// instead of 120, so that both drifting files have a p90 past 1.25 ×
// their est_time: drift_a's passes reach 300 s against a 150 s limit,
// drift_b's 149.5 s against 125. It returns the directory and the rows
// an import of it adds.
func siteMonth(t *testing.T) (string, int) {
	t.Helper()
	dir, attempts, stops := costMonth(t)
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		r, err := report.Read(path)
		require.NoError(t, err)
		for i := range r.Files {
			if r.Files[i].File == "tests/e2e/test_drift_b.py" {
				r.Files[i].EstTime = 100
			}
		}
		data, err := report.Marshal(r)
		require.NoError(t, err)
		return os.WriteFile(path, data, 0o644)
	}))
	// A row per attempt, and one per job a preflight stopped.
	return dir, attempts + stops
}

// siteQuarantine is an overlay quarantining the flaky file until after
// the month, and another file with an entry that is over.
const siteQuarantine = `extends: default
quarantine:
  - file: tests/e2e/test_flaky.py
    reason: https://github.com/radixark/miles/issues/2500
    until: 2026-12-31
    suites: [stage-c-8-gpu-h100]
  - file: tests/e2e/test_real.py
    reason: fails every tenth night
    until: 2026-11-15
`

// figures are the page's figures by their data-fig key: the text of the
// element, or of each cell of a table row.
type figures map[string][]string

// pageFigures reads the figures of a page, as written or as a browser's
// DOM gives it back, with the standard library's XML reader in its HTML
// mode.
func pageFigures(t *testing.T, page string) figures {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(page))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	type open struct {
		key   string
		row   bool
		cells []string
		text  strings.Builder
	}
	var stack []*open
	out := figures{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			o := &open{}
			for _, a := range tok.Attr {
				if a.Name.Local == "data-fig" {
					o.key, o.row = a.Value, tok.Name.Local == "tr"
				}
			}
			if tok.Name.Local == "td" && len(stack) > 0 && stack[len(stack)-1].row {
				stack[len(stack)-1].cells = append(stack[len(stack)-1].cells, "")
			}
			stack = append(stack, o)
		case xml.CharData:
			for _, o := range stack {
				o.text.Write(tok)
				if o.row && len(o.cells) > 0 {
					o.cells[len(o.cells)-1] += string(tok)
				}
			}
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if o.key == "" {
				continue
			}
			if o.row {
				out[o.key] = o.cells
			} else {
				out[o.key] = []string{o.text.String()}
			}
		}
	}
	return out
}

// one is the figure of key, which must be there.
func (f figures) one(t *testing.T, key string) string {
	t.Helper()
	v, ok := f[key]
	require.True(t, ok, "no figure %q on the page", key)
	require.Len(t, v, 1, key)
	return v[0]
}

// row is the cells of the row key, which must be there.
func (f figures) row(t *testing.T, key string) []string {
	t.Helper()
	v, ok := f[key]
	require.True(t, ok, "no row %q on the page", key)
	return v
}

// askJSON asks a question with --json and decodes its answer into v.
func askJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	code, out, errOut := askAt(t, append(args, "--json")...)
	require.Equal(t, 0, code, errOut)
	require.NoError(t, json.Unmarshal([]byte(out), v))
}

// siteFlakyJSON and siteHostsJSON are the --json answers the page's
// figures are compared with (with timingsJSON).
type siteFlakyJSON struct {
	Files []struct {
		File          string  `json:"file"`
		Suite         string  `json:"suite"`
		Runs          int     `json:"runs"`
		Failures      int     `json:"failures"`
		PassedOnRetry int     `json:"passed_on_retry"`
		SameCommit    int     `json:"passed_same_commit"`
		Rate          float64 `json:"rate"`
		OnlyOn        string  `json:"only_on"`
	} `json:"files"`
	Clean int `json:"clean"`
}

type siteHostsJSON struct {
	Hosts []struct {
		Host         string   `json:"host"`
		Jobs         int      `json:"jobs"`
		FilesRun     int      `json:"files_run"`
		Passed       int      `json:"passed"`
		Failed       int      `json:"failed"`
		Infra        int      `json:"infra"`
		NotReady     int      `json:"not_ready"`
		Contradicted int      `json:"contradicted"`
		Suspect      bool     `json:"suspect"`
		Evidence     []string `json:"evidence"`
	} `json:"hosts"`
	Suspects []string `json:"suspects"`
}

// checkPageAgainstJSON requires every figure of the page's tables to be
// the one the matching `history … --json` gives over the history at
// from (the page's own arguments: filters and --config).
func checkPageAgainstJSON(t *testing.T, page string, args ...string) figures {
	t.Helper()
	figs := pageFigures(t, page)

	var cost costAnswer
	askJSON(t, &cost, append([]string{"history", "cost"}, args...)...)
	for _, k := range []string{"total", "useful", "wasted"} {
		assert.Equal(t, string(cost.GPUHours[k]), figs.one(t, "cost.gpu_hours."+k), k)
	}
	for _, k := range append(slices.Clone(usefulNames), wastedNames...) {
		// The table shows GPU-hours; the JSON's GPU-seconds are exact.
		ms := jsonMillis(t, cost.GPUSeconds[k])
		assert.Equal(t, view.GPUHours(ms), figs.one(t, "cost.gpu_seconds."+k), k)
	}
	for _, s := range cost.Suites {
		r := figs.row(t, "cost.suite."+textfmt.Cell(s.Suite)+"."+s.Backend)
		assert.Equal(t, []string{s.Suite, s.Backend, r[2], fmt.Sprint(s.Jobs), string(s.GPUHours["useful"]), string(s.GPUHours["wasted"]),
			string(s.GPUHours["total"]), r[7]}, r, s.Suite)
		assert.True(t, strings.HasPrefix(r[2], fmt.Sprint(s.GPUs)), "%s: %s GPUs", s.Suite, r[2])
	}
	for _, c := range cost.Cadences {
		r := figs.row(t, "cost.cadence."+c.Cadence)
		assert.Equal(t, []string{c.Cadence, fmt.Sprint(c.Jobs), string(c.GPUHours["useful"]), string(c.GPUHours["wasted"]),
			string(c.GPUHours["total"]), r[5]}, r)
	}
	for _, f := range cost.Files {
		r := figs.row(t, "cost.file."+textfmt.Cell(f.File)+"."+textfmt.Cell(f.Suite))
		assert.Equal(t, string(f.GPUHours["wasted"]), r[2], f.File)
	}

	var tim timingsJSON
	askJSON(t, &tim, append([]string{"history", "timings"}, args...)...)
	for _, f := range tim.Files {
		for _, table := range []string{"timings.", "drift."} {
			r, ok := figs[table+textfmt.Cell(f.File)+"."+textfmt.Cell(f.Suite)]
			if !ok {
				continue // not among the slowest, or not drifted
			}
			n := len(r)
			assert.Equal(t, []string{fmt.Sprint(f.Runs), secs3(f.Median), secs3(f.P90), secs3(f.Max)}, []string{r[2], r[n-3], r[n-2], r[n-1]}, f.File)
		}
	}

	var flaky siteFlakyJSON
	askJSON(t, &flaky, append([]string{"history", "flaky"}, args...)...)
	for _, f := range flaky.Files {
		r := figs.row(t, "flaky."+textfmt.Cell(f.File)+"."+textfmt.Cell(f.Suite))
		only := f.OnlyOn
		if only == "" {
			only = "-"
		}
		assert.Equal(t, []string{fmt.Sprint(f.Runs), fmt.Sprint(f.Failures), fmt.Sprint(f.PassedOnRetry), fmt.Sprint(f.SameCommit),
			view.Percent(f.Rate), only}, r[2:8], f.File)
	}

	var hosts siteHostsJSON
	askJSON(t, &hosts, append([]string{"history", "hosts"}, args...)...)
	for _, h := range hosts.Hosts {
		r := figs.row(t, "hosts."+textfmt.Cell(h.Host))
		assert.Equal(t, []string{fmt.Sprint(h.Jobs), fmt.Sprint(h.FilesRun), fmt.Sprint(h.Passed), fmt.Sprint(h.Failed),
			fmt.Sprint(h.Infra + h.NotReady), fmt.Sprint(h.Contradicted)}, r[1:], h.Host)
	}
	return figs
}

// jsonMillis reads GPU-seconds to the millisecond as whole milliseconds.
func jsonMillis(t *testing.T, n json.Number) int64 {
	t.Helper()
	var whole, frac int64
	_, err := fmt.Sscanf(string(n), "%d.%03d", &whole, &frac)
	require.NoError(t, err, n)
	return whole*1000 + frac
}

// The acceptance of issue 38's page: over the month, from a directory
// and from two databases (one imported, one written in another order),
// the same bytes; the broken host's row all infra, the flaky file with
// its quarantine, the two drifting files with the command that fixes
// them; every figure the matching --json answer's.
func TestHistorySite_AMonthOfNightliesIsOnePageFromBothStores(t *testing.T) {
	testutil.SkipShort(t, "a month of nightlies in a directory and two databases")
	dir, rows := siteMonth(t)
	urls := historyStores(t, dir, fmt.Sprintf("history import: %d rows added, 0 already present, from 97 reports\n", rows))
	cfg := testutil.WriteFile(t, t.TempDir(), "quarantine.yaml", siteQuarantine)

	code, page := askBoth(t, dir, urls, "--config", cfg, "history", "site")
	require.Equal(t, 0, code)
	out := t.TempDir()
	code, stdout, errOut := askAt(t, "--config", cfg, "history", "site", "--from", urls[0], "-o", out)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, stdout)
	assert.Contains(t, errOut, "wrote "+filepath.Join(out, "index.html"))
	assert.NotContains(t, errOut, "postgres", "the URL is never printed")
	written, err := os.ReadFile(filepath.Join(out, "index.html"))
	require.NoError(t, err)
	assert.Equal(t, page, string(written), "-o writes the page stdout gets")
	if dst := os.Getenv("MILES_CI_SITE_OUT"); dst != "" {
		require.NoError(t, os.WriteFile(dst, written, 0o644))
	}

	figs := checkPageAgainstJSON(t, page, "--config", cfg, "--from", dir)

	// runner-x's row is infra every day it ran; the others never are.
	days := 0
	for k, v := range figs {
		host, ok := strings.CutPrefix(k, "hosts.day.")
		if !ok {
			continue
		}
		host = host[len("2026-11-01."):]
		if host == "runner-x" {
			days++
			assert.Contains(t, v[0], "runner-x", k)
		}
	}
	assert.Equal(t, 30, days, "runner-x ran one shard every night")
	assert.Regexp(t, `<rect class="infra"[^>]*data-fig="hosts\.day\.2026-11-02\.runner-x"`, page)
	assert.NotRegexp(t, `<rect class="infra"[^>]*data-fig="hosts\.day\.[0-9-]+\.runner-[ab]"`, page)
	assert.Contains(t, page, `<b class="bad">runner-x</b>`, "named suspect")
	// The verdict is history hosts', word for word.
	_, hosts, _ := askAt(t, "history", "hosts", "--from", dir)
	suspect := regexp.MustCompile(`<li><b class="bad">runner-x</b>: ([^<]*)</li>`).FindStringSubmatch(page)
	require.NotNil(t, suspect)
	assert.Contains(t, hosts, "\n  runner-x: "+html.UnescapeString(suspect[1])+"\n")

	// The flaky file, with its quarantine; the expired entry says so.
	flaky := figs.row(t, "flaky.tests/e2e/test_flaky.py."+costSuite)
	assert.Equal(t, "until 2026-12-31", flaky[8])
	assert.Contains(t, page, "<td class=\"bad\">expired</td>")

	// The two drifting files, with the command that fixes them.
	for _, f := range []string{"test_drift_a.py", "test_drift_b.py"} {
		assert.Regexp(t, `<tr data-fig="drift\.tests/e2e/`+f+`\.`+costSuite+`"><td><code>tests/e2e/`+f, page)
	}
	drifts := strings.Count(page[strings.Index(page, `<table id="drifts"`):strings.Index(page, `<pre id="fix-command">`)], "<tr data-fig=")
	assert.Equal(t, 2, drifts, "drift_a and drift_b, no other file")
	assert.Contains(t, page, `<pre id="fix-command"><code>miles-ci timings apply --from HISTORY --quantile 0.9 --threshold 25%</code></pre>`)
	b := figs.row(t, "drift.tests/e2e/test_drift_b.py."+costSuite)
	assert.Equal(t, []string{"100.000", "125.000"}, b[3:5], "est_time and the limit it earns")

	// The last nightly's three shards, failures marked.
	assert.Contains(t, page, "stage-c-8-gpu-h100</code><span>cuda · run 7029 attempt 1")
	assert.Regexp(t, `<rect class="timeout att"[^>]*data-fig="timeline\.stage-c-8-gpu-h100\.1\.tests/e2e/test_drift_a\.py\.1"`, page)
}

// Names from the history are shown inert: no markup, quote or control
// character of a file, host or suite name reaches the page as itself.
func TestHistorySite_HostileNamesAreInert(t *testing.T) {
	dir := t.TempDir()
	hostile := []string{`tests/<script>alert(1)</script>.py`, `tests/"quoted" 'single' &amp;.py`, "tests/\x1b[2J\x1b]0;t\x07.py", forgedCommand}
	forgedJob(t, dir, 0, `<img src=x onerror=alert(1)>`, "h\x1b[31m", "1", `<b>suite</b>"`, failTwice, hostile)
	forgedJob(t, dir, 1, "runner-b", "ct", "2", `<b>suite</b>"`, passAtOnce, hostile)
	code, page, errOut := askAt(t, "history", "site", "--from", dir)
	require.Equal(t, 0, code, errOut)
	assert.NotContains(t, page, "<script")
	assert.NotContains(t, page, "<img")
	assert.NotContains(t, page, "<b>suite")
	assert.NotContains(t, page, "\x1b")
	assert.NotContains(t, page, "\x07")
	assert.Contains(t, page, "tests/&lt;script&gt;alert(1)&lt;/script&gt;.py")
	assert.Contains(t, page, `tests/&#34;quoted&#34; &#39;single&#39; &amp;amp;.py`)
	assert.Contains(t, page, `tests/\x1b[2J\x1b]0;t\x07.py`)
	assert.Contains(t, page, "&lt;img src=x onerror=alert(1)&gt;")
	// The figures still read back, names and all.
	figs := pageFigures(t, page)
	assert.Contains(t, figs, "flaky."+textfmt.Cell(hostile[0])+"."+`<b>suite</b>"`)
}

// A history past every bound of the page (100 nights, 200 hosts, 250
// files of which 50 flaky) makes a page of bounded size: the tables list
// their top rows and say how many they left out, the charts the latest
// 60 days. BenchmarkHistorySite_TenThousandReports measures 10,000.
func TestHistorySite_ThePageIsBoundedWhateverTheHistory(t *testing.T) {
	testutil.SkipShort(t, "1,000 reports written and read")
	dir := t.TempDir()
	writeManyReports(t, dir, 1_000)
	code, page, errOut := askAt(t, "history", "site", "--from", dir)
	require.Equal(t, 0, code, errOut)
	assert.Less(t, len(page), 2<<20, "%d bytes", len(page))
	for _, note := range []string{"Not shown: 25 more files (the highest rates are listed)", "Not shown: 170 more hosts (the suspect hosts first",
		"Not shown: 235 more files (the slowest by p90 are listed)", "The charts draw the 60 days from 2026-10-02 to 2026-11-30"} {
		assert.True(t, strings.Contains(page, note), "the page says %q", note)
	}
	t.Logf("1,000 reports: a page of %d bytes", len(page))
}

// The page of 10,000 reports (250,000 attempts): its size, which must be
// under 2 MB, and the time to build it (help performance).
func BenchmarkHistorySite_TenThousandReports(b *testing.B) {
	dir := b.TempDir()
	writeManyReports(b, dir, 10_000)
	for b.Loop() {
		f, out, errOut := execFactory(b.TempDir(), nil)
		f.Now = func() time.Time { return monthNow }
		if code := Main([]string{"--root", f.Root, "history", "site", "--from", dir}, f); code != 0 {
			b.Fatalf("exit %d: %s", code, errOut)
		}
		if out.Len() >= 2<<20 {
			b.Fatalf("a page of %d bytes", out.Len())
		}
		b.ReportMetric(float64(out.Len()), "page-bytes")
	}
}

// writeManyReports writes n nightly jobs' reports over 100 nights, n/100
// jobs a night (suites of 4 shards), on 200 hosts; 25 files a job, every
// fifth flaky.
func writeManyReports(t testing.TB, dir string, n int) {
	t.Helper()
	for i := range n {
		night, job := i%100, i/100
		started := monthStart.AddDate(0, 0, night-70).Add(0)
		r := &report.Report{Suite: fmt.Sprintf("stage-%02d-8-gpu", job/4), Backend: "cuda", Cadence: "nightly",
			Partition: &report.Partition{ID: job % 4, Size: 4}, Started: report.Stamp(started),
			Host: &report.Host{Runner: fmt.Sprintf("runner-%03d", (i*7)%200), Hostname: fmt.Sprintf("c%d", i), Repository: "o/r",
				RunID: fmt.Sprint(100000 + night), RunAttempt: "1", Workflow: "Nightly", Event: "schedule", Job: "gpu", SHA: fmt.Sprintf("%07x", night)}}
		for f := range 25 {
			file := report.File{File: fmt.Sprintf("tests/e2e/suite_%02d/test_%02d_%02d.py", job/4, job%4, f), EstTime: 60}
			sts := []report.Status{report.Pass}
			if f%5 == 0 && (i+f)%3 == 0 {
				sts = []report.Status{report.Fail, report.Pass}
			}
			for a, st := range sts {
				att := report.Attempt{Attempt: a + 1, Status: st, Elapsed: 10 + float64((i+f)%50), Timeout: 1800}
				if st != report.Pass {
					att.Cause, att.Reason = report.CauseTest, "exit 1"
				}
				file.AttemptsDetail = append(file.AttemptsDetail, att)
				file.Status, file.Attempts, file.Elapsed = st, a+1, att.Elapsed
			}
			r.Files = append(r.Files, file)
		}
		r.Finish()
		data, err := report.Marshal(r)
		require.NoError(t, err)
		sub := filepath.Join(dir, fmt.Sprintf("n%03d", night))
		require.NoError(t, os.MkdirAll(sub, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sub, fmt.Sprintf("job-%03d.json", job)), data, 0o644))
	}
}
