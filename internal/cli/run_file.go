package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/radixark/miles-ci/internal/argparse"
	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/filerun"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/suite"
)

// validateFile checks the flags of `run --file`: the file is the whole
// selection, so no flag that selects or shards a suite may come with it.
func (o *RunOptions) validateFile() error {
	var clash []string
	for _, c := range []struct {
		given bool
		flag  string
	}{
		{o.HW != "", "--hw"},
		{o.suiteSet, "--suite"},
		{len(o.cadenceOrder) > 0, strings.Join(o.cadenceOrder, "/")},
		{o.Labels != nil, "--labels"},
		{o.MatchAllLabels, "--match-all-labels"},
		{o.partitionIDSet, "--auto-partition-id"},
		{o.partitionSizeSet, "--auto-partition-size"},
		{o.Timings != "", "--timings"},
		{o.RerunFailed != "", "--rerun-failed"},
		{o.ExpectPlan != "", "--expect-plan"},
		{o.JSON, "--json"},
	} {
		if c.given {
			clash = append(clash, c.flag)
		}
	}
	if len(clash) > 0 {
		return usageErrorf("--file runs one registered file, its suite and hardware from its registration; it cannot be used with %s", strings.Join(clash, ", "))
	}
	return asUsage(argparse.Unrecognized(o.extras))
}

// runFile runs exactly one registered file (`run --file`) with the runner
// of a suite run: its registration resolved as file-run resolves it (the
// registry `run` reads, not the script's walk), its time limit the
// configured minimum or 1.25 times its est_time unless --timeout-per-file
// is given.
func runFile(ctx context.Context, f *Factory, opts *RunOptions) error {
	cfg, reg, err := f.Collect()
	if err != nil {
		return reportCollectError(f, err)
	}
	file, err := registeredPath(f.Root, opts.File, reg.Registrations)
	if err != nil {
		return err
	}
	fp, err := filerun.Find(cfg, reg.Registrations, file)
	if err != nil {
		return err
	}
	if !opts.timeoutSet {
		opts.TimeoutPerFile = cfg.FileRun.MinTimeout
	}
	r := fp.Registration
	opts.HW, opts.Suite = string(r.Backend), r.Suite
	// The limit the runner will apply: pytest is not retried, so a CPU
	// file's limit has no retry increase.
	limits := opts.Limits
	limits.EnableRetry = limits.EnableRetry && r.Backend != config.CPU
	if err := fp.WriteRunHeader(f.Out, limits.EffectiveTimeout(r.EstTime)); err != nil {
		return err
	}
	opts.gate = cfg.Gate
	gate, err := opts.decideGate(f, r.Backend, r.Suite)
	if err != nil {
		return err
	}
	if opts.ListOnly {
		return nil
	}
	return executeSuite(ctx, f, opts, &suite.Plan{Backend: r.Backend, Suite: config.Suite{Name: r.Suite},
		Enabled: []registry.Registration{r}, Tests: []registry.Registration{r}}, gate)
}

// registeredPath turns the --file path as a shell gives it into the path as
// registered: relative to the repository root, or else to the working
// directory (`./tests/x.py`, `x.py` inside tests/, an absolute path), as
// long as it is below the root. A path that names no file is refused here,
// so that "has no CI registration" is only said of a file that exists. The
// file-run command keeps file_run.py's exact matching: this is run's only.
func registeredPath(root, arg string, regs []registry.Registration) (string, error) {
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	registered := make(map[string]bool, len(regs))
	for _, r := range regs {
		registered[r.File] = true
	}
	var tried []string // absolute paths, in order, without repeats
	add := func(p string) {
		for _, t := range tried {
			if t == p {
				return
			}
		}
		tried = append(tried, p)
	}
	if filepath.IsAbs(arg) {
		add(filepath.Clean(arg))
	} else {
		add(filepath.Join(rootAbs, arg))
		if cwd, err := filepath.Abs(arg); err == nil {
			add(cwd)
		}
	}
	var existing []string // root-relative paths of files that exist
	below := false
	for _, p := range tried {
		rel, ok := belowRoot(rootAbs, p)
		if !ok {
			continue
		}
		below = true
		if registered[rel] {
			return rel, nil
		}
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			existing = append(existing, rel)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("--file %s: %w", arg, errors.Unwrap(err))
		}
	}
	if len(existing) > 0 {
		return existing[0], nil // filerun.Find says it is not registered
	}
	if !below {
		return "", fmt.Errorf("--file %s is not below the repository root %s", arg, rootAbs)
	}
	return "", fmt.Errorf("--file %s: no such file (looked for %s)", arg, strings.Join(tried, " and "))
}

// belowRoot is p relative to rootAbs, slash-separated, when p is below it
// (symbolic links resolved when the plain paths disagree).
func belowRoot(rootAbs, p string) (string, bool) {
	rel, err := filepath.Rel(rootAbs, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		r, err1 := filepath.EvalSymlinks(rootAbs)
		q, err2 := filepath.EvalSymlinks(p)
		if err1 != nil || err2 != nil {
			return "", false
		}
		if rel, err = filepath.Rel(r, q); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return "", false
		}
	}
	if rel == "." {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
