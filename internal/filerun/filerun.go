// Package filerun resolves one explicitly requested test file (the
// /rerun-test pull request command) to the job that runs it: hardware,
// suite, runner labels, container image and timeout, with the rules and
// messages of Miles's tests/ci/file_run.py.
//
// The registrations come from a source root (the pull request's head, code
// nobody has reviewed yet); everything else — the suites and their runner
// labels, the known labels, the image repository — comes from the
// configuration the caller loaded from its trusted checkout. A pull request
// can change which of its files are registered where, never which runner a
// suite gets.
package filerun

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/registry"
	"github.com/radixark/miles-ci/internal/suggest"
)

// Error is a request file-run refuses. Where file_run.py has the same
// refusal, Msg is its message byte for byte: workflows and people grep for
// these lines.
type Error struct {
	Msg string
	// Registered, for a file with no registration, is the path as
	// registered of the file the request named another way
	// ("./tests/x.py", an absolute path inside the source root): what to
	// ask for instead. "" when there is no such file.
	Registered string
	// Missing, for a file with no registration, says that no such file
	// exists below the source root (and none named another way, see
	// Registered); Near is then the registered file whose path is closest
	// to the one asked for, "" when none is near enough to be a typo.
	Missing bool
	Near    string

	unregistered bool
}

func (e *Error) Error() string { return e.Msg }

// Request is what a file run is asked for, as run-ci-file.yml passes it.
type Request struct {
	// TestFile is the repository-relative path, exactly as registered.
	TestFile string
	// ImageTag is the container image tag ("dev" unless the PR says).
	ImageTag string
	// SourceRoot is the checkout the registrations are read from.
	SourceRoot string
}

// Resolve collects the registrations of the source root and resolves the
// request against them, in file_run.py's order: the source root, the
// discovery, the collection, the image tag, then the registrations of the
// file (see Find). A configuration without an image repository is
// refused before anything is read.
func Resolve(cfg *config.Config, req Request) (*Job, error) {
	if cfg.FileRun.ImageRepository == "" {
		// A configuration problem, so it comes before anything is read.
		return nil, &Error{Msg: "the configuration (" + cfg.Source + ") has no file_run.image_repository; file-run needs it to name the container image"}
	}
	root, err := ResolveSourceRoot(req.SourceRoot)
	if err != nil {
		return nil, err
	}
	reg, err := Collect(root, cfg)
	if err != nil {
		return nil, err
	}
	if err := CheckImageTag(req.ImageTag); err != nil {
		return nil, err
	}
	p, err := Find(cfg, reg.Registrations, req.TestFile)
	var fe *Error
	if errors.As(err, &fe) && fe.unregistered {
		fe.Registered = registeredAs(root, req.TestFile, reg.Registrations)
		if fe.Registered == "" && missing(root, req.TestFile) {
			fe.Missing = true
			fe.Near = nearestRegistered(req.TestFile, reg.Registrations)
		}
	}
	if err != nil {
		return nil, err
	}
	p.Image = cfg.FileRun.ImageRepository + ":" + req.ImageTag
	return p, nil
}

// registeredAs is the path as registered, relative to the source root, of
// the file that file names another way: cleaned of "./", repeated
// separators and "..", or made relative to root when absolute (root is
// absolute and resolved). It is "" when that is file itself or names no
// registered file: file_run.py matches the path exactly, and so does
// Find, so this only says what to ask for.
func registeredAs(root, file string, regs []registry.Registration) string {
	p := filepath.ToSlash(filepath.Clean(file))
	if filepath.IsAbs(file) {
		rel, ok := belowRoot(root, filepath.Clean(file))
		if !ok {
			return ""
		}
		p = rel
	}
	if p == file {
		return ""
	}
	for _, r := range regs {
		if r.File == p {
			return p
		}
	}
	return ""
}

// missing reports whether file names no file below root (an absolute,
// resolved directory): a path outside it, or one that cannot be looked at
// for another reason, is not said to be missing.
func missing(root, file string) bool {
	p := filepath.Clean(file)
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	if _, ok := belowRoot(root, p); !ok {
		return false
	}
	_, err := os.Lstat(p)
	return errors.Is(err, fs.ErrNotExist)
}

// nearestRegistered is the registered file whose path is nearest to file
// (suggest.Closest), "" when none is near.
func nearestRegistered(file string, regs []registry.Registration) string {
	var files []string
	for _, r := range regs {
		if len(files) == 0 || files[len(files)-1] != r.File { // a file's registrations are together
			files = append(files, r.File)
		}
	}
	near, _ := suggest.Closest(filepath.ToSlash(filepath.Clean(file)), files)
	return near
}

// Collect discovers the test files below root the way file_run.py does
// (see Discover) and reads their registrations with the collector's rules.
// root is an absolute, resolved directory.
func Collect(root string, cfg *config.Config) (*registry.Registry, error) {
	files, notRegular, err := Discover(root, cfg)
	if err != nil {
		return nil, err
	}
	return registry.CollectFiles(root, files, notRegular, cfg)
}
