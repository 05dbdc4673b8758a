package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/history"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/report"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/timings"
)

// historyQueryTimeout bounds a whole question to the database (connect,
// scan, answer): far beyond a million rows' few seconds, short of a hung
// job.
const historyQueryTimeout = 10 * time.Minute

// NewCmdHistory builds `miles-ci history`, the commands on the run
// history: every attempt of every file, in a directory of run reports or
// in the fleet's PostgreSQL database (see `miles-ci help history`).
func NewCmdHistory(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "history",
		Short: "Ask the run history (a directory of reports or the fleet's database); backfill the database",
		Args:  groupArgs,
		RunE:  groupRunE,
	}
	cmd.AddCommand(newCmdHistoryImport(f, nil))
	for _, q := range historyQuestions {
		cmd.AddCommand(q(f))
	}
	return cmd
}

// historyQuestions are the questions `miles-ci history` asks of the run
// history. Each file history_<question>.go registers its own, as a lint
// rule does: a new question is its answer in internal/history (a
// history.Answer), its file here, its tests and its section in
// history.md, and no list to keep elsewhere. Cobra sorts the commands, so
// the order of registration never shows.
var historyQuestions []func(*Factory) *cobra.Command

// historyQuestion registers the constructor of a question's command.
func historyQuestion(newCmd func(*Factory) *cobra.Command) bool {
	historyQuestions = append(historyQuestions, newCmd)
	return true
}

// historyFilterFlags are the flags that narrow the rows a question reads.
type historyFilterFlags struct {
	Suite   string
	Cadence string
	Last    int
	Days    int
}

func (h *historyFilterFlags) bind(fs *pflag.FlagSet, suite bool) {
	if suite {
		flagkind.String(fs, &h.Suite, "suite", "", "only the runs of `SUITE`", flagkind.Choice)
	}
	flagkind.String(fs, &h.Cadence, "cadence", "", "only the runs under `CADENCE` (regular, nightly, weekly, release)", flagkind.Choice)
	flagkind.Set(fs.VarPF(countValue{&h.Last}, "last", "", "only the latest `N` runs (a workflow run's shards are one run)"), flagkind.Number)
	flagkind.Set(fs.VarPF(countValue{&h.Days}, "days", "", "only the runs that started in the last `D` days"), flagkind.Number)
}

// countValue is --last and --days: a count of at least 1. Left out, the
// flag narrows nothing; a 0 would mean the same, so the whole history
// would answer a question asked about none of it: it is refused.
type countValue intValue

func (v countValue) String() string { return intValue(v).String() }
func (v countValue) Type() string   { return "int" }
func (v countValue) Set(s string) error {
	n := 0
	if err := (intValue{&n}).Set(s); err != nil || n < 1 {
		return fmt.Errorf("%q is not a whole number >= 1 (leave the flag out to read the whole history)", s)
	}
	*v.p = n
	return nil
}

// maxHistoryDays bounds --days: a century covers any history, and keeps
// the window's start a real date.
const maxHistoryDays = 36525

// historyQuery are the flags of a question to the history: where it is
// (--from), which rows (the filter flags) and --json.
type historyQuery struct {
	From string
	historyFilterFlags
	JSON bool
}

// bind declares --from, the filter flags and --json (described by
// jsonUsage).
func (q *historyQuery) bind(fs *pflag.FlagSet, jsonUsage string) {
	flagkind.String(fs, &q.From, "from", "", "the history at `DIR|URL`: a directory of run reports, or a PostgreSQL URL", flagkind.Text)
	q.historyFilterFlags.bind(fs, true)
	fs.BoolVar(&q.JSON, "json", false, jsonUsage)
}

// filter checks the flags and returns the filter they make at now.
func (h *historyFilterFlags) filter(now time.Time) (history.Filter, error) {
	if h.Cadence != "" && !policy.ValidCadence(h.Cadence) {
		return history.Filter{}, usageErrorf("--cadence: unknown cadence %q; expected one of %s", h.Cadence, strings.Join(config.Cadences, ", "))
	}
	if h.Last > 0 && h.Days > 0 {
		return history.Filter{}, usageErrorf("--last counts runs and --days counts days; give one of them")
	}
	if h.Days > maxHistoryDays {
		return history.Filter{}, usageErrorf("--days %d: at most %d (a century)", h.Days, maxHistoryDays)
	}
	f := history.Filter{Suite: h.Suite, Cadence: h.Cadence, LastRuns: h.Last}
	if h.Days > 0 {
		f.Since = now.UTC().AddDate(0, 0, -h.Days)
	}
	return f, nil
}

// openHistory opens the history from names: a PostgreSQL URL (one), or
// directories and files of run reports. The reader's Close is the
// caller's. What a scan skips is warned about by warnSkipped.
func openHistory(ctx context.Context, from string) (history.Reader, error) {
	if history.IsURL(from) {
		return history.OpenPostgres(ctx, from, history.ForReading)
	}
	if err := checkReportsPath(from); err != nil {
		return nil, err
	}
	return &history.Dir{Paths: []string{from}}, nil
}

// checkReportsPath refuses a --from that names nothing on disk and looks
// like a connection string mistyped (POSTGRES://, postgress://,
// host=… password=…): such a value is a secret, and the directory
// reader's error would print it whole. Nothing of it is printed.
func checkReportsPath(from string) error {
	if _, err := os.Stat(from); err == nil {
		return nil
	}
	if fsutil.LooksLikeConnString(from) {
		return usageErrorf("--from is neither a directory or file of run reports nor a postgres:// or postgresql:// URL (the value is not shown: it may hold a password)")
	}
	return nil
}

// warnSkipped says what a scan left out, one line per reason: the files
// of a directory, the rows of a database that no run writes.
func warnSkipped(f *Factory, r history.Reader, names string) {
	if p, ok := r.(*history.Postgres); ok {
		for _, w := range p.Warnings() {
			fmt.Fprintf(f.ErrOut, "warning: history: %s\n", textfmt.OneLine(w))
		}
		return
	}
	d, ok := r.(*history.Dir)
	if !ok {
		return
	}
	if d.Skipped.NoFiles {
		fmt.Fprintf(f.ErrOut, "warning: history: no *.json file in %s\n", textfmt.OneLine(names))
	}
	for _, w := range d.Skipped.Warnings() {
		fmt.Fprintf(f.ErrOut, "warning: history: %s\n", textfmt.OneLine(w))
	}
}

// errNoFrom is the usage error of a history question asked without
// --from, which every question needs.
func errNoFrom() error {
	return usageErrorf("--from is required: a directory of run reports or a PostgreSQL URL")
}

// scanHistory asks the history at from: the rows that filter and the
// answer keep go to the answer, within historyQueryTimeout, and it warns
// about what the scan skipped (a directory's files, a database's rows).
func scanHistory(ctx context.Context, f *Factory, from string, filter history.Filter, answer history.Answer) error {
	if from == "" {
		return errNoFrom()
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, historyQueryTimeout)
	defer cancel()
	r, err := openHistory(ctx, from)
	if err != nil {
		return historyError(err)
	}
	defer r.Close()
	if err := r.Scan(ctx, answer.Filter(filter), answer.Add); err != nil {
		return historyError(err)
	}
	warnSkipped(f, r, from)
	return nil
}

// noAttempt is what a question prints when the history has no row it
// keeps: an answer (nothing failed), not an error.
const noAttempt = "no attempt in the history matches"

// historyError says what failed, never the URL (see history.Error).
func historyError(err error) error {
	return fmt.Errorf("history: %w", err)
}

// secs3 prints seconds to the millisecond, the precision of a report.
func secs3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func writeTimingsText(f *Factory, files []*history.FileTiming) error {
	if len(files) == 0 {
		_, err := fmt.Fprintln(f.Out, "no passed attempt in the history matches")
		return err
	}
	rows := [][]string{{"FILE", "SUITE", "BACKEND", "RUNS", "MEDIAN", "P90", "MAX"}}
	for _, t := range files {
		rows = append(rows, []string{t.File, t.Suite, t.Backend,
			strconv.Itoa(t.Runs), secs3(t.Median), secs3(t.P90), secs3(t.Max)})
	}
	_, err := fmt.Fprint(f.Out, textfmt.Table(rows, 3))
	return err
}

func writeTimingsJSON(f *Factory, files []*history.FileTiming) error {
	if files == nil {
		files = []*history.FileTiming{}
	}
	data, err := json.MarshalIndent(struct {
		Files []*history.FileTiming `json:"files"`
	}{files}, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f.Out, "%s\n", data)
	return err
}

// writeQuantileTimings writes the timings file of each file's q-quantile,
// measured by the suite that ran it. A timings file holds one figure per
// file: a file two suites ran is an error naming them (--suite picks one).
func writeQuantileTimings(path string, files []*history.FileTiming, q float64) error {
	d := &timings.Document{Seconds: timings.Timings{}, Sources: map[string]timings.Source{}}
	for _, t := range files {
		if prev, ok := d.Sources[t.File]; ok {
			return fmt.Errorf("write timings %q: %s was run by suite %s (%s) and by suite %s (%s), and a timings file holds one figure per file; give --suite",
				path, t.File, prev.Suite, prev.Backend, t.Suite, t.Backend)
		}
		v := report.Seconds(t.Quantile(q))
		if v > timings.MaxSeconds {
			return fmt.Errorf("write timings %q: %s took %s seconds, more than a timings file may hold (%d)", path, t.File, secs3(v), timings.MaxSeconds)
		}
		d.Seconds[t.File] = v
		d.Sources[t.File] = timings.Source{Suite: t.Suite, Backend: config.Backend(t.Backend)}
	}
	data, err := d.Marshal()
	if err != nil {
		return err
	}
	if err := fsutil.WriteFile(path, data); err != nil {
		return fmt.Errorf("write timings %q: %w", path, err)
	}
	return nil
}

// HistoryImportOptions are the flags of `miles-ci history import`.
type HistoryImportOptions struct {
	To     string
	Inputs []string
}

func newCmdHistoryImport(f *Factory, runF func(*HistoryImportOptions) error) *cobra.Command {
	opts := &HistoryImportOptions{}
	cmd := &cobra.Command{
		Use:   "import --to URL REPORT|DIR...",
		Short: "Add the attempts of run reports to the fleet's database; what is there already stays",
		Long: `Add every attempt of the run reports given (files, or directories searched
for *.json) to the run history in the PostgreSQL database at --to (default:
$MILES_CI_HISTORY_URL). A row already there is left as it is, so importing a
report again, or one whose run wrote some of its rows before the database
went away, adds exactly the rows that are missing. Prints how many rows were
added and how many were there already; a row the database refuses (see
miles-ci help history) is left out with a warning, and the others written.`,
		Example: `  gh run download 12345 -D reports && miles-ci history import --to "$MILES_CI_HISTORY_URL" reports/`,
		Args:    needInputs("run reports (run --json-report) or directories of them"),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			if runF != nil {
				return runF(opts)
			}
			return historyImportRun(cmd.Context(), f, opts)
		},
	}
	flagkind.String(cmd.Flags(), &opts.To, "to", "", "the PostgreSQL database `URL` (default: $"+envHistoryURL+")", flagkind.Text)
	return cmd
}

// importBatch is how many rows import sends at once.
const importBatch = 5000

func historyImportRun(ctx context.Context, f *Factory, opts *HistoryImportOptions) error {
	to := opts.To
	if to == "" && f.Getenv != nil {
		to = f.Getenv(envHistoryURL)
	}
	if to == "" {
		return usageErrorf("--to is required (or %s): the PostgreSQL database to import into", envHistoryURL)
	}
	if !history.IsURL(to) {
		return usageErrorf("--to must be a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DATABASE)")
	}
	if ctx == nil {
		ctx = context.Background()
	}
	store, err := history.OpenPostgres(ctx, to, history.ForWriting)
	if err != nil {
		return historyError(err)
	}
	defer store.Close()
	src := &history.Dir{Paths: opts.Inputs}
	var batch []history.Row
	added, total := 0, 0
	flush := func() error {
		n, err := store.Write(ctx, batch)
		added += n
		total += len(batch)
		batch = batch[:0]
		return err
	}
	// Every row: the attempts and the stop rows of jobs a preflight
	// stopped.
	err = src.Scan(ctx, history.Filter{Stops: true}, func(r *history.Row) error {
		batch = append(batch, *r)
		if len(batch) == importBatch {
			return flush()
		}
		return nil
	})
	if err == nil && len(batch) > 0 {
		err = flush()
	}
	warnSkipped(f, src, strings.Join(opts.Inputs, " "))
	warnSkipped(f, store, "")
	if err != nil {
		return historyError(err)
	}
	refused := ""
	if n := store.Refused.Count; n > 0 {
		refused = fmt.Sprintf(", %d refused", n)
		total -= n
	}
	_, err = fmt.Fprintf(f.Out, "history import: %s added, %d already present%s, from %s\n",
		textfmt.CountNoun(added, "row"), total-added, refused, textfmt.CountNoun(src.Reports, "report"))
	return err
}
