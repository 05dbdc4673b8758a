package filerun

import (
	"fmt"
	"io"
	"math"
	"math/big"
	"sort"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/ghactions"
	"github.com/radixark/miles-ci/internal/pyfmt"
	"github.com/radixark/miles-ci/internal/registry"
)

// Job is how one test file runs: the CI job the file gets.
type Job struct {
	// Registration is the file's one enabled CPU or CUDA registration.
	Registration registry.Registration
	// RunsOn are the runner labels of a CUDA suite, from the roster; nil
	// for a CPU file (GitHub-hosted).
	RunsOn []string
	// Image is the container image, repository:tag ("" until Resolve
	// names it).
	Image string
	// TimeoutSeconds is the time limit: the configured minimum, or 1.25
	// times est_time when that is longer, as an exact decimal integer
	// however large est_time is (Python's int() of the product).
	TimeoutSeconds string
}

// HW is the hardware of the job: cpu or cuda.
func (p *Job) HW() config.Backend { return p.Registration.Backend }

// Suite is the suite of the file's registration.
func (p *Job) Suite() string { return p.Registration.Suite }

// Outputs are the five step outputs of the job, in file_run.py's order:
// hw, suite, runs_on (the runner labels as Python's json.dumps writes the
// list, empty for a CPU file), container_image, timeout_seconds.
func (p *Job) Outputs() []ghactions.OutputPair {
	return []ghactions.OutputPair{
		{Name: "hw", Value: string(p.HW())},
		{Name: "suite", Value: p.Suite()},
		{Name: "runs_on", Value: p.runsOnJSON()},
		{Name: "container_image", Value: p.Image},
		{Name: "timeout_seconds", Value: p.TimeoutSeconds},
	}
}

func (p *Job) runsOnJSON() string {
	if p.HW() != config.CUDA {
		return ""
	}
	b := []byte{'['}
	for i, l := range p.RunsOn {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = pyfmt.AppendJSONStringASCII(b, l)
	}
	return string(append(b, ']'))
}

// JSON is the job's stdout line without its newline: the outputs as
// Python's json.dumps(plan, sort_keys=True) writes them.
func (p *Job) JSON() string {
	outs := p.Outputs()
	sort.Slice(outs, func(i, j int) bool { return outs[i].Name < outs[j].Name })
	b := []byte{'{'}
	for i, o := range outs {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = pyfmt.AppendJSONStringASCII(b, o.Name)
		b = append(b, ": "...)
		b = pyfmt.AppendJSONStringASCII(b, o.Value)
	}
	return string(append(b, '}'))
}

// validImageTag reports whether tag has the shape of a Docker tag, as
// pr-test.yml's resolve-ci-image step enforces it: [A-Za-z0-9_] then up to
// 127 of [A-Za-z0-9_.-], the whole tag. It is checked by hand: the
// equivalent regular expression, compiled at start-up, cost every command
// a third of a millisecond.
func validImageTag(tag string) bool {
	if len(tag) == 0 || len(tag) > 128 {
		return false
	}
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		word := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
		if !word && (i == 0 || c != '.' && c != '-') {
			return false
		}
	}
	return true
}

// CheckImageTag refuses a tag that is not a valid Docker tag (the tag is
// written into the image name the run job pulls).
func CheckImageTag(tag string) error {
	if !validImageTag(tag) {
		return &Error{Msg: "invalid CI image tag: " + pyfmt.Repr(tag)}
	}
	return nil
}

// Find maps testFile to its job, with file_run.py's checks in its order:
// the file must be registered; ROCm registrations are ignored, and a file
// registered only for ROCm is refused; exactly one CPU or CUDA registration
// must remain, and it must not be disabled (an empty reason disables too);
// a CUDA suite must be a cuda suite of the roster, whose runner labels it
// gets; a CPU suite must be a cpu suite of the roster.
//
// An explicit file is the selection: its labels and nightly flag are not
// looked at. testFile must equal the registered path byte for byte
// ("./tests/x.py" is not registered).
func Find(cfg *config.Config, regs []registry.Registration, testFile string) (*Job, error) {
	var found, supported []registry.Registration
	for _, r := range regs {
		if r.File != testFile {
			continue
		}
		found = append(found, r)
		if r.Backend == config.CPU || r.Backend == config.CUDA {
			supported = append(supported, r)
		}
	}
	if len(found) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("%s has no CI registration; /rerun-test runs only registered test files", testFile), unregistered: true}
	}
	if len(supported) == 0 {
		suites := make([]string, len(found))
		for i, r := range found {
			suites[i] = r.Suite
		}
		sort.Strings(suites)
		return nil, errorf("%s is registered only for ROCm (%s); /rerun-test supports CPU and CUDA", testFile, strings.Join(suites, ", "))
	}
	if len(supported) > 1 {
		suites := make([]string, len(supported))
		for i, r := range supported {
			suites[i] = r.Backend.Upper() + ":" + r.Suite
		}
		sort.Strings(suites)
		return nil, errorf("%s has multiple CPU/CUDA registrations (%s); expected exactly one", testFile, strings.Join(suites, ", "))
	}
	reg := supported[0]
	if reg.Disabled != nil {
		return nil, errorf("%s is disabled: %s", testFile, *reg.Disabled)
	}
	suite, ok := cfg.Suite(reg.Suite)
	if !ok || suite.Backend != reg.Backend {
		if reg.Backend == config.CUDA {
			// The script names its own table of runner labels; the roster
			// holds them here, but the line is kept as people grep for it.
			return nil, errorf("CUDA suite %s has no runner mapping in CUDA_SUITE_RUNS_ON", reg.Suite)
		}
		return nil, errorf("CPU suite %s is not allowed for an explicit file run", reg.Suite)
	}
	timeout, err := TimeoutSeconds(cfg.FileRun.MinTimeout, reg.EstTime)
	if err != nil {
		return nil, errorf("%s: %v", testFile, err)
	}
	p := &Job{Registration: reg, TimeoutSeconds: timeout}
	if reg.Backend == config.CUDA {
		p.RunsOn = append([]string{}, suite.RunsOn...)
	}
	return p, nil
}

func errorf(format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// TimeoutSeconds is registry.TimeLimit(minimum, est) written as Python
// writes the integer: exact at any size (an est_time of 1e20 gives
// 125000000000000000000). An infinite product, where Python raises
// OverflowError, is an error.
func TimeoutSeconds(minimum int, est float64) (string, error) {
	limit := registry.TimeLimit(minimum, est)
	if math.IsInf(limit, 0) || math.IsNaN(limit) {
		return "", fmt.Errorf("est_time %s is too large for a timeout", pyfmt.Float(est))
	}
	if limit <= float64(minimum) {
		return fmt.Sprint(minimum), nil
	}
	n, _ := new(big.Float).SetFloat64(limit).Int(nil)
	return n.String(), nil
}

// WriteRunHeader writes what `run --file` prints before it runs the file:
// the file, its hardware, suite and est_time, and the time limit it runs
// under, timeout seconds.
func (p *Job) WriteRunHeader(w io.Writer, timeout int) error {
	r := p.Registration
	rule := strings.Repeat("=", 60)
	_, err := fmt.Fprintf(w, "\n%s\nFile run: %s\nHardware: %s  Suite: %s  est_time=%ss  Timeout: %ds\n%s\n\n",
		rule, r.File, r.Backend.Upper(), r.Suite, pyfmt.Float(r.EstTime), timeout, rule)
	return err
}
