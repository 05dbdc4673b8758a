package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/flagkind"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/policy"
	"github.com/radixark/miles-ci/internal/prune"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/suite"
	"github.com/radixark/miles-ci/internal/textfmt"
	"github.com/radixark/miles-ci/internal/timings"
	"github.com/radixark/miles-ci/internal/view"
)

// The environment variables of the workflow contract (SPEC §3.2).
const (
	envEventName       = "EVENT_NAME"
	envSchedule        = "SCHEDULE"
	envPRLabelsJSON    = "PR_LABELS_JSON"
	envCadenceOverride = "CADENCE_OVERRIDE"
	envChangedFiles    = "CHANGED_FILES_PATH"
	envGitHubOutput    = "GITHUB_OUTPUT"
	envStepSummary     = "GITHUB_STEP_SUMMARY"
)

// msgNoDiff is printed on stdout when a pull request's diff cannot be used.
const msgNoDiff = "Changed-file diff is unavailable or empty; GPU stage pruning is disabled."

// PolicyOptions holds the inputs of `miles-ci policy`. Each input is a flag
// that, when given, wins over its environment variable; a nil flag field
// means "not given".
type PolicyOptions struct {
	Event           *string
	Schedule        *string
	LabelsJSON      *string
	CadenceOverride *string
	ChangedFiles    *string
	GitHubOutput    *string

	JSON    bool
	Explain bool
	// ShardMatrix adds the shard_matrix output; Timings is the timings
	// file its pull-request form splits the stages on ("" for est_time).
	ShardMatrix bool
	Timings     string

	// Config loads the configuration and Collect collects the registry
	// under it (only a pull request with a usable diff reads it); ReadFile
	// reads the changed-file diff. Nil ones are the Factory's and
	// readDiffFile; tests replace them.
	Config   func() (*config.Config, error)
	Collect  func(*config.Config) (*registry.Registry, error)
	ReadFile func(string) ([]byte, error)
}

// NewCmdPolicy builds `miles-ci policy`.
func NewCmdPolicy(f *Factory, runF func(*PolicyOptions) error) *cobra.Command {
	opts := &PolicyOptions{}
	var flags struct {
		event, schedule, labelsJSON, override, changed, output string
	}
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Resolve the CI policy of a workflow run",
		Long: `Resolve the CI policy of a workflow run from the trigger the workflow passes
in, decide which PR GPU stages the pull request's diff lets it skip, and write
cadence, raw_labels, bypass_fastfail and skipped_stages to GITHUB_OUTPUT (to
stdout when GITHUB_OUTPUT is unset).

Inputs come from the environment; each flag, when given, wins over its variable:
  --event            EVENT_NAME (required): pull_request, schedule or workflow_dispatch
  --schedule         SCHEDULE: the cron of a scheduled run
  --labels-json      PR_LABELS_JSON: the pull request's labels, a JSON array of strings
  --cadence-override CADENCE_OVERRIDE: a cadence that wins over the trigger
  --changed-files    CHANGED_FILES_PATH: a file holding git diff --name-status -z -M
  --github-output    GITHUB_OUTPUT: the step output file`,
		Example: `  git diff --name-status -z -M origin/main... > /tmp/diff
  EVENT_NAME=pull_request PR_LABELS_JSON='["run-ci-megatron"]' \
    CHANGED_FILES_PATH=/tmp/diff miles-ci policy --explain`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.Event = changedString(cmd, "event", &flags.event)
			opts.Schedule = changedString(cmd, "schedule", &flags.schedule)
			opts.LabelsJSON = changedString(cmd, "labels-json", &flags.labelsJSON)
			opts.CadenceOverride = changedString(cmd, "cadence-override", &flags.override)
			opts.ChangedFiles = changedString(cmd, "changed-files", &flags.changed)
			opts.GitHubOutput = changedString(cmd, "github-output", &flags.output)
			if opts.JSON && opts.Explain {
				return usageErrorf("--json and --explain cannot be used together")
			}
			if opts.Timings != "" && !opts.ShardMatrix {
				return usageErrorf("--timings needs --shard-matrix")
			}
			if runF != nil {
				return runF(opts)
			}
			return policyRun(cmd.Context(), f, opts)
		},
	}
	fl := cmd.Flags()
	flagkind.String(fl, &flags.event, "event", "", "workflow event `NAME` (default $EVENT_NAME)", flagkind.Text)
	flagkind.String(fl, &flags.schedule, "schedule", "", "`CRON` of a scheduled run (default $SCHEDULE)", flagkind.Text)
	flagkind.String(fl, &flags.labelsJSON, "labels-json", "", "pull request labels as a `JSON` array of strings (default $PR_LABELS_JSON)", flagkind.Text)
	flagkind.String(fl, &flags.override, "cadence-override", "", "`CADENCE` that wins over the trigger (default $CADENCE_OVERRIDE)", flagkind.Choice)
	// An empty value is an empty variable's: no usable diff, no empty-path error.
	flagkind.EmptyOK(flagkind.String(fl, &flags.changed, "changed-files", "", "`FILE` holding git diff --name-status -z -M output (default $CHANGED_FILES_PATH)", flagkind.Path))
	flagkind.EmptyOK(flagkind.String(fl, &flags.output, "github-output", "", "step output `FILE` to append to (default $GITHUB_OUTPUT)", flagkind.Output))
	fl.BoolVar(&opts.ShardMatrix, "shard-matrix", false, "also write shard_matrix: each GPU stage's GitHub Actions matrix, only the shards that hold a test on a pull request")
	addTimingsFlag(fl, &opts.Timings, "with --shard-matrix: split the stages on the measured seconds in the timings file `PATH`, as run --timings does")
	fl.BoolVar(&opts.Explain, "explain", false, "also say why each PR GPU stage runs or is skipped and why each label is included")
	fl.BoolVar(&opts.JSON, "json", false, "print the whole resolution as JSON instead of the text lines")
	return cmd
}

// lookup is a flag's value when it was given, else its environment
// variable's, telling an unset variable from an empty one.
func lookup(f *Factory, flag *string, env string) (string, bool) {
	if flag != nil {
		return *flag, true
	}
	if f.LookupEnv == nil {
		return "", false
	}
	return f.LookupEnv(env)
}

func getInput(f *Factory, flag *string, env string) string {
	v, _ := lookup(f, flag, env)
	return v
}

// policyError prints err as the workflow commands (policy, file-run)
// print their errors, a GitHub error annotation, one per failing registry
// file, and returns the silent exit status 1. Text Python's stderr would
// escape (a byte that is not UTF-8, a lone surrogate) is escaped as it
// escapes it.
func policyError(w io.Writer, err error) error {
	var files registry.Errors
	if errors.As(err, &files) && len(files) > 0 {
		for _, fe := range files {
			fmt.Fprintln(w, ghactions.Error(pyfmt.StreamText(fe.Error())))
		}
	} else {
		fmt.Fprintln(w, ghactions.Error(pyfmt.StreamText(err.Error())))
	}
	return &ExitError{Code: exitFailure}
}

func policyRun(_ context.Context, f *Factory, opts *PolicyOptions) error {
	if opts.Config == nil {
		opts.Config = f.Config
	}
	if opts.Collect == nil {
		opts.Collect = f.Registry
	}
	if opts.ReadFile == nil {
		opts.ReadFile = readDiffFile
	}
	event, ok := lookup(f, opts.Event, envEventName)
	if !ok {
		err := policyError(f.ErrOut, errors.New(envEventName+" is not set"))
		fmt.Fprintf(f.ErrOut, "hint: set %s (or --event) to %s\n", envEventName, policy.EventChoices)
		return err
	}
	trigger := policy.Trigger{
		Event:           event,
		Schedule:        getInput(f, opts.Schedule, envSchedule),
		PRLabelsJSON:    getInput(f, opts.LabelsJSON, envPRLabelsJSON),
		CadenceOverride: getInput(f, opts.CadenceOverride, envCadenceOverride),
	}
	// An unset GITHUB_OUTPUT prints the outputs on stdout; a set but empty
	// one is an error (see ghactions.StepOutputs).
	githubOutput, githubOutputSet := lookup(f, opts.GitHubOutput, envGitHubOutput)

	cfg, err := opts.Config()
	if err != nil {
		return policyError(f.ErrOut, err)
	}
	wf, err := policy.ResolveWorkflow(cfg, trigger)
	if err != nil {
		perr := policyError(f.ErrOut, err)
		if hint := triggerHint(opts, trigger, err); hint != "" {
			fmt.Fprintf(f.ErrOut, "hint: %s\n", hint)
		}
		return perr
	}

	// Stage pruning runs for every pull request, whatever decided the
	// cadence; the registry is read only when the diff can be trusted.
	var diff prune.Diff
	if event == policy.EventPullRequest {
		diff = readDiff(opts.ReadFile, getInput(f, opts.ChangedFiles, envChangedFiles))
	}
	pullRequest := event == policy.EventPullRequest
	var regs []registry.Registration
	if prune.NeedsRegistry(event, diff) || (opts.ShardMatrix && pullRequest) {
		reg, err := opts.Collect(cfg)
		if err != nil {
			return policyError(f.ErrOut, err)
		}
		regs = reg.Registrations
	}
	d := prune.Decide(cfg, wf, event, diff, regs)
	sel := d.Result

	rawLabels := strings.Join(wf.RawLabels, " ")
	bypass := fmt.Sprint(wf.Policy.Bypass)
	skipped := pyfmt.JSONStringListCompact(sel.Skipped)
	outputs := []ghactions.OutputPair{
		{Name: "cadence", Value: wf.Cadence},
		{Name: "raw_labels", Value: rawLabels},
		{Name: "bypass_fastfail", Value: bypass},
		{Name: "skipped_stages", Value: skipped},
	}
	var matrices []suite.StageMatrix
	if opts.ShardMatrix {
		if matrices, err = shardMatrices(cfg, wf, pullRequest, regs, opts.Timings); err != nil {
			return policyError(f.ErrOut, err)
		}
		outputs = append(outputs, ghactions.OutputPair{Name: "shard_matrix", Value: view.ShardMatrixJSON(matrices)})
	}
	lines, err := ghactions.StepOutputs(githubOutput, githubOutputSet, outputs)
	if err != nil {
		return policyError(f.ErrOut, err)
	}

	for _, w := range wf.Warnings {
		fmt.Fprintf(f.ErrOut, "warning: %s\n", w.Msg)
	}
	pv := &view.PolicyView{Config: cfg, Workflow: wf, Selection: sel, Pruning: d.Pruning,
		PullRequest: pullRequest, Paths: d.Paths, DiffEnv: envChangedFiles, ShardMatrix: matrices}
	if path := getInput(f, nil, envStepSummary); matrices != nil && path != "" {
		if err := ghactions.AppendStepSummary(path, view.ShardMatrixMarkdown(matrices, sel.Skipped)); err != nil {
			fmt.Fprintf(f.ErrOut, "warning: %v\n", err)
		}
	}
	if opts.JSON {
		return pv.WriteJSON(f.Out)
	}
	if d.Unusable {
		fmt.Fprintln(f.Out, msgNoDiff)
		if !opts.Explain { // the explanation says it
			fmt.Fprintf(f.ErrOut, "hint: %s\n", diffHint(opts, getInput(f, opts.ChangedFiles, envChangedFiles), diff.Unusable))
		}
	}
	fmt.Fprint(f.Out, lines)
	fmt.Fprintf(f.Out, "Resolved CI policy: cadence=%s labels=[%s] bypass_fastfail=%s skipped_stages=%s\n",
		wf.Cadence, rawLabels, bypass, skipped)
	if opts.Explain {
		return pv.WriteExplanation(f.Out)
	}
	return nil
}

// maxDiffSize caps the diff file policy reads. A path and its status take
// some tens of bytes, so 8 MiB holds well over 100,000 changed files; a
// larger diff is unusable (pruning fails open) rather than a step that
// runs out of memory parsing it.
const maxDiffSize = 8 << 20

// readDiffFile reads the diff only when it is a regular file of at most
// maxDiffSize bytes: a FIFO would hang the step and /dev/zero exhaust its
// memory.
func readDiffFile(path string) ([]byte, error) {
	return fsutil.ReadRegular(path, maxDiffSize)
}

// readDiff reads the changed-file diff at path with read; when it cannot
// be used, the Diff says why, with the operating system's reason for a
// file that cannot be read.
func readDiff(read func(string) ([]byte, error), path string) prune.Diff {
	if path == "" {
		return prune.Diff{Unusable: envChangedFiles + " is not set"}
	}
	data, err := read(path)
	if err != nil {
		var notRegular *fsutil.NotRegularError
		var tooLarge *fsutil.TooLargeError
		if errors.As(err, &notRegular) || errors.As(err, &tooLarge) {
			return prune.Diff{Unusable: path + " " + err.Error()}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return prune.Diff{Unusable: fmt.Sprintf("cannot read %s: %v", path, err)}
	}
	return prune.DiffOf(data)
}

// triggerHint names the input a policy error is about, as the user gave it
// (the flag when given, else the variable), its value (cut) and what it may
// be: the reference's message names neither. "" for an error with no input.
func triggerHint(opts *PolicyOptions, t policy.Trigger, err error) string {
	var pe *policy.Error
	if !errors.As(err, &pe) || pe.Input == "" {
		return ""
	}
	var flag *string
	var env, value string
	switch pe.Input {
	case policy.InputEvent:
		flag, env, value = opts.Event, envEventName, t.Event
	case policy.InputSchedule:
		flag, env, value = opts.Schedule, envSchedule, t.Schedule
	case policy.InputPRLabelsJSON:
		flag, env, value = opts.LabelsJSON, envPRLabelsJSON, t.PRLabelsJSON
	case policy.InputCadenceOverride:
		flag, env, value = opts.CadenceOverride, envCadenceOverride, t.CadenceOverride
	default:
		return ""
	}
	name := env
	if flag != nil {
		name = "--" + pe.Input
		if pe.Input == policy.InputPRLabelsJSON {
			name = "--labels-json"
		}
	}
	return fmt.Sprintf("%s is %s; expected %s", name, pyfmt.Repr(textfmt.Cut(value, hintValueWidth)), pe.Expected)
}

// hintValueWidth is how many characters of a bad value a hint quotes.
const hintValueWidth = 60

// diffHint says why the changed-file diff at path (CHANGED_FILES_PATH or
// --changed-files) was not used, and how to make one that is.
func diffHint(opts *PolicyOptions, path, why string) string {
	name := envChangedFiles
	if opts.ChangedFiles != nil {
		name = "--changed-files"
	}
	const make = "git diff --name-status -z -M origin/main... > FILE"
	if path == "" {
		return fmt.Sprintf("%s names no diff file; to prune, write one with: %s", name, make)
	}
	return fmt.Sprintf("%s (%s): %s; to prune, write it with: %s", name, path, why, make)
}

// shardMatrices is the shard_matrix output: on a pull request, each GPU
// stage's shards that hold a test under the run's policy, selected as
// `run` selects them; on any other event, whose test jobs may check out
// another ref than this job's, every roster shard.
func shardMatrices(cfg *config.Config, wf policy.Workflow, pullRequest bool, regs []registry.Registration, timingsPath string) ([]suite.StageMatrix, error) {
	var t *suite.Timings
	if timingsPath != "" {
		measured, err := timings.Read(timingsPath)
		if err != nil {
			return nil, err
		}
		t = &suite.Timings{Path: timingsPath, Seconds: measured}
	}
	// The test jobs get --cadence and --labels from this job's outputs and
	// resolve them with policy.ForRun, which gives the policy resolved here
	// (a repeated label counts once in both): it is resolved once.
	return suite.Matrices(cfg, regs, wf.Policy, t, pullRequest)
}
