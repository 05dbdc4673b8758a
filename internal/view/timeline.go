package view

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// TimelineMax bounds the bars of a timeline: a chart of more would be
// taller than anyone reads, and a step summary has a size limit of its own.
const TimelineMax = 200

// timelineSection renders the attempts of r on the run's clock, as a
// Mermaid gantt chart that GitHub draws in a step summary: one bar per
// attempt that says when it started (report.Attempt.Offset), a retry as a
// bar of its own, a failed attempt in red (crit), a quarantined file's
// outlined (active), an interrupted one grey (done). A bar's start and end
// are milliseconds from the report's start (dateFormat x: Mermaid 11 reads
// no fraction of a second in X's seconds), and the axis counts seconds
// from it (axisFormat %s, the same in every reader's time zone). A run
// has one section, its shard; a merge one per shard, side by side on the
// clock of the earliest, each shard's reruns in its own section. File
// names are written inert (textfmt.MermaidName).
//
// A report of which no attempt has an offset (one of an older run) has no
// timeline: "", so its summary is what it always was. Above TimelineMax
// bars the chart is left out, and one line says so; attempts of reports
// that did not say when they started are counted below the chart.
func timelineSection(r *report.Report) string {
	bars, unplaced := timelineBars(r)
	if len(bars) == 0 {
		return ""
	}
	if len(bars) > TimelineMax {
		return fmt.Sprintf("**Timeline** left out: %s, more than the %d one shows (the JSON report has each attempt's `offset`).\n\n",
			textfmt.CountNoun(len(bars), "attempt"), TimelineMax)
	}
	var b strings.Builder
	if merged(r, bars) {
		b.WriteString("**Timeline** (each attempt of the runs merged, in seconds from the first one's start; a section per shard, with its reruns; failed attempts in red):\n\n")
	} else {
		b.WriteString("**Timeline** (each attempt, in seconds from the run's start; failed attempts in red):\n\n")
	}
	b.WriteString("```mermaid\ngantt\n    dateFormat x\n    axisFormat %s\n    todayMarker off\n")
	section := -2 // no section yet
	for _, br := range bars {
		if br.shard != section {
			section = br.shard
			fmt.Fprintf(&b, "    section %s\n", sectionName(br.shard, r))
		}
		a := br.attempt
		start := milliseconds(*a.Offset)
		fmt.Fprintf(&b, "    %s : %s%d, %d\n", br.label(), br.tags(), start, start+milliseconds(a.Elapsed))
	}
	b.WriteString("```\n\n")
	if unplaced > 0 {
		fmt.Fprintf(&b, "Not on the timeline: %s of reports that do not say when their attempts started.\n\n",
			textfmt.CountNoun(unplaced, "attempt"))
	}
	return b.String()
}

// merged reports whether r is a merge of runs' reports: it says which
// shards it covers, lists their hosts, or names the shard of an attempt.
func merged(r *report.Report, bars []bar) bool {
	if r.Shards != nil || len(r.Hosts) > 0 {
		return true
	}
	return slices.ContainsFunc(bars, func(b bar) bool { return b.attempt.Shard != nil })
}

// bar is one attempt on the timeline.
type bar struct {
	shard   int // the section: a shard's id, -1 for a run of no shard
	file    *report.File
	attempt report.Attempt
	order   int // in the report: the tie-break of bars that start together
}

// timelineBars returns the attempts of r that have an offset, by section
// (shards ascending, then runs of no shard), then by start, and how many
// attempts have none; no bars when none has one.
func timelineBars(r *report.Report) (bars []bar, unplaced int) {
	for i := range r.Files {
		f := &r.Files[i]
		for _, a := range f.AttemptsDetail {
			if a.Offset == nil {
				unplaced++
				continue
			}
			shard := -1
			switch {
			case a.Shard != nil:
				shard = *a.Shard
			case r.Partition != nil:
				shard = r.Partition.ID
			}
			bars = append(bars, bar{shard: shard, file: f, attempt: a, order: len(bars)})
		}
	}
	slices.SortFunc(bars, func(x, y bar) int {
		// A run of no shard (-1) comes after the shards.
		if c := cmp.Compare(uint(x.shard), uint(y.shard)); c != 0 {
			return c
		}
		if c := cmp.Compare(*x.attempt.Offset, *y.attempt.Offset); c != 0 {
			return c
		}
		return cmp.Compare(x.order, y.order)
	})
	return bars, unplaced
}

// sectionName names a section: "shard 2/4" (ids are 0-based, the section
// counts from 1 as the run's log does), "shard 2" when the report does not
// say how many there are, "run" for a run of no shard.
func sectionName(shard int, r *report.Report) string {
	size := 0
	switch {
	case r.Partition != nil:
		size = r.Partition.Size
	case r.Shards != nil:
		size = r.Shards.Size
	}
	switch {
	case shard < 0:
		return "run"
	case shard < size:
		return fmt.Sprintf("shard %d/%d", shard+1, size)
	}
	return fmt.Sprintf("shard %d", shard+1)
}

// label is the bar's text: the file, inert, then the attempt when the
// file had several, its status when it did not pass, and "quarantined"
// for a file that ran under the quarantine.
func (b bar) label() string {
	s := textfmt.MermaidName(b.file.File)
	if len(b.file.AttemptsDetail) > 1 {
		s += " attempt " + strconv.Itoa(b.attempt.Attempt)
	}
	if b.attempt.Status != report.Pass {
		s += " " + string(b.attempt.Status)
	}
	if b.file.Quarantined {
		s += " quarantined"
	}
	return s
}

// tags are the bar's Mermaid tags, each followed by ", ": crit for a
// failed attempt, active for a quarantined file's, done for an
// interrupted one.
func (b bar) tags() string {
	var t string
	if b.file.Quarantined {
		t += "active, "
	}
	switch {
	case b.attempt.Status.Failed():
		t += "crit, "
	case b.attempt.Status == report.Interrupted:
		t += "done, "
	}
	return t
}

// milliseconds is seconds in whole milliseconds, the precision of a
// report's times.
func milliseconds(seconds float64) int64 {
	return int64(math.Round(seconds * 1000))
}
