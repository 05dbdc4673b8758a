package lint

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/radixark/miles-ci/internal/config"
	"github.com/radixark/miles-ci/internal/suggest"
)

// Which roster suite a name the roster lacks meant: the "did you mean"
// of unknown-suite, orphan-registration and ci-suites. A suite name says
// where its jobs run (stage-c-8-gpu-h100: eight GPUs, H100), and a
// suggestion that changes that would move a test to other hardware, so
// only suites of the same backend and the same GPU count and model are
// offered. A renamed suite keeps its hardware, so the rename's new name
// is found; a suite on other hardware (stage-c-8-gpu-b200, next to
// stage-c-8-gpu-h200) is offered nothing.

// gpuName reads the GPU count and model a suite name carries:
// `-8-gpu-h100` → 8, "h100"; a name without them gives 0, "".
var gpuName = regexp.MustCompile(`(?:^|-)(\d+)-gpus?(?:-([a-z0-9]+))?`)

// hardware is what a suite name says of the runners its jobs need.
type hardware struct {
	gpus  int
	model string
}

func nameHardware(name string) hardware {
	m := gpuName.FindStringSubmatch(strings.ToLower(name))
	if m == nil {
		return hardware{}
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return hardware{}
	}
	return hardware{gpus: n, model: m[2]}
}

// sameHardware reports whether roster suite s runs where a suite named
// with hw would: the same GPU count (its name's, else its runs_on's) and
// the same model (its name's, one a prefix of the other as a typo or a
// suffix added by a rename leaves it, else one of its runs_on labels).
func sameHardware(hw hardware, s config.Suite) bool {
	own := nameHardware(s.Name)
	if hw.gpus > 0 {
		n := own.gpus
		if n == 0 {
			n = s.GPUsNeeded()
		}
		if n != 0 && n != hw.gpus {
			return false
		}
	}
	if hw.model == "" {
		return true
	}
	if own.model != "" && (strings.HasPrefix(own.model, hw.model) || strings.HasPrefix(hw.model, own.model)) {
		return true
	}
	return slices.ContainsFunc(s.RunsOn, func(l string) bool { return strings.EqualFold(l, hw.model) })
}

// suiteMeantAmong is the roster suite a name the roster lacks most likely
// meant, among the suites of the given backends (of any, when none is
// given) that keep the hardware the name says, or "". The suites of
// prefer (the other registrations of the same file, say) go first; then
// the closest by spelling; then, when the name says its hardware and
// exactly one suite has it, that one.
func (c *checker) suiteMeantAmong(name string, backends []config.Backend, prefer []string) string {
	hw := nameHardware(name)
	var fit []string
	for _, s := range c.cfg.Suites {
		if s.Name == name || len(backends) > 0 && !slices.Contains(backends, s.Backend) || !sameHardware(hw, s) {
			continue
		}
		fit = append(fit, s.Name)
	}
	var preferred []string
	for _, p := range prefer {
		if slices.Contains(fit, p) && !slices.Contains(preferred, p) {
			preferred = append(preferred, p)
		}
	}
	if len(preferred) > 0 {
		best := preferred[0]
		for _, p := range preferred[1:] {
			if suggest.Distance(name, p) < suggest.Distance(name, best) {
				best = p
			}
		}
		return best
	}
	if near, ok := suggest.Closest(name, fit); ok {
		return near
	}
	if len(fit) == 1 && hw != (hardware{}) {
		return fit[0]
	}
	return ""
}
