package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/drain"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/ghapi"
	"github.com/radixark/miles-ci/internal/hostcheck"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// drainFlags are the drain's flags, on report hosts and history hosts
// alike (see `miles-ci help hosts`).
type drainFlags struct {
	Drain   bool
	Apply   bool
	Restore string
	Labels  []string
	// MaxDrain and Days are 0 when not given (drain.DefaultMaxDrain,
	// defaultDrainDays).
	MaxDrain int
	Days     int
	Log      string
	Repo     string
	Org      string
}

// defaultDrainDays is --days' default with --drain: a runner is drained
// on what it did lately, not on a failure of last month that someone has
// fixed since.
const defaultDrainDays = 2

// drainTimeout bounds the drain's whole conversation with the API.
const drainTimeout = 5 * time.Minute

// maxDrainLog bounds the drain log read back: years of records.
const maxDrainLog = 16 << 20

// bind declares the drain's flags; days declares --days, which history
// hosts has already as its filter (and the drain takes from there).
func (d *drainFlags) bind(fs *pflag.FlagSet, days bool) {
	fs.BoolVar(&d.Drain, "drain", false, "plan the draining of the suspect runners and print it (a dry run unless --apply)")
	fs.BoolVar(&d.Apply, "apply", false, "with --drain: remove the planned labels through the GitHub API (needs --drain-log)")
	flagkind.String(fs, &d.Restore, "restore", "", "give the labels drained from runner `NAME` back (from --drain-log, or --label)", flagkind.Text)
	flagkind.StringArray(fs, &d.Labels, "label", "", "with --restore: a `LABEL` to give back (repeatable), instead of the drain log's", flagkind.Text)
	flagkind.Set(fs.VarPF(drainCount{&d.MaxDrain, 1 << 20}, "max-drain", "", "with --drain: at most `N` runners per label set (default 1)"), flagkind.Number)
	if days {
		flagkind.Set(fs.VarPF(drainCount{&d.Days, maxHistoryDays}, "days", "", "with --drain: only the evidence of the last `D` days (default 2)"), flagkind.Number)
	}
	flagkind.String(fs, &d.Log, "drain-log", "", "add a JSON record of each change to `FILE` (JSON Lines)", flagkind.Output)
	flagkind.String(fs, &d.Repo, "repo", "", "the runners of repository `OWNER/NAME` (default GITHUB_REPOSITORY)", flagkind.Text)
	flagkind.String(fs, &d.Org, "org", "", "the runners of organization `ORG` instead", flagkind.Text)
}

// drainCount is --max-drain and report hosts' --days: a whole number from
// 1 to max. Left out it is 0, and the default applies; a 0 given would
// drain without the limit or the window, and is refused.
type drainCount struct {
	p   *int
	max int
}

func (v drainCount) String() string { return intValue{v.p}.String() }
func (v drainCount) Type() string   { return "int" }
func (v drainCount) Set(s string) error {
	n := 0
	if err := (intValue{&n}).Set(s); err != nil || n < 1 || n > v.max {
		return fmt.Errorf("%q is not a whole number >= 1 and <= %d", s, v.max)
	}
	*v.p = n
	return nil
}

// on reports whether the command drains or restores instead of only
// answering.
func (d *drainFlags) on() bool { return d.Drain || d.Restore != "" }

// check refuses the flags' combinations that mean nothing; days is
// whether --days was given to a command whose --days is the drain's own.
func (d *drainFlags) check(asJSON bool, days bool) error {
	switch {
	case d.Drain && d.Restore != "":
		return usageErrorf("--drain and --restore: give one of them")
	case !d.on() && (d.Apply || d.MaxDrain > 0 || d.Log != "" || d.Repo != "" || d.Org != "" || len(d.Labels) > 0 || days):
		return usageErrorf("--apply, --max-drain, --days, --drain-log, --repo, --org and --label go with --drain or --restore")
	case !d.on():
		return nil
	case asJSON:
		return usageErrorf("--json: the drain prints its plan as text; leave out --json")
	case d.Repo != "" && d.Org != "":
		return usageErrorf("--repo and --org: the runners are a repository's or an organization's; give one of them")
	case d.Restore != "" && (d.Apply || d.MaxDrain > 0 || days):
		return usageErrorf("--restore gives labels back at once; --apply, --max-drain and --days go with --drain")
	case d.Restore != "" && len(d.Labels) == 0 && d.Log == "":
		return usageErrorf("--restore needs the labels to give back: --drain-log FILE (the drain's records) or --label LABEL")
	case d.Drain && len(d.Labels) > 0:
		return usageErrorf("--label goes with --restore")
	case d.Apply && d.Log == "":
		return usageErrorf("--apply needs --drain-log FILE: every change is recorded so that it can be undone")
	}
	return nil
}

// days is the drain's window in days.
func (d *drainFlags) days() int {
	if d.Days > 0 {
		return d.Days
	}
	return defaultDrainDays
}

// window returns the test of whether a row's job started in the drain's
// window ending at now. A job whose start is unknown (a report written
// before reports said) is outside it: evidence of unknown age drains
// nothing.
func (d *drainFlags) window(now time.Time) func(hostcheck.Row) bool {
	since := now.UTC().AddDate(0, 0, -d.days())
	return func(r hostcheck.Row) bool {
		t, err := time.Parse(time.RFC3339Nano, r.Job.Started)
		return err == nil && !t.Before(since)
	}
}

// client is the API client the environment and the flags make.
func (d *drainFlags) client(f *Factory) (*ghapi.Client, error) {
	var scope ghapi.Scope
	var err error
	switch repo := f.Getenv("GITHUB_REPOSITORY"); {
	case d.Org != "":
		scope, err = ghapi.OrgScope(d.Org)
	case d.Repo != "":
		scope, err = ghapi.RepoScope(d.Repo)
	case repo != "":
		scope, err = ghapi.RepoScope(repo)
	default:
		return nil, usageErrorf("the runners to drain are a repository's or an organization's: give --repo OWNER/NAME or --org ORG (GITHUB_REPOSITORY is not set)")
	}
	if err != nil {
		return nil, usageErrorf("%s", textfmt.OneLine(err.Error()))
	}
	token := f.Getenv("GH_TOKEN")
	if token == "" {
		token = f.Getenv("GITHUB_TOKEN")
	}
	return ghapi.New(f.Getenv("GITHUB_API_URL"), token, scope)
}

// hostsDrain drains (or restores) for report hosts and history hosts;
// recent is the analysis of the rows in the drain's window (nil for
// --restore).
func hostsDrain(ctx context.Context, f *Factory, d *drainFlags, recent *hostcheck.Result, verb string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, drainTimeout)
	defer cancel()
	if d.Restore != "" {
		return drainRestore(ctx, f, d)
	}
	return drainPlanRun(ctx, f, d, recent, verb)
}

// suspectsOf are the suspect hosts of res, each with the suites its jobs
// ran.
func suspectsOf(res *hostcheck.Result) []drain.Suspect {
	var out []drain.Suspect
	for _, h := range res.Hosts {
		if !h.Suspect {
			continue
		}
		s := drain.Suspect{Host: h.Key, Runner: h.Runner, Evidence: h.Evidence}
		for _, j := range res.Jobs {
			if j.Host.Key() == h.Key {
				s.Suites = append(s.Suites, j.Job.Suite)
			}
		}
		out = append(out, s)
	}
	return out
}

// drainPlanRun plans the drain of the suspect hosts of recent and prints
// the plan, or with --apply carries it out (printDrainPlan).
func drainPlanRun(ctx context.Context, f *Factory, d *drainFlags, recent *hostcheck.Result, verb string) error {
	header := drainHeader(d.Apply, d.days())
	suspects := suspectsOf(recent)
	if len(suspects) == 0 {
		_, err := fmt.Fprint(f.Out, header+"  no suspect host: nothing to drain\n")
		return err
	}
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	client, err := d.client(f)
	if err != nil {
		return err
	}
	var logData []byte
	if d.Apply {
		if logData, _, err = openDrainLog(d.Log, "nothing drained"); err != nil {
			return err
		}
	}
	runners, err := client.Runners(ctx)
	if err != nil {
		return fmt.Errorf("drain: nothing drained: %w", err)
	}
	plan := drain.Decide(drain.Input{Suspects: suspects, Runners: runners, LabelSets: labelSets(cfg), MaxDrain: d.maxDrain()})
	fmt.Fprint(f.Out, header)
	return printDrainPlan(ctx, f, d, client, plan, len(runners), logData, verb)
}

// drainHeader is the line before the plan: whether it is applied, and on
// the evidence of how many days.
func drainHeader(apply bool, days int) string {
	mode := "dry run: --apply removes the labels"
	if apply {
		mode = "applied"
	}
	return fmt.Sprintf("\nDrain (%s), on the evidence of the last %s:\n", mode, textfmt.CountNoun(days, "day"))
}

// labelSets are the runs_on labels of the configuration's suites, by
// suite name.
func labelSets(cfg *config.Config) map[string][]string {
	sets := map[string][]string{}
	for _, s := range cfg.Suites {
		sets[s.Name] = s.RunsOn
	}
	return sets
}

// maxDrain is the most runners drained per label set.
func (d *drainFlags) maxDrain() int {
	if d.MaxDrain > 0 {
		return d.MaxDrain
	}
	return drain.DefaultMaxDrain
}

// printDrainPlan prints the plan for the nRunners runners of client's
// scope: the hosts kept, then each label to remove. With --apply it
// removes each through the API and records it in the drain log (whose
// contents are logData) before the next, then prints the command that
// gives them back.
func printDrainPlan(ctx context.Context, f *Factory, d *drainFlags, client *ghapi.Client, plan drain.Plan, nRunners int, logData []byte, verb string) error {
	scope := client.Scope().Path()
	for _, k := range plan.Kept {
		fmt.Fprintf(f.Out, "  %s: kept: %s\n", textfmt.Term(k.Host), textfmt.Term(k.Reason))
	}
	if len(plan.Actions) == 0 {
		_, err := fmt.Fprintf(f.Out, "  nothing to drain among the %s of %s\n", textfmt.CountNoun(nRunners, "runner"), scope)
		return err
	}
	for _, a := range plan.Actions {
		if !d.Apply {
			fmt.Fprintf(f.Out, "  %s: would remove %s\n", textfmt.Term(a.Runner), actionText(a, scope))
			continue
		}
		if err := client.RemoveLabel(ctx, a.RunnerID, a.Label); err != nil {
			return fmt.Errorf("drain: removing label %q from runner %q: %w (the changes before it are in %q)",
				textfmt.Term(a.Label), textfmt.Term(a.Runner), err, d.Log)
		}
		fmt.Fprintf(f.Out, "  %s: removed %s\n", textfmt.Term(a.Runner), actionText(a, scope))
		rec := drain.Record{Time: f.now().UTC().Format(time.RFC3339), Action: drain.ActionDrain, Scope: scope,
			RunnerID: a.RunnerID, Runner: a.Runner, Label: a.Label, LabelSet: a.LabelSet, Suites: a.Suites, Evidence: a.Evidence}
		var err error
		if logData, err = writeDrainRecord(d.Log, logData, rec); err != nil {
			return err
		}
	}
	if d.Apply {
		fmt.Fprintf(f.Out, "hint: miles-ci %s --restore %s --drain-log %s gives the labels back\n", verb,
			textfmt.ShellQuote(textfmt.Term(plan.Actions[0].Runner)), textfmt.ShellQuote(d.Log))
	}
	return nil
}

// actionText is an action's line after the runner's name.
func actionText(a drain.Action, scope string) string {
	return fmt.Sprintf("label %q (runner id %d of %s; %s runs on %s); evidence: %s",
		textfmt.Term(a.Label), a.RunnerID, scope, textfmt.Term(strings.Join(a.Suites, ", ")),
		textfmt.Term(drain.SetString(a.LabelSet)), textfmt.Term(strings.Join(a.Evidence, "; ")))
}

// readDrainLog reads the drain log at path; a missing one is empty.
func readDrainLog(path string) ([]byte, []drain.Record, error) {
	data, err := fsutil.ReadRegular(path, maxDrainLog)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("drain log %q: %w", path, fsutil.StripPath(err))
	}
	records, err := drain.ParseLog(path, data)
	return data, records, err
}

// openDrainLog reads the drain log at path, and proves it writable,
// before any change: a change that cannot be recorded is not made.
// nothing, the error's last words, says what was not done.
func openDrainLog(path, nothing string) ([]byte, []drain.Record, error) {
	data, records, err := readDrainLog(path)
	if err != nil {
		return nil, nil, err
	}
	if err := fsutil.WriteFile(path, data); err != nil {
		return nil, nil, fmt.Errorf("drain log %q: %w; %s", path, err, nothing)
	}
	return data, records, nil
}

// writeDrainRecord adds rec to the log (whose contents are data) and
// rewrites it atomically: a reader sees the records before or after, never
// a part of one.
func writeDrainRecord(path string, data []byte, rec drain.Record) ([]byte, error) {
	out, err := drain.AppendRecord(data, rec)
	if err == nil {
		err = fsutil.WriteFile(path, out)
	}
	if err != nil {
		return data, fmt.Errorf("drain log %q: %w; the change was made: runner %q (id %d) label %q (%s)",
			path, err, textfmt.Term(rec.Runner), rec.RunnerID, textfmt.Term(rec.Label), rec.Action)
	}
	return out, nil
}

// drainRestore gives a drained runner its labels back: --label's, else
// those the drain log says were removed and not given back since (see
// restoreLabels), the ones it lacks (drain.Runner.Lacking).
func drainRestore(ctx context.Context, f *Factory, d *drainFlags) error {
	client, err := d.client(f)
	if err != nil {
		return err
	}
	scope := client.Scope().Path()
	var logData []byte
	var records []drain.Record
	if d.Log != "" {
		if logData, records, err = openDrainLog(d.Log, "nothing restored"); err != nil {
			return err
		}
	}
	labels := restoreLabels(d.Labels, records, scope, d.Restore)
	if len(labels) == 0 {
		return fmt.Errorf("restore: the drain log %q holds no label drained from runner %q of %s and not given back since",
			d.Log, textfmt.Term(d.Restore), scope)
	}
	runners, err := client.Runners(ctx)
	if err != nil {
		return fmt.Errorf("restore: nothing restored: %w", err)
	}
	r := drain.Named(runners, d.Restore)
	if r == nil {
		return fmt.Errorf("restore: no runner %q among the %s of %s", textfmt.Term(d.Restore), textfmt.CountNoun(len(runners), "runner"), scope)
	}
	add := r.Lacking(labels)
	if len(add) == 0 {
		_, err := fmt.Fprintf(f.Out, "%s (runner id %d of %s) carries %s already: nothing to restore\n",
			textfmt.Term(r.Name), r.ID, scope, textfmt.Term(strings.Join(labels, ", ")))
		return err
	}
	if err := client.AddLabels(ctx, r.ID, add); err != nil {
		return fmt.Errorf("restore: adding %s to runner %q: %w", textfmt.Term(strings.Join(add, ", ")), textfmt.Term(r.Name), err)
	}
	return restoreRecord(f, d.Log, logData, r, add, scope)
}

// restoreLabels are the labels to give back to the runner named runner of
// scope: the --label flags given, else those the drain log's records say
// were drained from it and not given back since.
func restoreLabels(given []string, records []drain.Record, scope, runner string) []string {
	if len(given) > 0 {
		return given
	}
	return drain.ToRestore(records, scope, runner)
}

// restoreRecord prints each label added back to r, and records it in the
// drain log at path (whose contents are logData), "" for none.
func restoreRecord(f *Factory, path string, logData []byte, r *drain.Runner, added []string, scope string) error {
	for _, l := range added {
		fmt.Fprintf(f.Out, "%s: restored label %q (runner id %d of %s)\n", textfmt.Term(r.Name), textfmt.Term(l), r.ID, scope)
		if path == "" {
			continue
		}
		rec := drain.Record{Time: f.now().UTC().Format(time.RFC3339), Action: drain.ActionRestore, Scope: scope,
			RunnerID: r.ID, Runner: r.Name, Label: l}
		var err error
		if logData, err = writeDrainRecord(path, logData, rec); err != nil {
			return err
		}
	}
	return nil
}
