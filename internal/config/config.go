// Package config loads and validates the miles-ci configuration: the
// repository-specific data (discovery roots, labels, suites, schedules, paths)
// that the rest of miles-ci applies its rules to.
package config

import (
	_ "embed"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/yaml.v3"

	"github.com/radixark/miles-ci/internal/suggest"
)

// Backend is the hardware a suite runs on.
type Backend string

// The three backends, in the order suites are listed.
const (
	CPU  Backend = "cpu"
	CUDA Backend = "cuda"
	ROCM Backend = "rocm"
)

// Backends lists every backend in roster order.
var Backends = []Backend{CPU, CUDA, ROCM}

// Upper is the backend as the Python scripts print it (CPU, CUDA, ROCM).
func (b Backend) Upper() string { return strings.ToUpper(string(b)) }

// ParseBackend maps "cpu", "cuda" or "rocm" to a Backend.
func ParseBackend(s string) (Backend, bool) {
	for _, b := range Backends {
		if string(b) == s {
			return b, true
		}
	}
	return "", false
}

// Cadences are the CI cadences a policy can resolve to, sorted.
var Cadences = []string{"nightly", "regular", "release", "weekly"}

// Label is one domain label with its description.
type Label struct {
	Name        string
	Description string
}

// MaxShards bounds a shard count given on the command line
// (--auto-partition-size, partition --size; a suite's shards are bounded by
// MaxMatrixJobs). A GitHub Actions matrix holds at most 256 jobs, so this
// is far beyond any real split; a larger count would only make
// miles-ci allocate, and partition print, that many shards (a count near
// the int range panicked, Python raises MemoryError).
const MaxShards = 100000

// MaxMatrixJobs is the most jobs GitHub Actions runs of one matrix, and so
// the most shards a suite of the roster may have: each shard is a job of
// its stage's matrix.
const MaxMatrixJobs = 256

// Suite is one CI stage.
type Suite struct {
	Name    string
	Backend Backend
	RunsOn  []string
	Shards  int
	// TargetMinutes, when positive, lets a pull request book fewer shards
	// than Shards: the fewest whose longest shard takes at most this long
	// (see suite.Matrices).
	TargetMinutes float64
	// SetupMinutes is the time a shard's job spends before its first test
	// starts (a runner picked, an image pulled, dependencies installed):
	// the suite's own setup_minutes, else suite_defaults.setup_minutes,
	// else 0. Sizing counts it (see ShardBudget); it is less than
	// TargetMinutes when both are set.
	SetupMinutes float64
	// Needs lists the job ids a stage job must depend on (its `needs:`),
	// checked by `miles-ci lint`; empty when the roster says nothing.
	Needs []string
	// External suites are run by another repository's workflow; PR stage
	// selection neither counts nor skips them.
	External bool
	Workflow string
	// GPUs is the count of GPUs the suite's runner must have, when the
	// roster says (gpus: N); 0 leaves it to the runs_on labels (see
	// GPUsNeeded).
	GPUs int
	// RunsOnAt is where the suite's runs_on key stands in the
	// configuration (the suite entry's when it has none), for a finding
	// about its labels; see Config.Place.
	RunsOnAt Pos
	// At is where the suite's entry stands in the configuration, for a
	// finding about the suite itself.
	At Pos
	// Probe is the preflight probe's keys the suite sets in its own
	// preflight block, else suite_defaults' (a GPU suite's; see
	// Preflight.ForSuite).
	Probe Probe
}

// ShardBudget is the seconds of tests a shard of the suite may hold when a
// pull request sizes it (see TargetMinutes): the target less the setup
// every shard's job spends before its first test, so that a shard's job,
// setup and tests, ends within target_minutes.
// It is rounded to the millisecond: in floating point 45 − 11.2 minutes
// is 2027.9999999999998 s, and a shard of exactly 2028 s must fit.
func (s Suite) ShardBudget() float64 {
	return math.Round((s.TargetMinutes-s.SetupMinutes)*60*1000) / 1000
}

// SuiteDefaults are the values of a suite that does not set its own.
type SuiteDefaults struct {
	// SetupMinutes is Suite.SetupMinutes of a suite that sets none.
	SetupMinutes float64 `key:"setup_minutes" check:"minutes"`
	// Preflight is suite_defaults' preflight block: the probe's keys of
	// every GPU suite that does not set its own (see Probe).
	Preflight Probe `key:"preflight" check:"block"`
}

// MaxGPUs bounds a suite's gpus key: far more than one runner holds.
const MaxGPUs = 1024

// gpuLabel is a runner label that says how many GPUs the runner has:
// `8gpu` (also `8-gpu`, `8gpus`).
var gpuLabel = regexp.MustCompile(`^(\d+)-?gpus?$`)

// GPUsNeeded is the count of GPUs a runner of the suite must have: its
// gpus key, else the N of its first runs_on label `<N>gpu`, else 0 (no
// count to check).
func (s Suite) GPUsNeeded() int {
	if s.GPUs > 0 {
		return s.GPUs
	}
	for _, l := range s.RunsOn {
		if m := gpuLabel.FindStringSubmatch(l); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n <= MaxGPUs {
				return n
			}
		}
	}
	return 0
}

// Pos is a place in the configuration: a line and column of the file the
// configuration came from, or of the built-in one (`miles-ci config
// --default` prints it line for line) when BuiltIn.
type Pos struct {
	Line, Col int
	BuiltIn   bool
}

// BuiltInPath is the path a finding names the built-in configuration by:
// the command that prints it, whose output its line numbers count.
const BuiltInPath = "miles-ci config --default"

// Place is the path a finding at p names: BuiltInPath for the built-in
// configuration, else the file's path as Origin gives it.
func (c *Config) Place(p Pos) string {
	if p.BuiltIn || c.Source == "default" {
		return BuiltInPath
	}
	return c.Origin()
}

// Implicit describes the root whose unregistered files become CPU tests.
type Implicit struct {
	Root    string
	Suite   string
	EstTime float64
}

// RegisterFunc maps a register function name to its backend.
type RegisterFunc struct {
	Name    string
	Backend Backend
}

// FileRun configures `miles-ci file-run` and `run --file`, which run one
// explicitly requested test file (the /rerun-test pull request command).
type FileRun struct {
	// ImageRepository is the container image a file runs in, without the
	// tag (the request chooses the tag); "" when not configured.
	ImageRepository string `key:"image_repository" check:"text=image"`
	// MinTimeout is the shortest time limit of a file run in seconds; a
	// file gets 1.25 times its est_time when that is longer (by default
	// the default --timeout-per-file of a suite run).
	MinTimeout int `key:"min_timeout" check:"seconds" default:"1800"`
}

// Gate configures the metric-history gate that `run` drives after every
// passed CUDA file when the store's secret (NEON_DATABASE_URL) is set and no
// --gate-hook is given: a Python adapter process, one per run, imports the
// repository's own gate functions and calls them as run_suite.py does.
// Each function is "module:function", imported with the repository root
// first on sys.path.
type Gate struct {
	// Configured is false when the configuration has no gate section: then
	// only --gate-hook calls a gate.
	Configured bool
	// Python is the adapter's interpreter, one that has the store's driver.
	Python string `key:"python" check:"text=interpreter" default:"python3"`
	// Hook evaluates one file: hook(file, record, store=, registry=,
	// write_baseline=, provenance=).
	Hook string `key:"hook" check:"text=function" required:"function"`
	// Store builds the store once per run, or returns None (gate off).
	Store string `key:"store" check:"text=function" required:"function"`
	// Provenance returns the run's provenance, once per run.
	Provenance string `key:"provenance" check:"text=function" required:"function"`
	// Registry reads a file's registrations: registry(file) -> a list of
	// objects with .backend (an enum whose value is the backend name) and
	// .suite.
	Registry string `key:"registry" check:"text=function" required:"function"`
	// Timeout bounds one call in seconds (also the store's construction).
	Timeout int `key:"timeout" check:"seconds" default:"600"`
}

// Preflight configures the GPU preflight of `run` (see runner.Preflight):
// how long the host may take to be ready, how often the GPU tool is asked
// meanwhile and how long one call may take, and what a process of another
// job holding GPU memory does (ForeignWarn or ForeignFail). The defaults
// are Miles' wait loop, 60 tries 2 s apart, about 120 s in all, with every
// call bounded as the host's GPU query is.
type Preflight struct {
	Timeout          time.Duration `key:"timeout" check:"duration" default:"120s"`
	Interval         time.Duration `key:"interval" check:"duration" default:"2s"`
	QueryTimeout     time.Duration `key:"query_timeout" check:"duration" default:"5s"`
	ForeignProcesses string        `key:"foreign_processes" check:"enum=warn|fail" default:"warn"`
	// Probe is the compute probe run after the GPU tool's check (none by
	// default): its keys are the section's (probe, probe_timeout); a
	// suite's run takes ForSuite's.
	Probe
}

// The values of preflight.foreign_processes.
const (
	ForeignWarn = "warn" // recorded in the report and a warning annotation
	ForeignFail = "fail" // the host is not ready while they are there
)

// DefaultPreflight is the preflight a configuration without the section
// gets: its fields' default tags.
func DefaultPreflight() Preflight {
	var pf Preflight
	setDefaults("preflight", reflect.ValueOf(&pf).Elem())
	return pf
}

// MaxTimeout bounds a configured timeout in seconds (68 years): far beyond
// any CI job, and small enough for every integer and duration it meets.
const MaxTimeout = 1<<31 - 1

// Config is a validated configuration.
type Config struct {
	// Source names where the configuration came from: "default" or a path.
	Source string
	// shownAs is the path a message names the file by, relative to the
	// repository root when the file is inside it (Load sets it); empty,
	// Source stands.
	shownAs string
	// Overlay is what a file that extends the default changed in it (nil
	// for a whole configuration).
	Overlay *Overlay

	Roots         []string
	Pattern       string
	Implicit      Implicit
	RegisterFuncs []RegisterFunc
	Labels        []Label
	// LabelsFile is the repository-relative Python file the labels are read
	// from when it exists, or empty when the YAML list is the only source.
	LabelsFile     string
	labelsFileLine int  // the line of labels_file in Source, for errors
	labelsBuiltIn  bool // the labels section is the built-in one (extends: default)
	// LabelsFromFile reports that Load read the labels from LabelsFile; when
	// it is false the labels are the YAML list (a fallback when LabelsFile
	// is set but absent from the repository).
	LabelsFromFile    bool
	SuiteDefaults     SuiteDefaults `section:"suite_defaults"`
	Suites            []Suite
	Schedules         map[string]string
	ScopeSubtractions map[string][]string
	NoGPUPaths        []string
	FileRun           FileRun `section:"file_run"`
	Gate              Gate    `section:"gate"`
	// InfraFingerprints recognise a failure of the host in a GPU test's
	// output, in configured order (see InfraFingerprint); empty when the
	// configuration turns them off.
	InfraFingerprints []InfraFingerprint
	Preflight         Preflight `section:"preflight"`
	// Quarantine lists the quarantined test files (see QuarantineEntry);
	// QuarantineOff the cadences whose runs ignore it (none: every
	// cadence, nightly too, obeys it).
	Quarantine    []QuarantineEntry
	QuarantineOff []string

	// tree is the document's top-level mapping as read, an overlay merged
	// with the built-in one, and header the comment that opens the file:
	// what Complete writes out again.
	tree   *yaml.Node
	header string

	labelSet map[string]bool
	funcs    map[string]Backend
	suites   map[string]int
}

// Default returns the embedded configuration describing Miles today.
func Default() *Config {
	c, err := Parse("default", defaultYAML)
	if err != nil {
		panic("embedded default configuration is invalid: " + err.Error())
	}
	return c
}

//go:embed default.yaml
var defaultYAML []byte

// DefaultYAML returns the text of the embedded default configuration.
func DefaultYAML() []byte { return append([]byte(nil), defaultYAML...) }

func (c *Config) index() {
	c.labelSet = make(map[string]bool, len(c.Labels))
	for _, l := range c.Labels {
		c.labelSet[l.Name] = true
	}
	c.funcs = make(map[string]Backend, len(c.RegisterFuncs))
	for _, f := range c.RegisterFuncs {
		c.funcs[f.Name] = f.Backend
	}
	c.suites = make(map[string]int, len(c.Suites))
	for i, s := range c.Suites {
		c.suites[s.Name] = i
	}
}

// DefaultWorkflow is the workflow file, below .github/workflows, that runs
// a suite whose configuration names none.
const DefaultWorkflow = "pr-test.yml"

// WorkflowFile returns the workflow file name that runs the suite's job.
func (s Suite) WorkflowFile() string {
	if s.Workflow != "" {
		return s.Workflow
	}
	return DefaultWorkflow
}

// BuiltInOrigin is how a message names the built-in configuration: as a
// user knows it, with the command that prints it (the start of a
// .miles-ci.yaml), never as a file of miles-ci's own source tree.
const BuiltInOrigin = "the built-in roster; see `miles-ci config --default`"

// Origin names the configuration in effect for a message telling the user
// what to edit: the file it came from, relative to the repository root when
// it lies inside it, or BuiltInOrigin.
func (c *Config) Origin() string {
	switch {
	case c.Source == "default":
		return BuiltInOrigin
	case c.shownAs != "":
		return c.shownAs
	}
	return c.Source
}

// LabelsSource names where the labels came from: the labels file, or the
// labels: list of the configuration (miles-ci's built-in list for the
// default).
func (c *Config) LabelsSource() string {
	switch {
	case c.LabelsFile != "" && c.LabelsFromFile:
		return c.LabelsFile
	case c.Source == "default" || c.labelsBuiltIn:
		return "miles-ci's built-in list"
	default:
		return "the labels: list of " + c.Source
	}
}

// NewLabelHint is the sentence that ends an "unknown labels" message: what
// to edit to add a label. When the labels came from the Python file it is
// the Python collector's sentence, byte for byte; when the file is absent
// and the YAML list stood in for it, the sentence says so, so a user does
// not edit a file that miles-ci never read.
func (c *Config) NewLabelHint() string {
	const github = " + create matching `run-ci-<label>` in GitHub repo Settings -> Labels."
	switch {
	case c.LabelsFile != "" && c.LabelsFromFile:
		return "To add a new label: edit " + c.LabelsFile + github
	case c.LabelsFile != "":
		return "To add a new label: edit " + c.LabelsFile + github +
			" (this repository has no " + c.LabelsFile + "; the labels above are " + c.LabelsSource() + ")"
	default:
		return "To add a new label: add it to the labels: list of " + c.Origin() + github
	}
}

// KnownLabels returns the domain label names in configured order.
func (c *Config) KnownLabels() []string {
	out := make([]string, len(c.Labels))
	for i, l := range c.Labels {
		out[i] = l.Name
	}
	return out
}

// IsKnownLabel reports whether name is a configured domain label.
func (c *Config) IsKnownLabel(name string) bool { return c.labelSet[name] }

// RegisterBackend returns the backend of a register function name.
func (c *Config) RegisterBackend(name string) (Backend, bool) {
	b, ok := c.funcs[name]
	return b, ok
}

// Suite returns the named suite.
func (c *Config) Suite(name string) (Suite, bool) {
	i, ok := c.suites[name]
	if !ok {
		return Suite{}, false
	}
	return c.Suites[i], true
}

// UnknownSuiteError is a suite the roster does not hold: for the backend
// given (run's --hw), or for any backend when Backend is empty. The message
// with a backend is the Python runner's, byte for byte.
type UnknownSuiteError struct {
	Suite   string
	Backend Backend
	// Known lists the roster's suites, named when no backend was given.
	Known []string
	// Hint is the next step, for a second line: the backend of a suite
	// that exists for another one, or the closest suite name. It stays out
	// of Error, whose line is the Python runner's.
	Hint string
}

// HintLine returns Hint; the CLI prints it on a line of its own.
func (e *UnknownSuiteError) HintLine() string { return e.Hint }

func (e *UnknownSuiteError) Error() string {
	if e.Backend != "" {
		return fmt.Sprintf("Unknown suite %s for backend %s", e.Suite, e.Backend.Upper())
	}
	return fmt.Sprintf("Unknown suite %s; known suites: %s", e.Suite, strings.Join(e.Known, ", "))
}

// FindSuite returns the named suite of backend b, or of any backend when b
// is empty; otherwise an *UnknownSuiteError. A known suite with no
// registrations is found like any other.
func (c *Config) FindSuite(name string, b Backend) (Suite, error) {
	s, ok := c.Suite(name)
	if ok && (b == "" || s.Backend == b) {
		return s, nil
	}
	err := &UnknownSuiteError{Suite: name, Backend: b}
	if b == "" {
		for _, s := range c.Suites {
			err.Known = append(err.Known, s.Name)
		}
	}
	err.Hint = c.suiteHint(name, b)
	return Suite{}, err
}

// suiteHint is UnknownSuiteError.Hint: a suite of another backend is named
// with its own backend; otherwise the closest suite of backend b (of any
// backend when b is empty or none of b's is near) is offered.
func (c *Config) suiteHint(name string, b Backend) string {
	if s, ok := c.Suite(name); ok {
		return fmt.Sprintf("%s is a %s suite; select it with --hw %s", name, s.Backend, s.Backend)
	}
	var own, all []string
	for _, s := range c.Suites {
		all = append(all, s.Name)
		if s.Backend == b {
			own = append(own, s.Name)
		}
	}
	if near, ok := suggest.Closest(name, own); ok {
		return "did you mean " + near + "?"
	}
	near, ok := suggest.Closest(name, all)
	if !ok {
		return ""
	}
	if s, _ := c.Suite(near); b != "" && s.Backend != b {
		return fmt.Sprintf("did you mean %s (a %s suite, --hw %s)?", near, s.Backend, s.Backend)
	}
	return "did you mean " + near + "?"
}

// SuitesFor returns the suites of one backend in configured order.
func (c *Config) SuitesFor(b Backend) []Suite {
	var out []Suite
	for _, s := range c.Suites {
		if s.Backend == b {
			out = append(out, s)
		}
	}
	return out
}

// PRGPUStages returns, sorted, the GPU suites the repository's own PR
// workflows run: every cuda and rocm suite that is not external.
func (c *Config) PRGPUStages() []string {
	var out []string
	for _, s := range c.Suites {
		if s.Backend != CPU && !s.External {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

// IsNoGPUPath reports whether a changed path is known not to affect any GPU
// stage. The path is compared as given.
func (c *Config) IsNoGPUPath(path string) bool {
	_, ok := c.NoGPURule(path)
	return ok
}

// NoGPURule returns the first no_gpu_paths pattern that matches path.
func (c *Config) NoGPURule(path string) (string, bool) {
	for _, p := range c.NoGPUPaths {
		if ok, _ := doublestar.Match(p, path); ok {
			return p, true
		}
	}
	return "", false
}
