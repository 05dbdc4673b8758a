package filerun

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/radixark/miles-ci/internal/registry"
)

// RegisteredPath turns the --file path as a shell gives it into the path as
// registered: relative to the repository root, or else to the working
// directory (`./tests/x.py`, `x.py` inside tests/, an absolute path), as
// long as it is below the root. A path that names no file is refused here,
// so that "has no CI registration" is only said of a file that exists. The
// file-run command keeps file_run.py's exact matching (Find): this is
// `run --file`'s only.
func RegisteredPath(root, arg string, regs []registry.Registration) (string, error) {
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
