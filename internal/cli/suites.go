package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
)

// SuitesOptions holds the flags of `miles-ci suites`.
type SuitesOptions struct {
	Factory *Factory
	Suite   string // --suite: list this suite's registrations
	JSON    bool   // --json: the roster and registrations as JSON (SPEC §7)
}

// NewCmdSuites builds `miles-ci suites`: the roster of suites with how many
// registrations each holds, or one suite's registrations.
func NewCmdSuites(f *Factory, runF func(*SuitesOptions) error) *cobra.Command {
	opts := &SuitesOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "suites",
		Short: "List the suites and their registrations",
		Long: `List every configured suite with its backend, runners, shard count and the
registrations it holds, then warn (on stderr) about registrations that no CI
job runs: their suite is not configured, or belongs to another backend.
With --suite, list that suite's registrations instead; with --json too, the
JSON holds only that suite and its registrations.`,
		Example: `  miles-ci suites
  miles-ci suites --suite stage-c-8-gpu-h100
  miles-ci suites --json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if runF != nil {
				return runF(opts)
			}
			return suitesRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Suite, "suite", "", "list the registrations of this `SUITE`")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the suites and registrations as JSON")
	return cmd
}

func suitesRun(opts *SuitesOptions) error {
	f := opts.Factory
	cfg, reg, err := f.Collect()
	if err != nil {
		return reportCollectError(f, err)
	}
	suites := cfg.Suites
	regs := reg.Registrations
	if opts.Suite != "" {
		suites, regs = nil, nil
		if s, ok := cfg.Suite(opts.Suite); ok {
			suites = []config.Suite{s}
		}
		for _, r := range reg.Registrations {
			if r.Suite == opts.Suite {
				regs = append(regs, r)
			}
		}
		if suites == nil && regs == nil {
			return fmt.Errorf("unknown suite %s; configured suites: %s", pyfmt.Repr(opts.Suite), strings.Join(suiteNames(cfg.Suites), ", "))
		}
	}

	switch {
	case opts.JSON:
		err = writeSuitesJSON(f.Out, suites, regs)
	case opts.Suite != "":
		err = writeSuiteDetail(f.Out, opts.Suite, suites, regs)
	default:
		err = writeRoster(f.Out, cfg, reg)
	}
	if err != nil {
		return err
	}
	for _, w := range rosterWarnings(cfg, regs) {
		fmt.Fprintln(f.ErrOut, "warning: "+w)
	}
	return nil
}

func suiteNames(suites []config.Suite) []string {
	out := make([]string, len(suites))
	for i, s := range suites {
		out[i] = s.Name
	}
	return out
}

// suiteJSON is one suite in `suites --json`.
type suiteJSON struct {
	Name     string   `json:"name"`
	Backend  string   `json:"backend"`
	RunsOn   []string `json:"runs_on"`
	Shards   int      `json:"shards"`
	External bool     `json:"external"`
}

func writeSuitesJSON(w io.Writer, suites []config.Suite, regs []registry.Registration) error {
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
		s, ok := cfg.Suite(r.Suite)
		if !ok || s.Backend != r.Backend {
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

func writeRoster(w io.Writer, cfg *config.Config, reg *registry.Registry) error {
	counts := countSuites(cfg, reg)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SUITE\tBACKEND\tRUNS ON\tSHARDS\tENABLED\tDISABLED\tNIGHTLY-ONLY\tEST TOTAL")
	for _, s := range cfg.Suites {
		c := counts[s.Name]
		name := s.Name
		if s.External {
			name += " (external)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\n", name, s.Backend, strings.Join(s.RunsOn, ","),
			s.Shards, c.enabled, c.disabled, c.nightly, seconds(c.estTotal))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	implicit := 0
	for _, r := range reg.Registrations {
		if r.Implicit {
			implicit++
		}
	}
	_, err := fmt.Fprintf(w, "\n%s (%d implicit) in %s; EST TOTAL sums the enabled ones\n",
		countNoun(len(reg.Registrations), "registration"), implicit, countNoun(len(reg.Files), "file"))
	return err
}

func writeSuiteDetail(w io.Writer, name string, suites []config.Suite, regs []registry.Registration) error {
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
		fmt.Fprintf(w, "%s: %s, runs on %s, %s%s\n", s.Name, s.Backend, strings.Join(s.RunsOn, ","), countNoun(s.Shards, "shard"), ext)
	} else {
		fmt.Fprintf(w, "%s: not in the roster; no CI job runs it\n", name)
	}
	if len(regs) == 0 {
		_, err := fmt.Fprintln(w, "No registrations.")
		return err
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FILE\tBACKEND\tEST\tLABELS\tNIGHTLY\tDISABLED")
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(r.File), r.Backend, seconds(r.EstTime), cell(labels), nightly, disabled)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%s; %d enabled in the suite's job, est total %s\n", countNoun(len(regs), "registration"), runs, seconds(total))
	return err
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// rosterWarnings names each registration that no CI job will ever run: its
// suite is not configured, or belongs to another backend.
func rosterWarnings(cfg *config.Config, regs []registry.Registration) []string {
	var out []string
	for _, r := range regs {
		where := cell(r.File)
		if r.Line > 0 {
			where += ":" + strconv.Itoa(r.Line)
		}
		s, ok := cfg.Suite(r.Suite)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s: suite %s is not in the roster; no CI job runs it", where, pyfmt.Repr(r.Suite)))
		case s.Backend != r.Backend:
			out = append(out, fmt.Sprintf("%s: suite %s is a %s suite but the registration is %s; no CI job runs it",
				where, pyfmt.Repr(r.Suite), s.Backend, r.Backend))
		}
	}
	return out
}

// seconds writes an estimate the short way: 90s, 1.5s.
func seconds(v float64) string {
	return strconv.FormatFloat(v, 'f', -1, 64) + "s"
}

// cell keeps a value on one line and in one column of a table.
var cellEscaper = strings.NewReplacer("\t", `\t`, "\n", `\n`, "\r", `\r`)

func cell(s string) string { return cellEscaper.Replace(s) }
