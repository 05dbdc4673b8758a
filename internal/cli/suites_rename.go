package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/radixark/miles-ci/internal/complete"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/fsutil"
	"github.com/radixark/miles-ci/internal/lint"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/rename"
	"github.com/radixark/miles-ci/internal/textfmt"
)

// SuitesRenameOptions holds the arguments and flags of `miles-ci suites
// rename`.
type SuitesRenameOptions struct {
	Old, New string
	DryRun   bool // --dry-run: print the diff, write nothing
}

// newCmdSuitesRename builds `miles-ci suites rename OLD NEW`.
func newCmdSuitesRename(f *Factory, runF func(*SuitesRenameOptions) error) *cobra.Command {
	opts := &SuitesRenameOptions{}
	cmd := &cobra.Command{
		Use:   "rename OLD NEW",
		Short: "Rename a suite everywhere the repository keeps its name",
		Long: `Rename suite OLD to NEW in every place the repository keeps the name: the
roster in the configuration file, the workflows (job id, needs:, skip guards,
--suite words, matrix values, comments, shard names built on it), the suite literal of every register
call, and, while they exist, the suite lists of tests/ci/run_suite.py,
stage_selection.py and file_run.py. Only the name's bytes change. A place
that cannot be renamed safely (a name built by an f-string or by adjacent
strings, a YAML anchor, the name inside a longer word that is no suite, job
id or shard name) is reported as FILE:LINE, and then nothing is written at all. The roster
must be a file of the repository (miles-ci config --init writes one). With
--dry-run, print the diff and write nothing. See "miles-ci help config".`,
		Example: `  miles-ci suites rename stage-c-8-gpu-h100 stage-c-8-gpu-h100x --dry-run
  miles-ci suites rename stage-c-8-gpu-h100 stage-c-8-gpu-h100x && miles-ci lint`,
		ValidArgsFunction: complete.SuiteArg(&f.Root, &f.ConfigPath),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("suites rename takes two arguments, OLD and NEW (got %d)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Old, opts.New = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return suitesRenameRun(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print a unified diff of every change and write nothing")
	return cmd
}

// renameRefused is a rename that stopped before writing: one line per
// problem, then what it means.
type renameRefused struct{ lines []string }

func (e *renameRefused) Error() string   { return strings.Join(e.lines, "\n") }
func (e *renameRefused) Lines() []string { return e.lines }

// renameSource is a file read for the rename, kept to be rewritten.
type renameSource struct {
	file rename.File
	orig *fsutil.Original
	// whyNot says why a file read without orig cannot be rewritten.
	whyNot error
}

// suitesRenameRun is the edges of suites rename: it reads the roster file,
// the workflows, the test files and the Python CI scripts, hands their
// texts to package rename, and prints or writes what it decides.
func suitesRenameRun(_ context.Context, f *Factory, opts *SuitesRenameOptions) error {
	cfg, err := f.Config()
	if err != nil {
		return err
	}
	if err := rename.Check(cfg, opts.Old, opts.New); err != nil {
		var arg *rename.ArgError
		if errors.As(err, &arg) {
			return &UsageError{Msg: arg.Msg}
		}
		return err
	}
	sources, problems, err := readRenameSources(f, cfg, opts.Old)
	if err != nil {
		return err
	}
	files := make([]rename.File, len(sources))
	byPath := map[string]renameSource{}
	for i, s := range sources {
		files[i] = s.file
		byPath[s.file.Path] = s
	}
	plan := rename.Decide(cfg, opts.Old, opts.New, files)
	problems = append(problems, plan.Refused...)
	for _, c := range plan.Changes {
		if s := byPath[c.Path]; s.orig == nil {
			problems = append(problems, rename.Problem{Path: c.Path, Line: c.Edits[0].Line,
				Msg: fmt.Sprintf("cannot rename %s: the file cannot be rewritten: %v", opts.Old, s.whyNot)})
		}
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b rename.Problem) int {
			if c := strings.Compare(a.Path, b.Path); c != 0 {
				return c
			}
			return a.Line - b.Line
		})
		lines := make([]string, 0, len(problems)+1)
		for _, p := range problems {
			lines = append(lines, p.String())
		}
		lines = append(lines, fmt.Sprintf("%s cannot be renamed safely; nothing was written", textfmt.CountNoun(len(problems), "place")))
		return &renameRefused{lines: lines}
	}
	if s, _ := cfg.Suite(opts.Old); s.External {
		fmt.Fprintf(f.ErrOut, "warning: %s is an external suite: another repository's workflow runs it by name, and fails on an unknown suite until it says %s too (`miles-ci lint --external FILE` checks that workflow)\n", opts.Old, opts.New)
	}
	for _, m := range plan.Left {
		fmt.Fprintf(f.ErrOut, "note: %s still names %s on %s, in text that is no suite field (a comment, a longer string); check it\n",
			textfmt.OneLine(m.Path), opts.Old, lineList(m.Lines))
	}
	if opts.DryRun {
		for _, c := range plan.Changes {
			fmt.Fprint(f.Out, unifiedDiff(textfmt.OneLine(c.Path), c.Old, c.New))
		}
		fmt.Fprintf(f.ErrOut, "dry run: %s in %s; nothing written\n",
			textfmt.CountNoun(plan.Edits(), "edit"), textfmt.CountNoun(len(plan.Changes), "file"))
		return nil
	}
	for i, c := range plan.Changes {
		if err := fsutil.Rewrite(byPath[c.Path].orig, c.New); err != nil {
			var done []string
			for _, w := range plan.Changes[:i] {
				done = append(done, textfmt.OneLine(w.Path))
			}
			written := "nothing was written"
			if len(done) > 0 {
				written = "written before it: " + strings.Join(done, ", ") + "; the others were not"
			}
			return fmt.Errorf("%s: %v; %s", textfmt.OneLine(c.Path), err, written)
		}
		fmt.Fprintf(f.Out, "%s: %s\n", textfmt.OneLine(c.Path), textfmt.CountNoun(len(c.Edits), "edit"))
	}
	argv := []string{"miles-ci"}
	if f.Root != "" && f.Root != "." {
		argv = append(argv, "--root", f.Root)
	}
	if f.ConfigPath != "" {
		argv = append(argv, "--config", f.ConfigPath)
	}
	fmt.Fprintf(f.ErrOut, "hint: renamed %s to %s (%s in %s); check the workflows against the roster with `%s`, then commit\n",
		opts.Old, opts.New, textfmt.CountNoun(plan.Edits(), "edit"), textfmt.CountNoun(len(plan.Changes), "file"),
		textfmt.OneLine(textfmt.ShellJoin(append(argv, "lint"))))
	return nil
}

// lineList writes lines as "line 3" or "lines 3, 7", the first eight of
// many then how many there are.
func lineList(lines []int) string {
	const most = 8
	words := make([]string, 0, most)
	for _, l := range lines[:min(len(lines), most)] {
		words = append(words, strconv.Itoa(l))
	}
	switch {
	case len(lines) == 1:
		return "line " + words[0]
	case len(lines) > most:
		return fmt.Sprintf("lines %s, … (%d lines)", strings.Join(words, ", "), len(lines))
	}
	return "lines " + strings.Join(words, ", ")
}

// readRenameSources reads every file a rename may change, each as a file
// to rewrite: the configuration file in effect, the workflows, the test
// files the registry reads and the Python CI scripts that exist. A file
// that cannot be read for rewriting is a problem when it mentions old,
// and left out otherwise.
func readRenameSources(f *Factory, cfg *config.Config, old string) ([]renameSource, []rename.Problem, error) {
	var (
		out      []renameSource
		problems []rename.Problem
	)
	add := func(shown string, role rename.Role, o *fsutil.Original, err error, path string, limit int64) {
		if err == nil {
			out = append(out, renameSource{file: rename.File{Path: shown, Role: role, Src: o.Data}, orig: o})
			return
		}
		// A file that cannot be rewritten (a link, read-only, hard-linked)
		// is still read: it is a problem only when the rename changes it.
		data, rerr := fsutil.ReadRegular(path, limit)
		switch {
		case rerr == nil:
			out = append(out, renameSource{file: rename.File{Path: shown, Role: role, Src: data}, whyNot: fsutil.StripPath(err)})
		case errors.Is(rerr, fs.ErrNotExist) && role == rename.PythonCI:
		default:
			problems = append(problems, rename.Problem{Path: shown, Msg: fmt.Sprintf("cannot rename %s: the file cannot be read: %v", old, fsutil.StripPath(rerr))})
		}
	}

	if f.ConfigPath != "" {
		o, err := fsutil.ReadForRewrite(f.ConfigPath, config.MaxFileSize)
		add(cfg.Origin(), rename.Roster, o, err, f.ConfigPath, config.MaxFileSize)
	} else {
		o, err := fsutil.ReadForRewriteBelow(f.Root, config.FileName, config.MaxFileSize)
		add(config.FileName, rename.Roster, o, err, filepath.Join(f.Root, config.FileName), config.MaxFileSize)
	}

	entries, err := os.ReadDir(filepath.Join(f.Root, filepath.FromSlash(lint.WorkflowDir)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("read workflow directory %q: %w", lint.WorkflowDir, fsutil.StripPath(err))
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".yml") && !strings.HasSuffix(name, ".yaml") {
			continue
		}
		rel := path.Join(lint.WorkflowDir, name)
		o, err := fsutil.ReadForRewriteBelow(f.Root, rel, lint.MaxWorkflowSize)
		add(rel, rename.Workflow, o, err, filepath.Join(f.Root, filepath.FromSlash(rel)), lint.MaxWorkflowSize)
	}

	tests, err := registry.Discover(f.Root, cfg)
	if err != nil {
		return nil, nil, err
	}
	for _, rel := range tests {
		if slices.Contains(rename.PythonCIFiles, rel) {
			continue
		}
		o, err := fsutil.ReadForRewriteBelow(f.Root, rel, registry.MaxFileSize)
		add(rel, rename.TestFile, o, err, filepath.Join(f.Root, filepath.FromSlash(rel)), registry.MaxFileSize)
	}
	for _, rel := range rename.PythonCIFiles {
		o, err := fsutil.ReadForRewriteBelow(f.Root, rel, registry.MaxFileSize)
		add(rel, rename.PythonCI, o, err, filepath.Join(f.Root, filepath.FromSlash(rel)), registry.MaxFileSize)
	}
	return out, problems, nil
}
