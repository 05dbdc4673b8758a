package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/testutil"
)

// siteDocsHistory is the month of the page's acceptance (siteMonth) kept
// in testdata, compact, for the docs' screenshot and the browser test;
// siteDocsConfig quarantines two of its files (siteQuarantine).
const (
	siteDocsHistory = "../../testdata/docs/history-site"
	siteDocsConfig  = "../../testdata/docs/history-site.yaml"
	// siteScreenshot is the screenshot help history links.
	siteScreenshot = "../docs/topics/history-site.png"
)

// The month in testdata is siteMonth's, byte for byte (compact JSON):
// UPDATE_GOLDEN=1 writes it again.
func TestHistorySite_TheDocsHistoryIsTheMonth(t *testing.T) {
	dir, _ := siteMonth(t)
	want := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, data))
		b.WriteByte('\n')
		rel, err := filepath.Rel(dir, path)
		require.NoError(t, err)
		want[rel] = b.Bytes()
		return nil
	}))
	if os.Getenv("UPDATE_GOLDEN") != "" {
		require.NoError(t, os.RemoveAll(siteDocsHistory))
		for rel, data := range want {
			path := filepath.Join(siteDocsHistory, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, data, 0o644))
		}
		require.NoError(t, os.WriteFile(siteDocsConfig, []byte("# An overlay of the built-in configuration for the history in\n# testdata/docs/history-site (miles-ci help history, history site).\n"+siteQuarantine), 0o644))
	}
	got := map[string][]byte{}
	require.NoError(t, filepath.WalkDir(siteDocsHistory, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		rel, err := filepath.Rel(siteDocsHistory, path)
		require.NoError(t, err)
		got[rel] = data
		return nil
	}))
	// Compared as reports, not bytes: a key added to the report, empty
	// in these runs, changes none of them (a key the month sets does).
	decoded := func(files map[string][]byte) map[string]report.Report {
		out := map[string]report.Report{}
		for rel, data := range files {
			var r report.Report
			require.NoError(t, json.Unmarshal(data, &r), rel)
			out[rel] = r
		}
		return out
	}
	assert.Equal(t, decoded(want), decoded(got), "run UPDATE_GOLDEN=1 go test -run TheDocsHistoryIsTheMonth ./internal/cli")
}

// chromium is Debian's headless browser, or the test cannot run here.
func chromium(t *testing.T) string {
	t.Helper()
	const path = "/usr/bin/chromium"
	if st, err := os.Stat(path); err != nil || st.IsDir() {
		testutil.Skip(t, "no "+path+" to open the page in (apt-get install chromium; .ci/run installs it)")
	}
	return path
}

// browserRun is what one run of the headless browser gave: its stdout
// (the DOM with --dump-dom), the console messages of its log, and the
// connections its proxy saw.
type browserRun struct {
	dom         string
	console     []string
	requests    []string
	connections []string
}

// countingProxy listens on a loopback port and counts what connects to it,
// keeping each connection's first line: the browser's only way out.
type countingProxy struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
}

func newCountingProxy(t *testing.T) *countingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	p := &countingProxy{ln: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
				buf := make([]byte, 256)
				n, _ := c.Read(buf)
				line, _, _ := strings.Cut(string(buf[:n]), "\r\n")
				p.mu.Lock()
				p.seen = append(p.seen, line)
				p.mu.Unlock()
			}()
		}
	}()
	return p
}

func (p *countingProxy) connections() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// browse opens page (a file) in headless Chromium, in a process group of
// its own with a profile in a temporary directory, every request sent to
// a counting proxy; shot, when set, is where a 1280×800 screenshot goes.
// The browser never outlives the test: its group is killed at the end
// and on cleanup.
func browse(t *testing.T, bin, page, shot string) browserRun {
	t.Helper()
	proxy := newCountingProxy(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + t.TempDir(),
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
		"--disable-default-apps", "--disable-extensions", "--disable-sync", "--metrics-recording-only", "--no-pings",
		"--disable-domain-reliability", "--disable-client-side-phishing-detection", "--disable-breakpad",
		"--disable-component-extensions-with-background-pages", "--no-service-autorun", "--password-store=basic",
		"--disable-search-engine-choice-screen", "--safebrowsing-disable-auto-update", "--disable-field-trial-config",
		"--disable-features=Translate,OptimizationHints,OptimizationGuideModelDownloading,MediaRouter,DialMediaRouteProvider," +
			"AutofillServerCommunication,NetworkTimeServiceQuerying,CertificateTransparencyComponentUpdater,InterestFeedContentSuggestions," +
			"SigninInterceptBubble,AccountConsistency,DiceWebSigninInterception,PrivacySandboxSettings4,SearchEnginePreconnector,PreconnectToSearch," +
			"PreconnectFromKeyedService,SearchPrefetchServicePrefetching,LinkPreconnect,MaybePreconnectNow",
		"--proxy-server=http://" + proxy.ln.Addr().String(), "--proxy-bypass-list=<-loopback>",
		"--enable-logging=stderr", "--v=1", "--window-size=1280,800", "--hide-scrollbars", "--dump-dom"}
	if shot != "" {
		args = append(args, "--screenshot="+shot)
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	pgid := cmd.Process.Pid
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	err := cmd.Wait()
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	require.NoError(t, err, "chromium: %s", lastLines(stderr.String(), 20))
	run := browserRun{dom: stdout.String()}
	for _, c := range proxy.connections() {
		if !browserOwn(c) {
			run.connections = append(run.connections, c)
		}
	}
	for _, l := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(l, ":CONSOLE") {
			run.console = append(run.console, l)
		}
		// --v=1 logs every URL request the browser makes.
		if _, url, ok := strings.Cut(l, "NotifyBeforeURLRequest: "); ok && !browserOwn(url) {
			run.requests = append(run.requests, url)
		}
	}
	return run
}

// browserOwnURLs are the requests a fresh headless Chromium makes of its
// own, whatever the page (its clock, the accounts of its profile, a
// search feature), which its flags do not turn off: a request of the page
// is any other, and a connection of the page any other than to their
// hosts. An exact list, so that a page's font or image from the same
// company is still caught (its URL is not one of these).
var browserOwnURLs = []string{"http://clients2.google.com/time/1/current?", "https://accounts.google.com/ListAccounts?",
	"https://www.google.com/async/folae?"}

// browserOwn reports whether a logged URL, or a proxy's first line, is
// one of the browser's own requests.
func browserOwn(s string) bool {
	for _, u := range browserOwnURLs {
		if strings.HasPrefix(s, u) || strings.HasPrefix(s, "GET "+u) {
			return true
		}
		host := strings.SplitN(strings.SplitN(u, "//", 2)[1], "/", 2)[0]
		if strings.HasPrefix(u, "https:") && s == "CONNECT "+host+":443 HTTP/1.1" {
			return true
		}
	}
	return false
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// svgMarks counts, for each svg element of a DOM, its data marks: rect,
// circle and polyline elements (the grid's lines are not marks).
func svgMarks(t *testing.T, dom string) []int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(dom))
	d.Strict, d.AutoClose, d.Entity = false, xml.HTMLAutoClose, xml.HTMLEntity
	var out []int
	depth := -1 // the depth of the open svg, -1 outside one
	level := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			level++
			switch tok.Name.Local {
			case "svg":
				depth = level
				out = append(out, 0)
			case "rect", "circle", "polyline":
				if depth >= 0 {
					out[len(out)-1]++
				}
			}
		case xml.EndElement:
			if level == depth {
				depth = -1
			}
			level--
		}
	}
}

// distinctColours counts the colours of an image.
func distinctColours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, bl, a}] = true
		}
	}
	return len(seen)
}

// Issue 38's item 4: the page, opened in a real browser, loads with no
// network request and no console message; every chart is an SVG with
// data marks; a 1280×800 screenshot is no blank page; the numbers the
// DOM holds are the --json answers'. A control page that does load an
// image and log an error proves the proxy and the log would have caught
// them. UPDATE_GOLDEN=1 keeps the screenshot for help history.
func TestHistorySite_ABrowserLoadsThePageAsItIs(t *testing.T) {
	testutil.SkipShort(t, "a headless Chromium loading the page (about 5 s)")
	bin := chromium(t)
	dir := t.TempDir()

	control := filepath.Join(dir, "control.html")
	require.NoError(t, os.WriteFile(control, []byte(`<!DOCTYPE html><html><body><img src="http://example.invalid/x.png"><script>console.error("control")</script></body></html>`), 0o644))
	ctl := browse(t, bin, control, "")
	require.NotEmpty(t, ctl.connections, "the control page's image went through the proxy")
	require.NotEmpty(t, ctl.requests, "the control page's image was logged")
	require.NotEmpty(t, ctl.console, "the control page's console error was logged")

	cfg, err := filepath.Abs(siteDocsConfig)
	require.NoError(t, err)
	from, err := filepath.Abs(siteDocsHistory)
	require.NoError(t, err)
	code, page, errOut := askAt(t, "--config", cfg, "history", "site", "--from", from)
	require.Equal(t, 0, code, errOut)
	path := filepath.Join(dir, "index.html")
	require.NoError(t, os.WriteFile(path, []byte(page), 0o644))
	shot := filepath.Join(dir, "shot.png")
	run := browse(t, bin, path, shot)

	assert.Empty(t, run.requests, "the page made no network request")
	assert.Empty(t, run.connections, "the page connected nowhere")
	assert.Empty(t, run.console, "the page logged nothing to the console")

	marks := svgMarks(t, run.dom)
	require.NotEmpty(t, marks)
	for i, n := range marks {
		assert.Positive(t, n, "chart %d has no data mark", i)
	}
	figures := len(regexp.MustCompile(`<figure>`).FindAllString(run.dom, -1))
	assert.Equal(t, figures+1, len(marks), "each figure is one SVG chart, and the host grid one more")
	for _, tag := range []string{"<script", "<img", "<link", "<iframe", "<object", "<embed"} {
		assert.NotContains(t, run.dom, tag)
	}

	// The DOM's numbers are the --json answers'.
	checkPageAgainstJSON(t, run.dom, "--config", cfg, "--from", from)

	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	assert.Equal(t, image.Rect(0, 0, 1280, 800), img.Bounds())
	colours := distinctColours(img)
	assert.Greater(t, colours, 50, "a blank or near-blank screenshot")
	t.Logf("screenshot: %d colours", colours)
	if os.Getenv("UPDATE_GOLDEN") != "" {
		data, err := os.ReadFile(shot)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(siteScreenshot, data, 0o644))
	}
}

// The screenshot help history links is there and small.
func TestHistorySite_TheDocsScreenshotIsSmall(t *testing.T) {
	st, err := os.Stat(siteScreenshot)
	require.NoError(t, err, "UPDATE_GOLDEN=1 go test -run ABrowserLoadsThePage ./internal/cli writes it")
	assert.Less(t, st.Size(), int64(200<<10), fmt.Sprintf("%d bytes", st.Size()))
}
