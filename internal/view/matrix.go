package view

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// ShardMatrixJSON is the shard_matrix output: one compact JSON object, each
// stage's matrix under its name, keys sorted.
func ShardMatrixJSON(stages []suite.StageMatrix) string {
	m := make(map[string]suite.Matrix, len(stages))
	for _, s := range stages {
		m[s.Suite.Name] = s.Matrix
	}
	data, err := json.Marshal(m)
	if err != nil {
		// A map of plain structs always encodes.
		panic(err)
	}
	return string(data)
}

// stageBooking is what one stage's matrix books, for the explanation and
// the step summary.
type stageBooking struct {
	name, runsOn    string
	booked, roster  int
	longest         float64 // the longest listed shard's est_time, seconds
	tests           int
	gpus            int // per runner, 0 when the runner labels do not say
	longestKnown    bool
	emptyNotStarted int
	planned         bool
	// skipped is a stage the policy skips: its job never starts, so its
	// matrix, whatever it lists, books no runner.
	skipped bool
}

// gpuCount reads the GPUs of a runner from the suite (its gpus key or
// runs_on label `8gpu`, config.Suite.GPUsNeeded) or, failing that, from
// the stage name (`stage-c-8-gpu-h100`).
var gpuName = regexp.MustCompile(`-(\d+)-gpu-`)

func gpuCount(s config.Suite) int {
	if n := s.GPUsNeeded(); n > 0 {
		return n
	}
	if m := gpuName.FindStringSubmatch(s.Name); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 0
}

// bookings is what each stage's matrix books, given the stages the policy
// skips (skipped_stages): a skipped stage's job does not start, so the
// placeholder shard its matrix keeps books nothing.
func bookings(stages []suite.StageMatrix, skipped []string) []stageBooking {
	out := make([]stageBooking, len(stages))
	for i, s := range stages {
		b := stageBooking{name: s.Suite.Name, runsOn: strings.Join(s.Suite.RunsOn, ","),
			booked: len(s.Matrix.Include), roster: max(s.Suite.Shards, 1),
			gpus: gpuCount(s.Suite), planned: s.Plan != nil}
		if slices.Contains(skipped, s.Suite.Name) {
			b.skipped, b.booked = true, 0
			out[i] = b
			continue
		}
		if p := s.Plan; p != nil {
			b.longestKnown = true
			for _, e := range s.Matrix.Include {
				sh := p.Shards[e.PartitionID]
				b.tests += len(sh.Tests)
				b.longest = max(b.longest, shardSeconds(p, sh.TimedTotal, sh.EstTotal))
			}
			b.emptyNotStarted = b.roster - b.booked
		}
		out[i] = b
	}
	return out
}

// shardSeconds is what a shard was balanced on: measured where the plan
// had timings, else est_time.
func shardSeconds(p *suite.Plan, timed, est float64) float64 {
	if p.Basis != nil {
		return timed
	}
	return est
}

func minutes(b stageBooking) string {
	if !b.longestKnown || b.skipped {
		return "-"
	}
	return fmt.Sprintf("%.1f", b.longest/60)
}

func testsCell(b stageBooking) string {
	if !b.planned || b.skipped {
		return "-"
	}
	return strconv.Itoa(b.tests)
}

// bookedLine is the one-line total of what the matrices book: the shards
// that start, and the GPU slots of those that do not (every shard of a
// skipped stage, and the empty shards of the others).
func bookedLine(bs []stageBooking) string {
	var booked, roster, empty, skippedStages, skippedShards, slots int
	for _, b := range bs {
		booked += b.booked
		roster += b.roster
		if b.skipped {
			skippedStages++
			skippedShards += b.roster
			slots += b.roster * b.gpus
			continue
		}
		empty += b.emptyNotStarted
		slots += b.emptyNotStarted * b.gpus
	}
	notStarted := textfmt.CountNoun(empty, "empty shard")
	if skippedStages > 0 {
		notStarted = fmt.Sprintf("%s of %s and %s", textfmt.CountNoun(skippedShards, "shard"),
			textfmt.CountNoun(skippedStages, "skipped stage"), notStarted)
	}
	return fmt.Sprintf("GPU runners booked: %d of %d (%s not started, %s)", booked, roster,
		notStarted, textfmt.CountNoun(slots, "GPU slot"))
}

// ShardMatrixMarkdown is the step-summary table of what the matrices book,
// given the stages the policy skips (which book nothing). The stage names
// and runner labels come from the configuration, which a pull request can
// change: they are rendered inert (textfmt.Markdown).
func ShardMatrixMarkdown(stages []suite.StageMatrix, skipped []string) string {
	bs := bookings(stages, skipped)
	var b strings.Builder
	b.WriteString("### GPU shards booked\n\n")
	b.WriteString("| Stage | Runner labels | Shards booked / roster | Longest shard (est. min) | Tests |\n")
	b.WriteString("|---|---|---:|---:|---:|\n")
	for _, s := range bs {
		note := ""
		if s.skipped {
			note = " (skipped)"
		}
		fmt.Fprintf(&b, "| %s | %s | %d / %d%s | %s | %s |\n", textfmt.MarkdownCode(s.name), textfmt.Markdown(s.runsOn),
			s.booked, s.roster, note, minutes(s), testsCell(s))
	}
	fmt.Fprintf(&b, "\n%s\n", bookedLine(bs))
	return b.String()
}

// shardMatrixText is the explanation's account of the same.
func shardMatrixText(stages []suite.StageMatrix, skipped []string) string {
	bs := bookings(stages, skipped)
	rows := make([][]string, len(bs))
	for i, s := range bs {
		ids := make([]string, len(stages[i].Matrix.Include))
		for j, e := range stages[i].Matrix.Include {
			ids[j] = strconv.Itoa(e.PartitionID)
		}
		text := fmt.Sprintf("%d of %d shards (%s), on %s: every shard, as on every event but a pull request",
			s.booked, s.roster, strings.Join(ids, ", "), s.runsOn)
		switch {
		case s.skipped:
			text = fmt.Sprintf("0 of %d shards: the stage is skipped, on %s", s.roster, s.runsOn)
		case s.planned:
			text = fmt.Sprintf("%d of %d shards (%s), longest %s est. min, %s, on %s",
				s.booked, s.roster, strings.Join(ids, ", "), minutes(s), textfmt.CountNoun(s.tests, "test"), s.runsOn)
		}
		rows[i] = []string{textfmt.LineStart(s.name), text}
	}
	return explainLines(rows, "  ") + "  " + bookedLine(bs) + "\n"
}
