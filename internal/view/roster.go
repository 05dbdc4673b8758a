package view

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/timings"
)

// The views of `miles-ci suites`: the roster with what each suite's job
// would select from, one suite's registrations, and the registrations that
// no CI job runs.

// suiteJSON is one suite in `suites --json`.
type suiteJSON struct {
	Name     string   `json:"name"`
	Backend  string   `json:"backend"`
	RunsOn   []string `json:"runs_on"`
	Shards   int      `json:"shards"`
	External bool     `json:"external"`
}

func WriteSuitesJSON(w io.Writer, suites []config.Suite, regs []registry.Registration) error {
	list := []suiteJSON{}
	for _, s := range suites {
		runsOn := s.RunsOn
		if runsOn == nil {
			runsOn = []string{}
		}
		list = append(list, suiteJSON{
			Name: s.Name, Backend: string(s.Backend), RunsOn: runsOn, Shards: s.Shards, External: s.External,
		})
	}
	// The registrations are written one at a time: on a repository of
	// 100,000 test files, encoding the whole document into one buffer (and
	// indenting it into a second) would double the command's peak memory.
	// The bytes are those json.Encoder with a two-space indent writes.
	bw := bufio.NewWriterSize(w, 64<<10)
	var item bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false)
	encode := func(prefix string, v any) error {
		item.Reset()
		enc.SetIndent(prefix, "  ")
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("write JSON: %w", err)
		}
		_, err := bw.Write(bytes.TrimSuffix(item.Bytes(), []byte("\n")))
		return err
	}
	bw.WriteString("{\n  \"suites\": ")
	if err := encode("  ", list); err != nil {
		return err
	}
	bw.WriteString(",\n  \"registrations\": [")
	for i := range regs {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		if err := encode("    ", &regs[i]); err != nil {
			return err
		}
	}
	if len(regs) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// suiteCounts summarises the registrations a suite's job would select
// from: those naming the suite with the suite's own backend.
type suiteCounts struct {
	enabled, disabled, nightly int
	estTotal                   float64
}

func countSuites(cfg *config.Config, reg *registry.Registry) map[string]*suiteCounts {
	out := map[string]*suiteCounts{}
	for _, s := range cfg.Suites {
		out[s.Name] = &suiteCounts{}
	}
	for _, r := range reg.Registrations {
		if _, ok := r.Job(cfg); !ok {
			continue
		}
		c := out[r.Suite]
		if r.Nightly {
			c.nightly++
		}
		if r.Enabled() {
			c.enabled++
			c.estTotal += r.EstTime
		} else {
			c.disabled++
		}
	}
	return out
}

func WriteRoster(w io.Writer, cfg *config.Config, reg *registry.Registry) error {
	counts := countSuites(cfg, reg)
	rows := [][]string{{"SUITE", "BACKEND", "RUNS ON", "SHARDS", "ENABLED", "DISABLED", "NIGHTLY-ONLY", "EST TOTAL"}}
	for _, s := range cfg.Suites {
		c := counts[s.Name]
		name := s.Name
		if s.External {
			name += " (external)"
		}
		rows = append(rows, []string{name, string(s.Backend), strings.Join(s.RunsOn, ","), strconv.Itoa(s.Shards),
			strconv.Itoa(c.enabled), strconv.Itoa(c.disabled), strconv.Itoa(c.nightly), secondsShort(c.estTotal)})
	}
	if err := writeTable(w, rows); err != nil {
		return err
	}
	implicit := 0
	for _, r := range reg.Registrations {
		if r.Implicit {
			implicit++
		}
	}
	_, err := fmt.Fprintf(w, "\n%s (%d implicit) in %s; EST TOTAL sums the enabled ones\n",
		textfmt.CountNoun(len(reg.Registrations), "registration"), implicit, textfmt.CountNoun(len(reg.Files), "file"))
	return err
}

// overBudget reports whether a file measured m seconds runs past the time
// limit its est_time earns (registry.TimeLimit with no per-file timeout):
// the Python runner's timeout rule no longer covers it.
func overBudget(m, est float64) bool { return m > registry.TimeLimit(0, est) }

// measuredCells are the MEASURED and VS EST cells of a registration.
func measuredCells(r registry.Registration, measured timings.Timings) (string, string) {
	m, ok := measured[r.File]
	switch {
	case !ok:
		return "-", "-"
	case overBudget(m, r.EstTime):
		return secondsShort(m), "OVER 1.25x est"
	}
	return secondsShort(m), "ok"
}

// WriteOverBudget lists, after the roster, the registrations that CI runs
// whose file measured more than 1.25 x its est_time.
func WriteOverBudget(w io.Writer, cfg *config.Config, regs []registry.Registration, measured timings.Timings) error {
	var lines []string
	n := 0
	for _, r := range regs {
		if _, ok := r.Job(cfg); !ok || !r.Enabled() {
			continue
		}
		m, ok := measured[r.File]
		if !ok {
			continue
		}
		n++
		if overBudget(m, r.EstTime) {
			lines = append(lines, fmt.Sprintf("  - %s (%s): measured %s, est_time %s", textfmt.OneColumn(r.File), r.Suite, secondsShort(m), secondsShort(r.EstTime)))
		}
	}
	measuredOf := fmt.Sprintf("%d of %s measured", n, textfmt.CountNoun(countEnabledInJobs(cfg, regs), "enabled registration"))
	if len(lines) == 0 {
		_, err := fmt.Fprintf(w, "\n%s; none over 1.25 x est_time (the Python timeout rule)\n", measuredOf)
		return err
	}
	fmt.Fprintf(w, "\n%s; %d over 1.25 x est_time (the Python timeout rule):\n", measuredOf, len(lines))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
	return nil
}

func countEnabledInJobs(cfg *config.Config, regs []registry.Registration) int {
	n := 0
	for _, r := range regs {
		if _, ok := r.Job(cfg); ok && r.Enabled() {
			n++
		}
	}
	return n
}

func WriteSuiteDetail(w io.Writer, name string, suites []config.Suite, regs []registry.Registration, measured timings.Timings) error {
	// Only registrations of the suite's own backend run in its job; without
	// a configured suite, none do.
	var backend config.Backend
	if len(suites) == 1 {
		s := suites[0]
		backend = s.Backend
		ext := ""
		if s.External {
			ext = ", external"
		}
		fmt.Fprintf(w, "%s: %s, runs on %s, %s%s\n", s.Name, s.Backend, strings.Join(s.RunsOn, ","), textfmt.CountNoun(s.Shards, "shard"), ext)
	} else {
		fmt.Fprintf(w, "%s: not in the roster; no CI job runs it\n", name)
	}
	if len(regs) == 0 {
		_, err := fmt.Fprintln(w, "No registrations.")
		return err
	}
	fmt.Fprintln(w)
	rows := [][]string{{"FILE", "BACKEND", "EST", "LABELS", "NIGHTLY", "DISABLED"}}
	if measured != nil {
		rows[0] = []string{"FILE", "BACKEND", "EST", "MEASURED", "VS EST", "LABELS", "NIGHTLY", "DISABLED"}
	}
	runs, total := 0, 0.0
	for _, r := range regs {
		labels := "-"
		if len(r.Labels) > 0 {
			labels = strings.Join(r.Labels, ",")
		}
		if r.Implicit {
			labels = "(implicit)"
		}
		nightly := "-"
		if r.Nightly {
			nightly = "nightly-only"
		}
		disabled := "-"
		if r.Disabled != nil {
			disabled = pyfmt.Repr(*r.Disabled)
		} else if r.Backend == backend {
			runs++
			total += r.EstTime
		}
		row := []string{textfmt.OneColumn(r.File), string(r.Backend), secondsShort(r.EstTime), textfmt.OneColumn(labels), nightly, disabled}
		if measured != nil {
			m, vs := measuredCells(r, measured)
			row = slices.Insert(row, 3, m, vs)
		}
		rows = append(rows, row)
	}
	if err := writeTable(w, rows); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s; %d enabled in the suite's job, est total %s\n", textfmt.CountNoun(len(regs), "registration"), runs, secondsShort(total))
	return err
}

// UnrunWarnings words each registration that no CI job will ever run: its
// suite is not in the roster, or is a suite of another backend.
func UnrunWarnings(unrun []suite.Unrun) []string {
	out := make([]string, len(unrun))
	for i, u := range unrun {
		r := u.Registration
		where := textfmt.OneColumn(r.File)
		if r.Line > 0 {
			where += ":" + strconv.Itoa(r.Line)
		}
		if u.Roster.Name == "" {
			out[i] = fmt.Sprintf("%s: suite %s is not in the roster; no CI job runs it", where, pyfmt.Repr(r.Suite))
		} else {
			out[i] = fmt.Sprintf("%s: suite %s is a %s suite but the registration is %s; no CI job runs it",
				where, pyfmt.Repr(r.Suite), u.Roster.Backend, r.Backend)
		}
	}
	return out
}

// writeTable writes the rows of a suites table, every column left-aligned;
// textfmt.OneColumn has kept each test file's name in its column.
func writeTable(w io.Writer, rows [][]string) error {
	_, err := io.WriteString(w, textfmt.Layout{Left: len(rows[0]), Show: textfmt.AsIs}.Render(rows))
	return err
}

// seconds writes an estimate the short way: 90s, 1.5s.
func secondsShort(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + "s"
}
