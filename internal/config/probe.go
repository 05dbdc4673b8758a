package config

import (
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Probe is the compute probe of the GPU preflight: a command that does a
// tiny CUDA or HIP operation (the preflight's recipes put one tensor on the
// GPU and read it back), run after the GPU tool's check found the host
// ready. A GPU tool can answer while CUDA cannot (error 802, "system not
// yet initialized", of a fabric manager that is down): the probe is what
// sees that, before a test does.
//
// Its keys stand in the preflight section (Preflight embeds Probe), in
// suite_defaults' preflight block and in a GPU suite's own; a suite takes
// each key on its own, its own first, then suite_defaults', then the
// section's (see Preflight.ForSuite). None is set by default, and
// probe_timeout has no default tag: a block that sets only probe must not
// hide suite_defaults' probe_timeout (DefaultProbeTimeout applies where
// no one sets it).
type Probe struct {
	// Argv is the command, the program first (looked for on the run's
	// PATH); nil when not set here.
	Argv []string `key:"probe" check:"argv"`
	// Timeout bounds one run of the probe (its process group is killed
	// past it); 0 when not set here, DefaultProbeTimeout in effect.
	Timeout time.Duration `key:"probe_timeout" check:"duration"`
}

// DefaultProbeTimeout bounds a probe whose configuration sets no
// probe_timeout: a CUDA context and one tensor take seconds, an import of
// torch from a cold disk some more.
const DefaultProbeTimeout = 30 * time.Second

// over returns p with each key that o sets replaced by o's.
func (p Probe) over(o Probe) Probe {
	if o.Argv != nil {
		p.Argv = o.Argv
	}
	if o.Timeout > 0 {
		p.Timeout = o.Timeout
	}
	return p
}

// ForSuite is the preflight of a run of suite s: this section's, with the
// probe's keys that the suite sets (its own, else suite_defaults'; see
// Suite.Probe) in place of the section's.
func (pf Preflight) ForSuite(s Suite) Preflight {
	pf.Probe = pf.Probe.over(s.Probe)
	return pf
}

// probeArgv reads a probe's command (the argv kind of a key): a non-empty
// list of strings whose first names a program, with no control character
// in any (the command is printed in the log and the report, one line each;
// a script that needs several lines belongs in a file the probe runs).
func (p *parser) probeArgv(v *yaml.Node, what string) ([]string, error) {
	const want = "must be a non-empty list of strings, the program first, as [python3, -c, \"import torch; torch.ones(1, device='cuda').sum().item()\"]"
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return nil, p.errf(v, "%s %s", what, want)
	}
	argv := make([]string, 0, len(v.Content))
	for i, e := range v.Content {
		if e.Kind != yaml.ScalarNode || e.Tag == "!!null" {
			return nil, p.errf(e, "%s item %d is not a string; the probe %s", what, i+1, want)
		}
		if r, bad := controlChar(e.Value); bad {
			return nil, p.errf(e, "%s item %d holds the control character U+%04X; write the command on one line (statements joined by ';') or put it in a script the probe runs", what, i+1, r)
		}
		argv = append(argv, e.Value)
	}
	if argv[0] == "" {
		return nil, p.errf(v.Content[0], "%s names no program: its first item is empty", what)
	}
	return argv, nil
}

// suiteProbe sets s.Probe from the suite's own preflight block n, its
// unset keys from suite_defaults' (p.probeDefault). A CPU suite runs no
// preflight: a block of its own is an error, suite_defaults' is not its.
func (p *parser) suiteProbe(n *yaml.Node, s *Suite) error {
	if s.Backend == CPU {
		if n != nil {
			return p.errf(n, "suite %q is a cpu suite; preflight applies to cuda and rocm suites", s.Name)
		}
		return nil
	}
	var own Probe
	if _, err := p.keyed(n, fmt.Sprintf("suite %q: preflight", s.Name), &own); err != nil {
		return err
	}
	s.Probe = p.probeDefault.over(own)
	return nil
}
