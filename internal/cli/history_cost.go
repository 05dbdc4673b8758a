package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/view"
)

// HistoryCostOptions are the flags of `miles-ci history cost`.
type HistoryCostOptions struct {
	historyQuery
	// Config loads the configuration whose suites say how many GPUs a
	// job holds (nil: the Factory's).
	Config func() (*config.Config, error)
}

var _ = historyQuestion(func(f *Factory) *cobra.Command { return newCmdHistoryCost(f, nil) })

func newCmdHistoryCost(f *Factory, runF func(*HistoryCostOptions) error) *cobra.Command {
	opts := &HistoryCostOptions{}
	cmd := &cobra.Command{
		Use:   "cost --from DIR|URL [--suite S] [--cadence C] [--last N | --days D] [--json]",
		Short: "Where the GPU-hours went: useful, or wasted on infra failures, timeouts and retries",
		Long: `Print the GPU-hours of the run history (a directory of run reports, or the
fleet's PostgreSQL database; both give the same output for the same runs):
each attempt's elapsed time and each job's setup, times the GPUs of the
suite's runners (the configuration's gpus key, else a <N>gpu runs_on label;
a CPU suite holds none; a GPU suite whose labels name no count, or that the
configuration does not hold, counts one and is said to). Each GPU-second
falls in one category, useful (passed, failed, setup) or wasted (infra,
timeout, retried, idle setup, preflight: the setup of the jobs a GPU
preflight stopped, and interrupted), so that useful + wasted = total;
then the figures per suite and per cadence, and the files that wasted
the most. See miles-ci help history.`,
		Example: `  miles-ci history cost --from reports/ --cadence nightly --days 30
  miles-ci history cost --from "$MILES_CI_HISTORY_URL" --last 50 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return historyCostRun(cmd.Context(), f, opts)
		},
	}
	opts.historyQuery.bind(cmd.Flags(), "print the answer as JSON (GPU-seconds to the millisecond, and GPU-hours)")
	return cmd
}

func historyCostRun(ctx context.Context, f *Factory, opts *HistoryCostOptions) error {
	filter, err := opts.filter(f.now())
	if err != nil {
		return err
	}
	if opts.From == "" {
		return errNoFrom()
	}
	cfg, err := f.configWith(opts.Config)
	if err != nil {
		return err
	}
	answer := history.NewCostAnswer(history.ConfigGPUs(cfg))
	if err := scanHistory(ctx, f, opts.From, filter, answer); err != nil {
		return err
	}
	res := answer.Result()
	if opts.JSON {
		return writeCostJSON(f, res)
	}
	return writeCostText(f, res)
}

// gpuHours and gpuSeconds write GPU-milliseconds as the answer shows
// them (the CI health page of history site too).
var gpuHours, gpuSeconds = view.GPUHours, view.GPUSeconds

// wastedShare is the wasted part of a cost, as a percentage.
func wastedShare(c *history.Cost) string {
	if c.Total() == 0 {
		return "-"
	}
	return view.Percent(float64(c.Wasted()) / float64(c.Total()))
}

// categoryLabel is a category as the text shows it.
func categoryLabel(c history.Category) string { return strings.ReplaceAll(c.String(), "_", " ") }

// gpusFrom says where a suite's count of GPUs came from, in the text.
var gpusFrom = map[history.GPUSource]string{
	history.GPUsKey:          "gpus",
	history.GPUsLabel:        "runs_on",
	history.GPUsCPU:          "cpu",
	history.GPUsNoCount:      "assumed: no count in runs_on",
	history.GPUsUnconfigured: "assumed: not configured",
}

// writeCostText prints the categories with the total, then the suites,
// the cadences and the files that wasted the most, one printer a table,
// every name from the history inert (textfmt.Table), and what was assumed
// or unknown (costNotes).
func writeCostText(f *Factory, res *history.CostResult) error {
	if res.Jobs == 0 {
		// A job a preflight stopped before its first test has no
		// attempt, and its setup is an answer.
		_, err := fmt.Fprintln(f.Out, noAttempt)
		return err
	}
	_, err := fmt.Fprint(f.Out, costCategoriesText(res)+"\n"+costSuitesText(res.Suites)+"\n"+
		costCadencesText(res.Cadences)+costFilesText(res.Files)+costNotes(res))
	return err
}

// costCategoriesText is the table of the categories, useful then wasted,
// and the line of the total.
func costCategoriesText(res *history.CostResult) string {
	rows := [][]string{{"KIND", "CATEGORY", "GPU-HOURS", "SHARE"}}
	for _, c := range history.Categories {
		rows = append(rows, costCategoryRow(c, &res.Cost))
	}
	total := res.Cost.Total()
	return textfmt.Table(rows, 2) + fmt.Sprintf(
		"total %s GPU-hours of %s: useful %s + wasted %s (%s wasted); in GPU-seconds, %s = %s + %s\n",
		gpuHours(total), textfmt.CountNoun(res.Jobs, "job"), gpuHours(res.Cost.Useful()), gpuHours(res.Cost.Wasted()),
		wastedShare(&res.Cost), gpuSeconds(total), gpuSeconds(res.Cost.Useful()), gpuSeconds(res.Cost.Wasted()))
}

// costCategoryRow is category c's row of cost: useful or wasted, its
// GPU-hours, and its share of the total ("-" of none).
func costCategoryRow(c history.Category, cost *history.Cost) []string {
	kind, share := "useful", "-"
	if c.Wasted() {
		kind = "wasted"
	}
	if total := cost.Total(); total > 0 {
		share = view.Percent(float64(cost.Of(c)) / float64(total))
	}
	return []string{kind, categoryLabel(c), gpuHours(cost.Of(c)), share}
}

// costSuitesText is the table of the suites.
func costSuitesText(suites []*history.SuiteCost) string {
	rows := [][]string{{"SUITE", "BACKEND", "GPUS FROM", "GPUS", "JOBS", "NO SETUP", "USEFUL", "WASTED", "TOTAL", "WASTED%"}}
	for _, s := range suites {
		rows = append(rows, []string{s.Suite, s.Backend, gpusFrom[s.Source], strconv.Itoa(s.GPUs), strconv.Itoa(s.Jobs),
			strconv.Itoa(s.SetupUnknown), gpuHours(s.Cost.Useful()), gpuHours(s.Cost.Wasted()), gpuHours(s.Cost.Total()), wastedShare(&s.Cost)})
	}
	return textfmt.Table(rows, 3)
}

// costCadencesText is the table of the cadences, "-" for runs whose
// cadence the reports did not say.
func costCadencesText(cadences []*history.CadenceCost) string {
	rows := [][]string{{"CADENCE", "JOBS", "NO SETUP", "USEFUL", "WASTED", "TOTAL", "WASTED%"}}
	for _, c := range cadences {
		name := c.Cadence
		if name == "" {
			name = "-"
		}
		rows = append(rows, []string{name, strconv.Itoa(c.Jobs), strconv.Itoa(c.SetupUnknown),
			gpuHours(c.Cost.Useful()), gpuHours(c.Cost.Wasted()), gpuHours(c.Cost.Total()), wastedShare(&c.Cost)})
	}
	return textfmt.Table(rows, 1)
}

// costFilesText is the table of the files that wasted the most, after a
// blank line, and "" when none did.
func costFilesText(files []*history.FileCost) string {
	if len(files) == 0 {
		return ""
	}
	rows := [][]string{{"FILE", "SUITE", "WASTED", "INFRA", "TIMEOUT", "RETRIED", "INTERRUPTED"}}
	for _, file := range files {
		c := &file.Cost
		rows = append(rows, []string{file.File, file.Suite, gpuHours(c.Wasted()), gpuHours(c.Of(history.Infra)),
			gpuHours(c.Of(history.TimedOut)), gpuHours(c.Of(history.Retried)), gpuHours(c.Of(history.Interrupted))})
	}
	return "\n" + textfmt.Table(rows, 2)
}

// costNotes are the lines after the tables, each when it applies: the
// wasteful files not listed, the suites whose GPUs were assumed, and the
// jobs that knew no setup.
func costNotes(res *history.CostResult) string {
	var b strings.Builder
	if res.FilesLeftOut > 0 {
		fmt.Fprintf(&b, "%s more wasted %s GPU-hours (the %d that wasted the most are listed)\n",
			textfmt.CountNoun(res.FilesLeftOut, "file"), gpuHours(res.LeftOutWasted), history.CostTopFiles)
	}
	assumed := 0
	for _, s := range res.Suites {
		if s.Source.Assumed() {
			assumed++
		}
	}
	if assumed > 0 {
		fmt.Fprintf(&b, "%s counted as 1 GPU a job (GPUS FROM: assumed): give a suite gpus: N in the configuration (miles-ci help config)\n",
			textfmt.CountNoun(assumed, "suite"))
	}
	if res.SetupUnknown > 0 {
		fmt.Fprintf(&b, "%s knew no setup (NO SETUP), which costs nothing here: set MILES_CI_JOB_STARTED in the job's first step (miles-ci help migrate)\n",
			textfmt.CountNoun(res.SetupUnknown, "job"))
	}
	return b.String()
}

// costFiguresJSON is a cost in `history cost --json`: GPU-seconds to the
// millisecond by category (exact: useful + wasted = total), and the
// total, useful and wasted GPU-hours as the text rounds them.
type costFiguresJSON struct {
	GPUSeconds costSecondsJSON `json:"gpu_seconds"`
	GPUHours   costHoursJSON   `json:"gpu_hours"`
}

type costSecondsJSON struct {
	Total       json.Number `json:"total"`
	Useful      json.Number `json:"useful"`
	Wasted      json.Number `json:"wasted"`
	Passed      json.Number `json:"passed"`
	Failed      json.Number `json:"failed"`
	Setup       json.Number `json:"setup"`
	Infra       json.Number `json:"infra"`
	Timeout     json.Number `json:"timeout"`
	Retried     json.Number `json:"retried"`
	IdleSetup   json.Number `json:"idle_setup"`
	Preflight   json.Number `json:"preflight"`
	Interrupted json.Number `json:"interrupted"`
}

type costHoursJSON struct {
	Total  json.Number `json:"total"`
	Useful json.Number `json:"useful"`
	Wasted json.Number `json:"wasted"`
}

func costFigures(c *history.Cost) costFiguresJSON {
	s := func(ms int64) json.Number { return json.Number(gpuSeconds(ms)) }
	h := func(ms int64) json.Number { return json.Number(gpuHours(ms)) }
	return costFiguresJSON{
		GPUSeconds: costSecondsJSON{Total: s(c.Total()), Useful: s(c.Useful()), Wasted: s(c.Wasted()),
			Passed: s(c.Of(history.Passed)), Failed: s(c.Of(history.Failed)), Setup: s(c.Of(history.Setup)),
			Infra: s(c.Of(history.Infra)), Timeout: s(c.Of(history.TimedOut)), Retried: s(c.Of(history.Retried)),
			IdleSetup: s(c.Of(history.IdleSetup)), Preflight: s(c.Of(history.Preflight)), Interrupted: s(c.Of(history.Interrupted))},
		GPUHours: costHoursJSON{Total: h(c.Total()), Useful: h(c.Useful()), Wasted: h(c.Wasted())},
	}
}

type costSuiteJSON struct {
	Suite        string            `json:"suite"`
	Backend      string            `json:"backend"`
	GPUs         int               `json:"gpus"`
	GPUsFrom     history.GPUSource `json:"gpus_from"`
	Jobs         int               `json:"jobs"`
	SetupUnknown int               `json:"setup_unknown"`
	costFiguresJSON
}

type costCadenceJSON struct {
	Cadence      string `json:"cadence"`
	Jobs         int    `json:"jobs"`
	SetupUnknown int    `json:"setup_unknown"`
	costFiguresJSON
}

type costFileJSON struct {
	File  string `json:"file"`
	Suite string `json:"suite"`
	costFiguresJSON
}

type costJSON struct {
	Jobs         int `json:"jobs"`
	Attempts     int `json:"attempts"`
	SetupUnknown int `json:"setup_unknown"`
	costFiguresJSON
	Suites       []costSuiteJSON   `json:"suites"`
	Cadences     []costCadenceJSON `json:"cadences"`
	Files        []costFileJSON    `json:"top_wasted_files"`
	FilesLeftOut struct {
		Files            int         `json:"files"`
		WastedGPUSeconds json.Number `json:"wasted_gpu_seconds"`
	} `json:"files_left_out"`
}

func writeCostJSON(f *Factory, res *history.CostResult) error {
	out := costJSON{Jobs: res.Jobs, Attempts: res.Attempts, SetupUnknown: res.SetupUnknown, costFiguresJSON: costFigures(&res.Cost),
		Suites: []costSuiteJSON{}, Cadences: []costCadenceJSON{}, Files: []costFileJSON{}}
	for _, s := range res.Suites {
		out.Suites = append(out.Suites, costSuiteJSON{Suite: s.Suite, Backend: s.Backend, GPUs: s.GPUs, GPUsFrom: s.Source,
			Jobs: s.Jobs, SetupUnknown: s.SetupUnknown, costFiguresJSON: costFigures(&s.Cost)})
	}
	for _, c := range res.Cadences {
		out.Cadences = append(out.Cadences, costCadenceJSON{Cadence: c.Cadence, Jobs: c.Jobs, SetupUnknown: c.SetupUnknown,
			costFiguresJSON: costFigures(&c.Cost)})
	}
	for _, file := range res.Files {
		out.Files = append(out.Files, costFileJSON{File: file.File, Suite: file.Suite, costFiguresJSON: costFigures(&file.Cost)})
	}
	out.FilesLeftOut.Files = res.FilesLeftOut
	out.FilesLeftOut.WastedGPUSeconds = json.Number(gpuSeconds(res.LeftOutWasted))
	data, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f.Out, "%s\n", data)
	return err
}
