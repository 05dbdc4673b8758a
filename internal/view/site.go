package view

// The CI health page of `miles-ci history site`: one self-contained HTML
// file (inline CSS and SVG charts; no script, font or image from
// anywhere; light and dark) made of the history's answers. It computes no
// figure of its own: every number is a field of an answer (package
// history) written as that question's output writes it, and every chart
// is laid out from those fields. Names from the history (file, suite,
// host) are shown as the text tables show them (textfmt.Cell) and escaped
// by html/template.

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// SiteInput is what the page shows: the answers of one scan of the history
// (history.SiteAnswer) and how it was asked.
type SiteInput struct {
	// Now is when the page was built; Scope says which runs were read
	// ("the runs of the last 30 days"), FilterArgs are the filter flags
	// that narrowed them, for the commands the page suggests.
	Now        time.Time
	Scope      string
	FilterArgs []string
	// Days bounds the day axis: the window --days gave (0: the days of
	// the history).
	Days int

	Cost      *history.CostResult
	CostDays  []string
	CostByDay []*history.CostResult
	// DaysLeft counts the days with runs before CostDays, which the
	// charts leave out (the totals count them).
	DaysLeft int

	Timings      []*history.FileTiming
	TimingDays   []string
	TimingsByDay [][]*history.FileTiming
	Drifts       []history.Drift

	Flaky *history.Flaky
	Hosts *hostcheck.Result

	Timelines []*history.Timeline

	// Quarantine is the configuration's quarantine; QuarantineOff the
	// cadences that ignore it; Configured whether the configuration
	// has a quarantine section at all.
	Quarantine    []config.QuarantineEntry
	QuarantineOff []string
}

// The page's bounds: its size follows them, not the history's.
const (
	maxSuiteCharts  = 8
	maxSuiteRows    = 30
	maxFileCharts   = 8
	maxSlowest      = 15
	maxDrifts       = 30
	maxFlaky        = 25
	maxQuarantine   = 30
	maxHostRows     = 30
	maxSuspects     = 20
	maxTimelines    = 8
	maxShards       = 32
	maxBarsPerSuite = 400
)

//go:embed site_page.html.tmpl
var sitePageText string

var sitePage = template.Must(template.New("site").Parse(sitePageText))

// Site writes the CI health page.
func Site(w io.Writer, in *SiteInput) error {
	return sitePage.Execute(w, buildSite(in))
}

// name is a name from the history as the page shows it.
func name(s string) string { return textfmt.Cell(s) }

// secs writes seconds to the millisecond, as the history's answers do.
func secs(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

// num writes a chart coordinate.
func num(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// left says what a bounded list left out, or "".
func left(n int, noun, why string, plural ...string) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("Not shown: %d more %s (%s).", n, strings.TrimPrefix(textfmt.CountNoun(n, noun, plural...), strconv.Itoa(n)+" "), why)
}

type page struct {
	Generated, Scope string
	Empty            bool
	Attempts, Jobs   int

	Tiles      []tile
	Categories []catRow
	CostLine   string
	Charts     []*barChart
	ChartsLeft string
	DayNote    string
	Suites     []suiteRow
	SuitesLeft string
	Cadences   []suiteRow
	Wasted     []wastedRow
	WastedLeft string
	Assumed    string

	Drifts     []driftRow
	DriftsLeft string
	FixCommand string
	FileCharts []*lineChart
	Slowest    []timingRow
	SlowLeft   string

	Flaky      []flakyRow
	FlakyLeft  string
	FlakyCount string
	Quarantine []quarantineRow
	QuarLeft   string
	QuarOff    string

	Verdict    string
	Suspects   []suspectRow
	SuspLeft   string
	Grid       *gridChart
	Hosts      []hostRow
	HostsLeft  string
	Timelines  []*timelineChart
	TimeLeft   string
	NoSchedule bool
}

type tile struct{ Label, Value, Fig, Note, Class, Href string }

type catRow struct{ Kind, Name, Hours, Share, Fig string }

type suiteRow struct {
	Name, Backend, GPUs, Jobs, Useful, Wasted, Total, Share string
	Fig                                                     string
}

type wastedRow struct{ File, Suite, Wasted, Infra, Timeout, Retried, Interrupted, Fig string }

type driftRow struct{ File, Suite, Runs, Est, Limit, P90, Median, Max, Fig string }

type timingRow struct{ File, Suite, Runs, Median, P90, Max, Fig string }

type flakyRow struct {
	File, Suite, Runs, Failures, Retried, SameSHA, Rate, OnlyOn, Quarantine, Fig string
	Tied                                                                         bool
}

type quarantineRow struct{ File, Suites, Until, State, Reason string }

type suspectRow struct{ Host, Summary string }

type hostRow struct {
	Host, Jobs, FilesRun, Passed, Failed, Infra, Contradicted, Fig string
	Suspect                                                        bool
}

func buildSite(in *SiteInput) *page {
	p := &page{Generated: in.Now.UTC().Format("2006-01-02 15:04 UTC"), Scope: in.Scope,
		Attempts: in.Cost.Attempts, Jobs: in.Cost.Jobs, Empty: in.Cost.Attempts == 0}
	axis := dayAxis(in)
	buildCost(p, in, axis)
	buildTimings(p, in, axis)
	buildFlaky(p, in)
	buildHosts(p, in, axis)
	buildTimelines(p, in)
	return p
}

// countTile is a tile counting what needs a look: red when there is any.
func countTile(label string, n int, note, href string) tile {
	class := "ok"
	if n > 0 {
		class = "alert"
	}
	return tile{Label: label, Value: strconv.Itoa(n), Note: note, Class: class, Href: href}
}

// share is part of whole as a percentage, "-" of nothing.
func share(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return Percent(float64(part) / float64(whole))
}

func buildCost(p *page, in *SiteInput, axis []string) {
	c := &in.Cost.Cost
	p.Tiles = []tile{
		{Label: "GPU-hours", Value: GPUHours(c.Total()), Fig: "cost.gpu_hours.total", Note: "of " + textfmt.CountNoun(in.Cost.Jobs, "job"), Href: "#cost"},
		{Label: "useful", Value: GPUHours(c.Useful()), Fig: "cost.gpu_hours.useful", Note: "passed, failed, setup", Class: "useful", Href: "#cost"},
		{Label: "wasted", Value: GPUHours(c.Wasted()), Fig: "cost.gpu_hours.wasted", Note: share(c.Wasted(), c.Total()) + " of the total", Class: "wasted", Href: "#cost"},
		countTile("files past their limit", len(in.Drifts), "p90 over 1.25 × est_time", "#timings"),
		countTile("flaky files", len(in.Flaky.Files), "failed or passed on a retry", "#flaky"),
		countTile("suspect hosts", len(in.Hosts.Suspects), "of "+textfmt.CountNoun(len(in.Hosts.Hosts), "host"), "#hosts"),
	}
	for _, cat := range history.Categories {
		kind := "useful"
		if cat.Wasted() {
			kind = "wasted"
		}
		p.Categories = append(p.Categories, catRow{Kind: kind, Name: strings.ReplaceAll(cat.String(), "_", " "),
			Hours: GPUHours(c.Of(cat)), Share: share(c.Of(cat), c.Total()), Fig: "cost.gpu_seconds." + cat.String()})
	}
	p.CostLine = fmt.Sprintf("In GPU-seconds, to the millisecond: %s = useful %s + wasted %s.",
		GPUSeconds(c.Total()), GPUSeconds(c.Useful()), GPUSeconds(c.Wasted()))

	// The suites, the largest first for the charts; the table in the
	// answer's order.
	assumed := 0
	for i, s := range in.Cost.Suites {
		if s.Source.Assumed() {
			assumed++
		}
		if i >= maxSuiteRows {
			continue
		}
		gpus := strconv.Itoa(s.GPUs)
		if s.Source.Assumed() {
			gpus += " (assumed)"
		}
		p.Suites = append(p.Suites, suiteRow{Name: name(s.Suite), Backend: name(s.Backend), GPUs: gpus, Jobs: strconv.Itoa(s.Jobs),
			Useful: GPUHours(s.Cost.Useful()), Wasted: GPUHours(s.Cost.Wasted()), Total: GPUHours(s.Cost.Total()),
			Share: share(s.Cost.Wasted(), s.Cost.Total()), Fig: "cost.suite." + name(s.Suite) + "." + name(s.Backend)})
	}
	p.SuitesLeft = left(len(in.Cost.Suites)-maxSuiteRows, "suite", "the table lists the first "+strconv.Itoa(maxSuiteRows))
	if assumed > 0 {
		p.Assumed = textfmt.CountNoun(assumed, "suite") + " counted as 1 GPU a job (assumed): give the suite gpus: N in the configuration (miles-ci help config)."
	}
	for _, cd := range in.Cost.Cadences {
		n := cd.Cadence
		if n == "" {
			n = "-"
		}
		p.Cadences = append(p.Cadences, suiteRow{Name: name(n), Jobs: strconv.Itoa(cd.Jobs), Useful: GPUHours(cd.Cost.Useful()),
			Wasted: GPUHours(cd.Cost.Wasted()), Total: GPUHours(cd.Cost.Total()), Share: share(cd.Cost.Wasted(), cd.Cost.Total()),
			Fig: "cost.cadence." + name(n)})
	}
	for _, f := range in.Cost.Files {
		fc := &f.Cost
		p.Wasted = append(p.Wasted, wastedRow{File: name(f.File), Suite: name(f.Suite), Wasted: GPUHours(fc.Wasted()),
			Infra: GPUHours(fc.Of(history.Infra)), Timeout: GPUHours(fc.Of(history.TimedOut)),
			Retried: GPUHours(fc.Of(history.Retried)), Interrupted: GPUHours(fc.Of(history.Interrupted)),
			Fig: "cost.file." + name(f.File) + "." + name(f.Suite)})
	}
	if in.Cost.FilesLeftOut > 0 {
		p.WastedLeft = fmt.Sprintf("%s more wasted %s GPU-hours (the %d that wasted the most are listed).",
			textfmt.CountNoun(in.Cost.FilesLeftOut, "file"), GPUHours(in.Cost.LeftOutWasted), history.CostTopFiles)
	}
	p.Charts, p.ChartsLeft = suiteCharts(in, axis)
	if len(axis) > 0 && (in.DaysLeft > 0 || len(in.CostDays) > 0 && in.CostDays[0] < axis[0]) {
		p.DayNote = fmt.Sprintf("The charts draw the %d days from %s to %s; the totals count every run read.", len(axis), axis[0], axis[len(axis)-1])
	}
}

func buildTimings(p *page, in *SiteInput, axis []string) {
	for i, d := range in.Drifts {
		if i >= maxDrifts {
			break
		}
		p.Drifts = append(p.Drifts, driftRow{File: name(d.File), Suite: name(d.Suite), Runs: strconv.Itoa(d.Runs),
			Est: secs(d.EstTime), Limit: secs(d.Limit), P90: secs(d.P90), Median: secs(d.Median), Max: secs(d.Max),
			Fig: "drift." + name(d.File) + "." + name(d.Suite)})
	}
	p.DriftsLeft = left(len(in.Drifts)-maxDrifts, "drifted file", "the most drifted are listed")
	if len(in.Drifts) > 0 {
		args := []string{"miles-ci", "timings", "apply", "--from", "HISTORY", "--quantile", "0.9", "--threshold", driftThreshold()}
		p.FixCommand = textfmt.ShellJoin(append(args, in.FilterArgs...))
	}
	slowest := slowestFiles(in.Timings)
	for i, t := range slowest {
		if i >= maxSlowest {
			break
		}
		p.Slowest = append(p.Slowest, timingRow{File: name(t.File), Suite: name(t.Suite), Runs: strconv.Itoa(t.Runs),
			Median: secs(t.Median), P90: secs(t.P90), Max: secs(t.Max), Fig: "timings." + name(t.File) + "." + name(t.Suite)})
	}
	p.SlowLeft = left(len(slowest)-maxSlowest, "file", "the slowest by p90 are listed")
	p.FileCharts = fileCharts(in, slowest, axis)
}

// driftThreshold is timings apply's --threshold that changes exactly the
// files whose p90 is past their time limit: off by more than the
// TimeoutFactor's excess, with no floor in seconds.
func driftThreshold() string {
	return strconv.FormatFloat((registry.TimeoutFactor-1)*100, 'f', -1, 64) + "%"
}

func buildFlaky(p *page, in *SiteInput) {
	n := 0
	for _, f := range in.Flaky.Files {
		if n >= maxFlaky {
			break
		}
		n++
		p.Flaky = append(p.Flaky, flakyRow{File: name(f.File), Suite: name(f.Suite), Runs: strconv.Itoa(f.Runs),
			Failures: strconv.Itoa(f.Failures), Retried: strconv.Itoa(f.PassedOnRetry), SameSHA: strconv.Itoa(f.PassedSameCommit),
			Rate: Percent(f.Rate), OnlyOn: dash(name(f.OnlyOn)), Tied: f.OnlyOn != "",
			Quarantine: quarantineState(in, f.File, f.Suite), Fig: "flaky." + name(f.File) + "." + name(f.Suite)})
	}
	p.FlakyLeft = left(len(in.Flaky.Files)-maxFlaky, "file", "the highest rates are listed")
	p.FlakyCount = fmt.Sprintf("%s failed or passed only on a retry; %s: every run passed at the first attempt.",
		textfmt.CountNoun(len(in.Flaky.Files), "file"), textfmt.CountNoun(in.Flaky.Clean, "clean file"))
	for i, e := range in.Quarantine {
		if i >= maxQuarantine {
			break
		}
		suites := "every suite"
		if len(e.Suites) > 0 {
			cells := make([]string, len(e.Suites))
			for j, s := range e.Suites {
				cells[j] = name(s)
			}
			suites = strings.Join(cells, ", ")
		}
		state := "active"
		if e.Expired(in.Now) {
			state = "expired"
		}
		p.Quarantine = append(p.Quarantine, quarantineRow{File: name(e.File), Suites: suites, Until: e.UntilText(), State: state, Reason: name(e.Reason)})
	}
	p.QuarLeft = left(len(in.Quarantine)-maxQuarantine, "entry", "the configuration's first are listed", "entries")
	if len(in.QuarantineOff) > 0 {
		cells := make([]string, len(in.QuarantineOff))
		for i, c := range in.QuarantineOff {
			cells[i] = name(c)
		}
		p.QuarOff = "Runs of " + strings.Join(cells, ", ") + " ignore the quarantine (quarantine_off)."
	}
}

// quarantineState is the quarantine column of a flaky file: the until of
// the entry that covers it, whether it is over, or "-".
func quarantineState(in *SiteInput, file, suite string) string {
	for _, e := range in.Quarantine {
		if e.AppliesTo(file, suite) {
			if e.Expired(in.Now) {
				return "expired " + e.UntilText()
			}
			return "until " + e.UntilText()
		}
	}
	return "-"
}

func buildHosts(p *page, in *SiteInput, axis []string) {
	res := in.Hosts
	if len(res.Suspects) == 0 {
		p.Verdict = fmt.Sprintf("No suspect host among %s.", textfmt.CountNoun(len(res.Hosts), "host"))
	} else {
		p.Verdict = fmt.Sprintf("%s of %d.", textfmt.CountNoun(len(res.Suspects), "suspect host"), len(res.Hosts))
	}
	n := 0
	for _, h := range res.Hosts {
		if !h.Suspect {
			continue
		}
		n++
		if n > maxSuspects {
			continue
		}
		ev := make([]string, len(h.Evidence))
		for i, e := range h.Evidence {
			ev[i] = textfmt.Cell(e)
		}
		p.Suspects = append(p.Suspects, suspectRow{Host: name(h.Key),
			Summary: fmt.Sprintf("%s, %d of %s passed; %s", textfmt.CountNoun(h.Jobs, "job"), h.Passed,
				textfmt.CountNoun(h.FilesRun, "file"), strings.Join(ev, "; "))})
	}
	p.SuspLeft = left(n-maxSuspects, "suspect host", "history hosts lists them all")
	hosts := gridHosts(res)
	for i, h := range hosts {
		if i >= maxHostRows {
			break
		}
		p.Hosts = append(p.Hosts, hostRow{Host: name(h.Key), Jobs: strconv.Itoa(h.Jobs), FilesRun: strconv.Itoa(h.FilesRun),
			Passed: strconv.Itoa(h.Passed), Failed: strconv.Itoa(h.Failed), Infra: strconv.Itoa(h.Infra + h.NotReady),
			Contradicted: strconv.Itoa(h.Contradicted), Suspect: h.Suspect, Fig: "hosts." + name(h.Key)})
	}
	p.HostsLeft = left(len(hosts)-maxHostRows, "host", "the suspect hosts first, then those with the most jobs")
	if len(hosts) > maxHostRows {
		hosts = hosts[:maxHostRows]
	}
	p.Grid = hostGrid(res, hosts, axis)
}

func buildTimelines(p *page, in *SiteInput) {
	p.NoSchedule = len(in.Timelines) == 0
	for i, t := range in.Timelines {
		if i >= maxTimelines {
			break
		}
		p.Timelines = append(p.Timelines, timeline(t))
	}
	p.TimeLeft = left(len(in.Timelines)-maxTimelines, "suite", "the first by name are drawn")
}
