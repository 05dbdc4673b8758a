package view

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// dayAxis is the days the charts draw: every day from the first day with
// a run (or the first of --days' window) to the last (or today, with
// --days), at most history.SiteDays of them, the latest.
func dayAxis(in *SiteInput) []string {
	if len(in.CostDays) == 0 {
		return nil
	}
	first, _ := time.Parse("2006-01-02", in.CostDays[0])
	last, _ := time.Parse("2006-01-02", in.CostDays[len(in.CostDays)-1])
	if in.Days > 0 {
		last, _ = time.Parse("2006-01-02", history.Day(in.Now))
		first = last.AddDate(0, 0, -(in.Days - 1))
	}
	if earliest := last.AddDate(0, 0, -(history.SiteDays - 1)); first.Before(earliest) {
		first = earliest
	}
	var out []string
	for d := first; !d.After(last); d = d.AddDate(0, 0, 1) {
		out = append(out, d.Format("2006-01-02"))
	}
	return out
}

// The geometry of the charts, in SVG user units (the page scales them).
const (
	chartLeft   = 44.0 // room for the y labels
	chartTop    = 8.0
	chartBottom = 20.0 // room for the x labels
)

type rect struct {
	X, Y, W, H, Class, Title, Fig string
}

type label struct {
	X, Y, Text, Anchor string
}

type line struct{ X1, Y1, X2, Y2, Class string }

// barChart is one suite's GPU-hours per day, useful and wasted stacked.
type barChart struct {
	Title, Sub string
	W, H       string
	Bars       []rect
	Labels     []label
	Grid       []line
}

// suiteCharts draws the GPU-hours per day of the suites with the most
// GPU-hours (at most maxSuiteCharts), each on its own scale.
func suiteCharts(in *SiteInput, axis []string) ([]*barChart, string) {
	type suite struct {
		key   [2]string
		total int64
	}
	var suites []suite
	for _, s := range in.Cost.Suites {
		if s.Cost.Total() > 0 {
			suites = append(suites, suite{[2]string{s.Suite, s.Backend}, s.Cost.Total()})
		}
	}
	slices.SortStableFunc(suites, func(x, y suite) int { return cmp.Compare(y.total, x.total) })
	note := left(len(suites)-maxSuiteCharts, "suite", "the suites with the most GPU-hours are drawn")
	if len(suites) > maxSuiteCharts {
		suites = suites[:maxSuiteCharts]
	}
	byDay := map[string]*history.CostResult{}
	for i, d := range in.CostDays {
		byDay[d] = in.CostByDay[i]
	}
	var out []*barChart
	for _, s := range suites {
		useful := make([]int64, len(axis))
		wasted := make([]int64, len(axis))
		var top int64
		for i, d := range axis {
			res := byDay[d]
			if res == nil {
				continue
			}
			for _, sc := range res.Suites {
				if sc.Suite == s.key[0] && sc.Backend == s.key[1] {
					useful[i], wasted[i] = sc.Cost.Useful(), sc.Cost.Wasted()
				}
			}
			top = max(top, useful[i]+wasted[i])
		}
		c := &barChart{Title: name(s.key[0]), Sub: name(s.key[1]) + " · " + GPUHours(s.total) + " GPU-hours"}
		const w, h = 560.0, 150.0
		c.W, c.H = num(w), num(h)
		plotW, plotH := w-chartLeft-6, h-chartTop-chartBottom
		scale := niceCeil(float64(top) / 3.6e6)
		c.Grid, c.Labels = yAxis(scale, plotW, plotH, func(v float64) string { return trimZeros(v) })
		c.Labels = append(c.Labels, xLabels(axis, plotW, h)...)
		step := plotW / float64(max(len(axis), 1))
		for i, d := range axis {
			x := chartLeft + float64(i)*step + step*0.1
			bw := max(step*0.8, 1)
			y := chartTop + plotH
			for _, part := range []struct {
				v     int64
				class string
			}{{useful[i], "useful"}, {wasted[i], "wasted"}} {
				if part.v == 0 {
					continue
				}
				bh := float64(part.v) / 3.6e6 / scale * plotH
				y -= bh
				c.Bars = append(c.Bars, rect{X: num(x), Y: num(y), W: num(bw), H: num(max(bh, 0.5)), Class: part.class,
					Title: fmt.Sprintf("%s: %s GPU-hours %s", d, GPUHours(part.v), part.class)})
			}
		}
		out = append(out, c)
	}
	return out, note
}

// yAxis draws three grid lines of a chart whose top is scale, and their
// labels.
func yAxis(scale, plotW, plotH float64, format func(float64) string) ([]line, []label) {
	var grid []line
	var labels []label
	for i := 0; i <= 2; i++ {
		v := scale * float64(i) / 2
		y := chartTop + plotH - plotH*float64(i)/2
		grid = append(grid, line{X1: num(chartLeft), Y1: num(y), X2: num(chartLeft + plotW), Y2: num(y), Class: "grid"})
		labels = append(labels, label{X: num(chartLeft - 4), Y: num(y + 3.5), Text: format(v), Anchor: "end"})
	}
	return grid, labels
}

// xLabels names the first, middle and last day of an axis below a plot.
func xLabels(axis []string, plotW, h float64) []label {
	if len(axis) == 0 {
		return nil
	}
	step := plotW / float64(len(axis))
	// Three labels where they fit apart, else the ends, else the first.
	idx := []int{0}
	if len(axis) > 2 && plotW >= 150 {
		idx = append(idx, len(axis)/2)
	}
	if len(axis) > 1 && plotW >= 80 {
		idx = append(idx, len(axis)-1)
	}
	var out []label
	for _, i := range idx {
		anchor := "middle"
		x := chartLeft + (float64(i)+0.5)*step
		switch {
		case i == 0 && len(axis) > 1:
			anchor, x = "start", chartLeft
		case i == len(axis)-1 && len(axis) > 1:
			anchor, x = "end", chartLeft+plotW
		}
		out = append(out, label{X: num(x), Y: num(h - 5), Text: axis[i][5:], Anchor: anchor})
	}
	return out
}

// niceCeil is the least of 1, 2 or 5 times a power of ten at or above v
// (1 for nothing), the top of a chart's scale.
func niceCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v*(1-1e-12) {
			return m * p
		}
	}
	return 10 * p
}

func trimZeros(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// slowestFiles is the timings by p90, the slowest first (ties by the
// answer's order: file, suite, backend).
func slowestFiles(files []*history.FileTiming) []*history.FileTiming {
	out := slices.Clone(files)
	slices.SortStableFunc(out, func(x, y *history.FileTiming) int { return cmp.Compare(y.P90, x.P90) })
	return out
}

// lineChart is one file's median and p90 per day, with its time limit.
type lineChart struct {
	Title, Sub string
	W, H       string
	P50, P90   string // polyline points
	Dots       []dot
	Grid       []line
	Labels     []label
	Limit      *line
	Drifted    bool
}

type dot struct{ X, Y50, Y90, Title string }

// fileCharts draws the median and p90 per day of the drifted files, then
// of the slowest, at most maxFileCharts in all.
func fileCharts(in *SiteInput, slowest []*history.FileTiming, axis []string) []*lineChart {
	type pick struct {
		t       *history.FileTiming
		limit   float64
		drifted bool
	}
	byDay := map[string]map[[3]string]*history.FileTiming{}
	for i, d := range in.TimingDays {
		m := map[[3]string]*history.FileTiming{}
		for _, t := range in.TimingsByDay[i] {
			m[[3]string{t.File, t.Suite, t.Backend}] = t
		}
		byDay[d] = m
	}
	drawable := func(t *history.FileTiming) bool {
		// One day's point draws no trend.
		k, days := [3]string{t.File, t.Suite, t.Backend}, 0
		for _, d := range axis {
			if byDay[d][k] != nil {
				days++
			}
		}
		return days >= 2
	}
	var picks []pick
	seen := map[*history.FileTiming]bool{}
	for _, d := range in.Drifts {
		if len(picks) >= maxFileCharts/2 {
			break
		}
		if drawable(d.FileTiming) {
			picks = append(picks, pick{d.FileTiming, d.Limit, true})
			seen[d.FileTiming] = true
		}
	}
	for _, t := range slowest {
		if len(picks) >= maxFileCharts {
			break
		}
		if !seen[t] && drawable(t) {
			picks = append(picks, pick{t: t})
		}
	}
	var out []*lineChart
	for _, pk := range picks {
		t := pk.t
		k := [3]string{t.File, t.Suite, t.Backend}
		top := pk.limit
		for _, d := range axis {
			if dt := byDay[d][k]; dt != nil {
				top = max(top, dt.P90)
			}
		}
		const w, h = 560.0, 150.0
		plotW, plotH := w-chartLeft-6, h-chartTop-chartBottom
		scale := niceCeil(top)
		c := &lineChart{Title: name(t.File), Sub: name(t.Suite) + " · p90 " + secs(t.P90) + " s over " + textfmt.CountNoun(t.Runs, "run"),
			W: num(w), H: num(h), Drifted: pk.drifted}
		c.Grid, c.Labels = yAxis(scale, plotW, plotH, func(v float64) string { return trimZeros(v) + "s" })
		c.Labels = append(c.Labels, xLabels(axis, plotW, h)...)
		y := func(v float64) float64 { return chartTop + plotH - v/scale*plotH }
		if pk.limit > 0 {
			c.Limit = &line{X1: num(chartLeft), Y1: num(y(pk.limit)), X2: num(chartLeft + plotW), Y2: num(y(pk.limit)), Class: "limit"}
		}
		step := plotW / float64(max(len(axis), 1))
		var p50, p90 []string
		for i, d := range axis {
			dt := byDay[d][k]
			if dt == nil {
				continue
			}
			x := chartLeft + (float64(i)+0.5)*step
			p50 = append(p50, num(x)+","+num(y(dt.Median)))
			p90 = append(p90, num(x)+","+num(y(dt.P90)))
			c.Dots = append(c.Dots, dot{X: num(x), Y50: num(y(dt.Median)), Y90: num(y(dt.P90)),
				Title: fmt.Sprintf("%s: median %s s, p90 %s s of %s", d, secs(dt.Median), secs(dt.P90), textfmt.CountNoun(dt.Runs, "run"))})
		}
		c.P50, c.P90 = strings.Join(p50, " "), strings.Join(p90, " ")
		out = append(out, c)
	}
	return out
}

// gridHosts orders the hosts for the grid and its table: the suspect
// ones first, then by jobs (most first), then by key.
func gridHosts(res *hostcheck.Result) []hostcheck.HostResult {
	hosts := slices.Clone(res.Hosts)
	slices.SortStableFunc(hosts, func(x, y hostcheck.HostResult) int {
		if x.Suspect != y.Suspect {
			if x.Suspect {
				return -1
			}
			return 1
		}
		return cmp.Compare(y.Jobs, x.Jobs)
	})
	return hosts
}

// gridChart is the hosts × days grid: each cell a day's jobs on a host,
// coloured by the worst of them (infra, then failed, then passed).
type gridChart struct {
	W, H   string
	Cells  []rect
	Labels []label
}

type cellCount struct{ jobs, passed, failed, infra int }

func hostGrid(res *hostcheck.Result, hosts []hostcheck.HostResult, axis []string) *gridChart {
	if len(hosts) == 0 || len(axis) == 0 {
		return nil
	}
	row := map[string]int{}
	for i, h := range hosts {
		row[h.Key] = i
	}
	col := map[string]int{}
	for i, d := range axis {
		col[d] = i
	}
	counts := make([][]cellCount, len(hosts))
	for i := range counts {
		counts[i] = make([]cellCount, len(axis))
	}
	for _, j := range res.Jobs {
		r, ok := row[j.Host.Key()]
		if !ok {
			continue
		}
		t, err := time.Parse(report.StartedLayout, j.Job.Started)
		if err != nil {
			continue
		}
		c, ok := col[history.Day(t)]
		if !ok {
			continue
		}
		cc := &counts[r][c]
		cc.jobs++
		cc.passed += j.Passed
		cc.failed += j.Failed
		cc.infra += j.Infra
		if j.HostNotReady {
			cc.infra++
		}
	}
	const labelW, cell, gap = 130.0, 16.0, 2.0
	g := &gridChart{}
	w := labelW + float64(len(axis))*(cell+gap)
	h := float64(len(hosts))*(cell+gap) + chartBottom
	g.W, g.H = num(max(w, 200)), num(h)
	for r, hr := range hosts {
		y := float64(r) * (cell + gap)
		g.Labels = append(g.Labels, label{X: num(labelW - 6), Y: num(y + cell - 3), Text: textfmt.Cut(name(hr.Key), 20), Anchor: "end"})
		for c, d := range axis {
			cc := counts[r][c]
			if cc.jobs == 0 {
				continue
			}
			class := "other"
			switch {
			case cc.infra > 0:
				class = "infra"
			case cc.failed > 0:
				class = "fail"
			case cc.passed > 0:
				class = "pass"
			}
			g.Cells = append(g.Cells, rect{X: num(labelW + float64(c)*(cell+gap)), Y: num(y), W: num(cell), H: num(cell), Class: class,
				Title: fmt.Sprintf("%s %s: %s, %d passed, %d failed, %d infra", name(hr.Key), d, textfmt.CountNoun(cc.jobs, "job"), cc.passed, cc.failed, cc.infra),
				Fig:   "hosts.day." + d + "." + name(hr.Key)})
		}
	}
	plotW := float64(len(axis)) * (cell + gap)
	for _, l := range xLabels(axis, plotW, h) {
		x, _ := strconv.ParseFloat(l.X, 64)
		l.X = num(x - chartLeft + labelW)
		g.Labels = append(g.Labels, l)
	}
	return g
}

// timelineChart is a suite's latest scheduled run: a row per shard, its
// setup and its attempts as bars on the shard's time axis.
type timelineChart struct {
	Title, Sub string
	W, H       string
	Bars       []rect
	Labels     []label
	Grid       []line
	Left       string
}

func timeline(t *history.Timeline) *timelineChart {
	shards := t.Shards
	c := &timelineChart{Title: name(t.Suite), Sub: fmt.Sprintf("%s · run %s attempt %s · started %s · %s",
		name(t.Backend), dash(name(t.RunID)), dash(name(t.RunAttempt)), t.Started.UTC().Format("2006-01-02 15:04 UTC"),
		textfmt.CountNoun(len(shards), "shard"))}
	if len(shards) > maxShards {
		c.Left = left(len(shards)-maxShards, "shard", "the first by id are drawn")
		shards = shards[:maxShards]
	}
	var end float64
	for _, s := range shards {
		end = max(end, s.End)
	}
	const labelW, rowH, barH, w = 170.0, 24.0, 16.0, 1100.0
	plotW := w - labelW - 10
	h := float64(len(shards))*rowH + chartBottom + 4
	c.W, c.H = num(w), num(h)
	scale := niceCeil(end / 60) // minutes
	x := func(sec float64) float64 { return labelW + sec/60/scale*plotW }
	for i := 0; i <= 4; i++ {
		v := scale * float64(i) / 4
		xi := labelW + plotW*float64(i)/4
		c.Grid = append(c.Grid, line{X1: num(xi), Y1: "0", X2: num(xi), Y2: num(h - chartBottom), Class: "grid"})
		anchor := "middle"
		if i == 4 {
			anchor = "end"
		}
		c.Labels = append(c.Labels, label{X: num(xi), Y: num(h - 5), Text: trimZeros(v) + " min", Anchor: anchor})
	}
	bars := 0
	for r, s := range shards {
		y := float64(r)*rowH + (rowH-barH)/2
		shard := "whole suite"
		if s.ShardSize > 0 {
			shard = fmt.Sprintf("shard %d/%d", s.ShardID+1, s.ShardSize)
		}
		c.Labels = append(c.Labels, label{X: num(labelW - 6), Y: num(y + barH - 4), Text: shard + " · " + textfmt.Cut(dash(name(s.Host)), 14), Anchor: "end"})
		fig := "timeline." + name(t.Suite) + "." + strconv.Itoa(s.ShardID)
		if s.Setup != nil && report.PlausibleSetup(*s.Setup) && *s.Setup > 0 {
			c.Bars = append(c.Bars, rect{X: num(x(0)), Y: num(y), W: num(max(x(*s.Setup)-x(0), 0.5)), H: num(barH), Class: "setup",
				Title: "setup " + secs(*s.Setup) + " s"})
		}
		for _, b := range s.Bars {
			if bars >= maxBarsPerSuite {
				break
			}
			bars++
			class, what := barClass(b)
			r := rect{X: num(x(b.Start)), Y: num(y), W: num(max(x(b.Start+b.Elapsed)-x(b.Start), 1)), H: num(barH),
				Class: class + " att", Title: fmt.Sprintf("%s attempt %d: %s, %s s (from %s s)", name(b.File), b.Attempt, what, secs(b.Elapsed), secs(b.Start))}
			if class != "pass" {
				// A failure is marked, and found by its key.
				r.Fig = fig + "." + name(b.File) + "." + strconv.Itoa(b.Attempt)
			}
			c.Bars = append(c.Bars, r)
		}
	}
	total := 0
	for _, s := range shards {
		total += len(s.Bars)
	}
	if total > maxBarsPerSuite {
		c.Left += " " + left(total-maxBarsPerSuite, "attempt", "a suite draws at most "+strconv.Itoa(maxBarsPerSuite))
	}
	c.Left = strings.TrimSpace(c.Left)
	return c
}

// barClass is the class and the words of an attempt's bar.
func barClass(b history.TimelineBar) (string, string) {
	switch {
	case b.Status == report.Pass:
		return "pass", "passed"
	case b.Status.Failed() && b.Cause == report.CauseInfra:
		return "infra", string(b.Status) + " (infra)"
	case b.Status == report.Timeout:
		return "timeout", "TIMEOUT"
	case b.Status.Failed():
		return "fail", string(b.Status)
	}
	return "other", string(b.Status)
}
