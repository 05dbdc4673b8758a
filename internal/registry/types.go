// Package registry discovers the CI test files of a repository and turns the
// register calls in them into registrations, applying the per-file rules of
// the Python collector.
package registry

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
)

// Registration is one test file's entry in one suite.
type Registration struct {
	File     string         `json:"file"`
	Backend  config.Backend `json:"backend"`
	Suite    string         `json:"suite"`
	EstTime  float64        `json:"est_time"`
	Labels   []string       `json:"labels"` // declared order, duplicates kept; never nil
	Nightly  bool           `json:"nightly"`
	Disabled *string        `json:"disabled"` // nil = enabled; any string (even "") = disabled
	Implicit bool           `json:"implicit"`
	Line     int            `json:"-"` // line of the register call; 0 for implicit entries
}

// Enabled reports whether the registration is not disabled.
func (r *Registration) Enabled() bool { return r.Disabled == nil }

// FileError is a test file the collector refuses. Its message is exactly
// the Python collector's (it already names the file); Line is where the
// problem is, 0 when the whole file is at fault.
type FileError struct {
	File string
	Line int
	Msg  string
}

func (e *FileError) Error() string { return e.Msg }

// Errors holds every failing file of one collection, the one the Python
// collector would have raised first.
type Errors []*FileError

func (e Errors) Error() string {
	if len(e) == 1 {
		return e[0].Error()
	}
	return fmt.Sprintf("%s (and %d more failing files)", e[0].Error(), len(e)-1)
}

// Lines returns one message per failing file, first the one the Python
// collector would have raised; the CLI prints each on its own line.
func (e Errors) Lines() []string {
	out := make([]string, len(e))
	for i, fe := range e {
		out[i] = fe.Msg
	}
	return out
}

// Registry is the result of collecting a repository.
type Registry struct {
	Files         []string       // discovered files, sorted by bytes
	Registrations []Registration // in file order, then source order
}

// Job returns the roster suite whose CI job runs r: r's suite, when the
// configuration holds it with r's backend. A registration without one is
// collected (the Python collector accepts it) but never runs.
func (r *Registration) Job(cfg *config.Config) (config.Suite, bool) {
	s, ok := cfg.Suite(r.Suite)
	if !ok || s.Backend != r.Backend {
		return config.Suite{}, false
	}
	return s, true
}

// NoRootsError is a repository root below which none of the configured
// discovery roots exists. Collecting there finds no tests, which a CI job
// would report as a green stage; it is almost always a checkout into
// another path or a command run from the wrong directory.
type NoRootsError struct {
	Root  string
	Roots []string
}

func (e *NoRootsError) Error() string {
	return fmt.Sprintf("no discovery root exists below %q (looked for %s); pass the repository root with --root",
		e.Root, strings.Join(e.Roots, ", "))
}

// CheckRoots returns a *NoRootsError when none of roots is a directory
// below root. A root that exists but holds no test file passes: a
// repository may have no tests yet.
func CheckRoots(root string, roots []string) error {
	for _, d := range roots {
		if info, err := os.Stat(filepath.Join(root, filepath.FromSlash(d))); err == nil && info.IsDir() {
			return nil
		}
	}
	return &NoRootsError{Root: root, Roots: roots}
}
